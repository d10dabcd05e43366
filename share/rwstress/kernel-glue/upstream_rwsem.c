/* Glue for the upstream kernel/locking/rwsem.c, compiled unchanged against
 * the kernel-compat layer (scripts/kernel-upstream.sh, rwstress kernel):
 * struct rw_semaphore with down_read/down_write, their trylocks, the ups and
 * downgrade_write as an rwstress plugin. Built twice by the script: with
 * CONFIG_RWSEM_SPIN_ON_OWNER (and osq_lock.c, as x86 distributions build
 * it), the lock is upstream-rwsem-spin; without, upstream-rwsem.
 *
 * One acquisition in --killable-every (4 by default) of each thread takes a
 * killable or interruptible entry point (down_write_killable;
 * down_read_killable and down_read_interruptible by turns): with the
 * signal injector (signal@before-sleep) the wait bails out with -EINTR
 * through the file's own out_nolock path, and the thread goes away as a
 * killed task would until the others have done an operation (so a waiter
 * out_nolock failed to wake stays asleep: a HANG), then tries again. Any
 * other return is a lock warning.
 *
 * Declared hand-off: readers and writers steal, but a waiter that has
 * waited RWSEM_WAIT_TIMEOUT sets RWSEM_FLAG_HANDOFF and is given the lock
 * once the holders inside leave (docs/checkers.md); the glue tells explore
 * whom the bit is for (handoff_waiter). */
#include <linux/rwsem.h>

#include "glue.h"

static void rwsem_init(struct rw_semaphore *sem) { init_rwsem(sem); }

/* rwsem.c has no down_write_interruptible: a writer's killable turns are
 * all down_write_killable. */
static void glue_down_write(struct rw_semaphore *sem) {
  GLUE_ACQUIRE(down_write(sem), down_write_killable(sem), down_write_killable(sem));
}

static void glue_down_read(struct rw_semaphore *sem) {
  GLUE_ACQUIRE(down_read(sem), down_read_killable(sem), down_read_interruptible(sem));
}

/* The idle check: the count back at 0 (no reader, writer, WAITERS or
 * HANDOFF), no writer named as owner (a reader-owned owner is left behind
 * as a hint: bit 0, RWSEM_READER_OWNED, set), the OSQ unlocked, no
 * waiter, wait_lock free. */
static const char *glue_rwsem_not_idle(void *l) {
  struct rw_semaphore *sem = l;
  const long count = atomic_long_read(&sem->count);
  const unsigned long owner = (unsigned long)atomic_long_read(&sem->owner);
  if (count != 0) return "count is not 0 (a reader, writer, WAITERS or HANDOFF bit left)";
  if (owner != 0 && !(owner & 1UL)) return "owner names a writer";
#ifdef CONFIG_RWSEM_SPIN_ON_OWNER
  if (osq_is_locked(&sem->osq)) return "the OSQ is held";
#endif
  if (!GLUE_NO_WAITERS(sem)) return "the wait list is not empty";
  if (raw_spin_is_locked(&sem->wait_lock)) return "wait_lock is held";
  return NULL;
}

/* Whom it owes the lock (the plugin ABI's handoff_waiter): with
 * RWSEM_FLAG_HANDOFF set in the count (1 << 2 in every series 6.1 .. 7.2),
 * the first waiter, if the bit was set for it (its handoff_set: a bit left
 * behind by a first waiter that was killed is owed to nobody, and any
 * writer may clear it). struct rwsem_waiter is rwsem.c's own; its shape in
 * every series: */
struct glue_rwsem_waiter {
  struct glue_waiter_start start;
  int type;
  unsigned long timeout;
  bool handoff_set;
};

static int glue_rwsem_handoff_waiter(void *l) {
  struct rw_semaphore *sem = l;
  if (!(GLUE_RAW(sem->count.counter) & (1L << 2))) return 0;
  const struct glue_rwsem_waiter *first = (const struct glue_rwsem_waiter *)glue_first_waiter(
      GLUE_RAW(sem->first_waiter), &sem->wait_list);
  if (!first || !GLUE_RAW(first->handoff_set)) return 0;
  const struct task_struct *task = GLUE_RAW(first->start.task);
  return task ? task->pid : 0;
}

/* rwstress kernel names it k6.18-rwsem whatever the configuration (its
 * table shows the configuration); the script builds both at once. */
#if defined(CONFIG_RWSEM_SPIN_ON_OWNER) && !defined(RWSTRESS_KERNEL_NAME_PREFIX)
#define UPSTREAM_RWSEM_NAME GLUE_NAME("rwsem-spin")
#else
#define UPSTREAM_RWSEM_NAME GLUE_NAME("rwsem")
#endif

RWSTRESS_KERNEL_RWSEM_OPS(upstream_rwsem, UPSTREAM_RWSEM_NAME, struct rw_semaphore, rwsem_init,
                          glue_down_read, up_read, glue_down_write, up_write, down_read_trylock,
                          down_write_trylock, downgrade_write,
                          .fairness = RWSTRESS_FAIRNESS_HANDOFF, .flags = RWSTRESS_LOCK_KILLABLE,
                          .not_idle = glue_rwsem_not_idle,
                          .handoff_waiter = glue_rwsem_handoff_waiter);
RWSTRESS_KERNEL_PLUGIN(&upstream_rwsem)
