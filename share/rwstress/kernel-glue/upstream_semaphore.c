/* Glue for the upstream kernel/locking/semaphore.c, compiled unchanged
 * against the kernel-compat layer (scripts/kernel-upstream.sh, rwstress
 * kernel): its struct semaphore, down, up and down_trylock as an rwstress
 * plugin. One down in four of each thread is down_killable or
 * down_interruptible by turns: with the signal injector
 * (signal@before-sleep) the wait bails out with -EINTR, and the thread,
 * having handled its signal, tries again. */
#include <linux/semaphore.h>

#include "glue.h"

static __thread unsigned glue_downs;

static void glue_down(struct semaphore *sem) {
  const unsigned n = ++glue_downs;
  if (n % 8 == 0)
    GLUE_UNTIL_ACQUIRED(down_killable(sem));
  else if (n % 8 == 4)
    GLUE_UNTIL_ACQUIRED(down_interruptible(sem));
  else
    down(sem);
}

RWSTRESS_KERNEL_SEMAPHORE_OPS(upstream_semaphore, GLUE_NAME("semaphore"), struct semaphore,
                              sema_init, glue_down, up, down_trylock);
RWSTRESS_KERNEL_PLUGIN(&upstream_semaphore)
