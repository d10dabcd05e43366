/* Glue for the upstream kernel/locking/qrwlock.c and qspinlock.c, compiled
 * unchanged against the kernel-compat layer (scripts/kernel-upstream.sh, rwstress kernel):
 * the queued rwlock, and the queued spinlock under it as a mutex.
 *
 * Both spin. The qrwlock is declared task-fair (waiters queue on the
 * qspinlock, and new readers wait behind a waiting writer), the qspinlock
 * unfair (the pending bit lets a newcomer in ahead of the queue), as the
 * in-tree qrwlock and qspinlock are.
 *
 * A queued rwlock may be read from interrupt handlers too (the reason
 * for qrwlock.c's in_interrupt() path): a reader in interrupt context
 * does not queue behind a waiting writer, it spins only while a writer
 * holds (queued_read_lock_slowpath's in_interrupt() path), and a writer
 * takes the lock with interrupts off (write_lock_irq), or an interrupt's
 * reader on its CPU would spin for good. Under explore --interrupts every
 * second read lock of a thread is taken in an interrupt handler
 * (__rwsk_in_interrupt, <linux/preempt.h>), and the writer's hold has
 * interrupts off; elsewhere the reads are all in task context. */
#include <linux/spinlock.h>

#include "glue.h"

static void qrwlock_init(struct qrwlock *lock) { *lock = (struct qrwlock)__ARCH_RW_LOCK_UNLOCKED; }
static void qspinlock_init(struct qspinlock *lock) {
  *lock = (struct qspinlock)__ARCH_SPIN_LOCK_UNLOCKED;
}

/* read_lock() and spin_lock() disable preemption for the hold, which
 * explore --virtual-cpus hears of (no other thread of the CPU runs). */
static void glue_irq_read_lock(void *lock) {
  __rwsk_preempt_hold(1);
  queued_read_lock((struct qrwlock *)lock);
}

static void glue_read_unlock(struct qrwlock *lock) {
  queued_read_unlock(lock);
  __rwsk_preempt_hold(-1);
}

static int glue_read_trylock(struct qrwlock *lock) {
  return GLUE_TRYLOCK_PREEMPT_HELD(queued_read_trylock(lock));
}

static void glue_spin_lock(struct qspinlock *lock) {
  __rwsk_preempt_hold(1);
  queued_spin_lock(lock);
}

static void glue_spin_unlock(struct qspinlock *lock) {
  queued_spin_unlock(lock);
  __rwsk_preempt_hold(-1);
}

static int glue_spin_trylock(struct qspinlock *lock) {
  return GLUE_TRYLOCK_PREEMPT_HELD(queued_spin_trylock(lock));
}

static void glue_read_lock(struct qrwlock *lock) {
  GLUE_EVERY_SECOND_IN_INTERRUPT(glue_irq_read_lock, lock);
}

static __thread unsigned long glue_write_flags;

static void glue_write_lock(struct qrwlock *lock) {
  unsigned long flags;
  local_irq_save(flags);
  queued_write_lock(lock);
  glue_write_flags = flags;
}

static void glue_write_unlock(struct qrwlock *lock) {
  queued_write_unlock(lock);
  local_irq_restore(glue_write_flags);
}

static int glue_write_trylock(struct qrwlock *lock) {
  unsigned long flags;
  local_irq_save(flags);
  if (queued_write_trylock(lock)) {
    glue_write_flags = flags;
    return 1;
  }
  local_irq_restore(flags);
  return 0;
}

RWSTRESS_KERNEL_RWSEM_OPS(upstream_qrwlock, GLUE_NAME("qrwlock"), struct qrwlock, qrwlock_init,
                          glue_read_lock, glue_read_unlock, glue_write_lock,
                          glue_write_unlock, glue_read_trylock, glue_write_trylock, NULL,
                          .fairness = RWSTRESS_FAIRNESS_TASK_FAIR, .flags = RWSTRESS_LOCK_SPINS);
RWSTRESS_KERNEL_MUTEX_OPS(upstream_qspinlock, GLUE_NAME("qspinlock"), struct qspinlock,
                          qspinlock_init, glue_spin_lock, glue_spin_unlock,
                          glue_spin_trylock, .flags = RWSTRESS_LOCK_SPINS);
RWSTRESS_KERNEL_PLUGIN(&upstream_qrwlock, &upstream_qspinlock)
