/* Glue for the upstream kernel/locking/semaphore.c, compiled unchanged
 * against the kernel-compat layer (scripts/kernel-upstream.sh, rwstress
 * kernel): its struct semaphore, down, up and down_trylock as an rwstress
 * plugin. One down in --killable-every (4 by default) of each thread is
 * down_killable or down_interruptible by turns: with the signal injector
 * (signal@before-sleep) the wait bails out with -EINTR, and the thread goes
 * away as a killed task would until the others have done an operation,
 * then tries again.
 *
 * Declared task-fair: down() takes the count only while nobody waits, and
 * up() hands it to the first waiter in the FIFO list. */
#include <linux/semaphore.h>

#include "glue.h"

static void glue_down(struct semaphore *sem) {
  GLUE_ACQUIRE(down(sem), down_killable(sem), down_interruptible(sem));
}

RWSTRESS_KERNEL_SEMAPHORE_OPS(upstream_semaphore, GLUE_NAME("semaphore"), struct semaphore,
                              sema_init, glue_down, up, down_trylock,
                              .fairness = RWSTRESS_FAIRNESS_TASK_FAIR,
                              .flags = RWSTRESS_LOCK_KILLABLE);
RWSTRESS_KERNEL_PLUGIN(&upstream_semaphore)
