/* Glue for the upstream kernel/locking/semaphore.c, compiled unchanged
 * against the kernel-compat layer (scripts/kernel-upstream.sh, rwstress kernel): its
 * struct semaphore, down, up and down_trylock as an rwstress plugin. */
#include <linux/semaphore.h>

#include "glue_name.h"

RWSTRESS_KERNEL_SEMAPHORE_OPS(upstream_semaphore, GLUE_NAME("semaphore"), struct semaphore,
                              sema_init, down, up, down_trylock);
RWSTRESS_KERNEL_PLUGIN(&upstream_semaphore)
