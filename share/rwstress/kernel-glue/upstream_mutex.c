/* Glue for the upstream kernel/locking/mutex.c, compiled unchanged against
 * the kernel-compat layer (scripts/kernel-upstream.sh, rwstress kernel):
 * struct mutex with mutex_lock, mutex_trylock and mutex_unlock as an
 * rwstress plugin. Built twice by the script: with
 * CONFIG_MUTEX_SPIN_ON_OWNER (and osq_lock.c, as x86 distributions build
 * it), the lock is upstream-mutex-spin; without, upstream-mutex.
 *
 * One acquisition in --killable-every (4 by default) of each thread is
 * mutex_lock_killable or mutex_lock_interruptible by turns: with the
 * signal injector (signal@before-sleep) the wait bails out with -EINTR
 * through the file's own error path, and the thread goes away as a killed
 * task would until the others have done an operation, then tries again.
 * mutex.c's ww_mutex entry points are compiled, not exercised.
 *
 * Declared hand-off: optimistic spinners and newcomers may steal, but a top
 * waiter woken for nothing sets MUTEX_FLAG_HANDOFF and the unlocker hands
 * it the lock, so no wait outlasts the bound (docs/checkers.md); the glue
 * tells explore whom the bit is for (handoff_waiter). */
#include <linux/mutex.h>

#include "glue.h"

static void glue_mutex_init(struct mutex *lock) { mutex_init(lock); }

static void glue_mutex_lock(struct mutex *lock) {
  GLUE_ACQUIRE(mutex_lock(lock), mutex_lock_killable(lock), mutex_lock_interruptible(lock));
}

/* The idle check: no owner and no flag (WAITERS, HANDOFF, PICKUP) left in
 * the owner word, the OSQ unlocked, no waiter, wait_lock free. */
static const char *glue_mutex_not_idle(void *l) {
  struct mutex *lock = l;
  if (atomic_long_read(&lock->owner) != 0) return "the owner word is not 0 (an owner or a flag left)";
#ifdef CONFIG_MUTEX_SPIN_ON_OWNER
  if (osq_is_locked(&lock->osq)) return "the OSQ is held";
#endif
  if (!GLUE_NO_WAITERS(lock)) return "the wait list is not empty";
  if (raw_spin_is_locked(&lock->wait_lock)) return "wait_lock is held";
  return NULL;
}

/* Whom it owes the lock (the plugin ABI's handoff_waiter): with
 * MUTEX_FLAG_HANDOFF set in the owner word (mutex.c's 0x02 in every series
 * 6.1 .. 7.2), the top waiter, which set it, and to which the next unlock
 * hands the lock. */
static int glue_mutex_handoff_waiter(void *l) {
  struct mutex *lock = l;
  if (!(GLUE_RAW(lock->owner.counter) & 0x02)) return 0;
  const struct glue_waiter_start *first =
      glue_first_waiter(GLUE_RAW(lock->first_waiter), &lock->wait_list);
  const struct task_struct *task = first ? GLUE_RAW(first->task) : NULL;
  return task ? task->pid : 0;
}

#if defined(CONFIG_MUTEX_SPIN_ON_OWNER) && !defined(RWSTRESS_KERNEL_NAME_PREFIX)
#define UPSTREAM_MUTEX_NAME GLUE_NAME("mutex-spin")
#else
#define UPSTREAM_MUTEX_NAME GLUE_NAME("mutex")
#endif

RWSTRESS_KERNEL_MUTEX_OPS(upstream_mutex, UPSTREAM_MUTEX_NAME, struct mutex, glue_mutex_init,
                          glue_mutex_lock, mutex_unlock, mutex_trylock,
                          .fairness = RWSTRESS_FAIRNESS_HANDOFF, .flags = RWSTRESS_LOCK_KILLABLE,
                          .not_idle = glue_mutex_not_idle,
                          .handoff_waiter = glue_mutex_handoff_waiter);
RWSTRESS_KERNEL_PLUGIN(&upstream_mutex)
