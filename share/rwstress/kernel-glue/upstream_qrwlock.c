/* Glue for the upstream kernel/locking/qrwlock.c and qspinlock.c, compiled
 * unchanged against the kernel-compat layer (scripts/kernel-upstream.sh, rwstress kernel):
 * the queued rwlock, and the queued spinlock under it as a mutex.
 *
 * Both spin. The qrwlock is declared task-fair (waiters queue on the
 * qspinlock, and new readers wait behind a waiting writer), the qspinlock
 * unfair (the pending bit lets a newcomer in ahead of the queue), as the
 * in-tree qrwlock and qspinlock are. */
#include <linux/spinlock.h>

#include "glue.h"

static void qrwlock_init(struct qrwlock *lock) { *lock = (struct qrwlock)__ARCH_RW_LOCK_UNLOCKED; }
static void qspinlock_init(struct qspinlock *lock) {
  *lock = (struct qspinlock)__ARCH_SPIN_LOCK_UNLOCKED;
}

RWSTRESS_KERNEL_RWSEM_OPS(upstream_qrwlock, GLUE_NAME("qrwlock"), struct qrwlock, qrwlock_init,
                          queued_read_lock, queued_read_unlock, queued_write_lock,
                          queued_write_unlock, queued_read_trylock, queued_write_trylock, NULL,
                          .fairness = RWSTRESS_FAIRNESS_TASK_FAIR, .flags = RWSTRESS_LOCK_SPINS);
RWSTRESS_KERNEL_MUTEX_OPS(upstream_qspinlock, GLUE_NAME("qspinlock"), struct qspinlock,
                          qspinlock_init, queued_spin_lock, queued_spin_unlock,
                          queued_spin_trylock, .flags = RWSTRESS_LOCK_SPINS);
RWSTRESS_KERNEL_PLUGIN(&upstream_qrwlock, &upstream_qspinlock)
