/* Glue for the upstream kernel/locking/semaphore.c, compiled unchanged
 * against the kernel-compat layer (scripts/kernel-upstream.sh): its
 * struct semaphore, down, up and down_trylock as an rwstress plugin. */
#include <linux/semaphore.h>

RWSTRESS_KERNEL_SEMAPHORE_OPS(upstream_semaphore, "upstream-semaphore", struct semaphore,
                              sema_init, down, up, down_trylock);
RWSTRESS_KERNEL_PLUGIN(&upstream_semaphore)
