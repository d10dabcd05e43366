/* Glue for the upstream kernel/locking/semaphore.c, compiled unchanged
 * against the kernel-compat layer (scripts/kernel-upstream.sh, rwstress
 * kernel): its struct semaphore, down, up and down_trylock as an rwstress
 * plugin. One down in --killable-every (4 by default) of each thread is
 * down_killable, down_interruptible or down_timeout by turns (under
 * explore one in two): with the signal injector
 * (signal@before-sleep) the wait bails out with -EINTR, and the thread goes
 * away as a killed task would until the others have done an operation,
 * then tries again.
 *
 * Declared task-fair: down() takes the count only while nobody waits, and
 * up() hands it to the first waiter in the FIFO list.
 *
 * up() may be called from interrupt context (a driver's completion:
 * semaphore.c's own comment says so), which is why semaphore.c
 * takes its spinlock with interrupts off everywhere. Under explore
 * --interrupts every second up() of a thread is made in an interrupt
 * handler (__rwsk_in_interrupt, <linux/preempt.h>): the lock-order
 * checker then sees sem->lock taken in a handler, and a down() that took
 * it with interrupts on would be lockdep's inconsistent lock state. */
#include <linux/semaphore.h>

#include "glue.h"

/* down_timeout, retried after -ETIME as a caller that must have the
 * semaphore would. A second's timeout: a timed run's waits end long before
 * it (a shorter one would send a waiter to the back of the queue again and
 * again on an oversubscribed machine); under explore its expiry is the
 * schedule's choice (--expiries), at any step, the one between up() taking
 * the waiter off the list and granting it included. */
static int glue_down_timeout(struct semaphore *sem) {
  while (down_timeout(sem, HZ) == -ETIME) {
  }
  return 0;
}

/* The interruptible turns alternate with down_timeout, so that every
 * entry point the file has is drawn. */
static void glue_down(struct semaphore *sem) {
  static __thread unsigned turn;
  GLUE_ACQUIRE(down(sem), down_killable(sem),
               (++turn & 1) ? down_interruptible(sem) : glue_down_timeout(sem));
}

/* The idle check: no waiter, the spinlock free (the count itself is the
 * after-run unit count's to judge). */
static const char *glue_semaphore_not_idle(void *l) {
  struct semaphore *sem = l;
  if (!GLUE_NO_WAITERS(sem)) return "the wait list is not empty";
  if (raw_spin_is_locked(&sem->lock)) return "its spinlock is held";
  return NULL;
}

static void glue_irq_up(void *sem) { up((struct semaphore *)sem); }

static void glue_up(struct semaphore *sem) { GLUE_EVERY_SECOND_IN_INTERRUPT(glue_irq_up, sem); }

RWSTRESS_KERNEL_SEMAPHORE_OPS(upstream_semaphore, GLUE_NAME("semaphore"), struct semaphore,
                              sema_init, glue_down, glue_up, down_trylock,
                              .fairness = RWSTRESS_FAIRNESS_TASK_FAIR,
                              .flags = RWSTRESS_LOCK_KILLABLE, .not_idle = glue_semaphore_not_idle);
RWSTRESS_KERNEL_PLUGIN(&upstream_semaphore)
