/* Glue for the upstream kernel/locking/semaphore.c, compiled unchanged
 * against the kernel-compat layer (scripts/kernel-upstream.sh, rwstress
 * kernel): its struct semaphore, down, up and down_trylock as an rwstress
 * plugin. One down in four of each thread is down_killable or
 * down_interruptible by turns: with the signal injector
 * (signal@before-sleep) the wait bails out with -EINTR, and the thread,
 * having handled its signal, tries again. */
#include <linux/semaphore.h>

#include "glue_name.h"

static __thread unsigned glue_downs;

static void glue_down(struct semaphore *sem) {
  const unsigned n = ++glue_downs;
  int ret;
  if (n % 4 != 0) {
    down(sem);
    return;
  }
  while ((ret = n % 8 == 0 ? down_killable(sem) : down_interruptible(sem)) != 0) {
    if (ret != -EINTR) WARN(1, "down_killable/interruptible returned %d, not 0 or -EINTR", ret);
    rwstress_kernel_signal_handled();
  }
}

RWSTRESS_KERNEL_SEMAPHORE_OPS(upstream_semaphore, GLUE_NAME("semaphore"), struct semaphore,
                              sema_init, glue_down, up, down_trylock);
RWSTRESS_KERNEL_PLUGIN(&upstream_semaphore)
