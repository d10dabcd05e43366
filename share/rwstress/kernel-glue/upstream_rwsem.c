/* Glue for the upstream kernel/locking/rwsem.c, compiled unchanged against
 * the kernel-compat layer (scripts/kernel-upstream.sh, rwstress kernel): struct
 * rw_semaphore with down_read/down_write, their trylocks, the ups and
 * downgrade_write as an rwstress plugin. Built twice: with
 * CONFIG_RWSEM_SPIN_ON_OWNER (and osq_lock.c, as x86 distributions build
 * it), the lock is upstream-rwsem-spin; without, upstream-rwsem. */
#include <linux/rwsem.h>

#include "glue_name.h"

static void rwsem_init(struct rw_semaphore *sem) { init_rwsem(sem); }

/* rwstress kernel names it k6.18-rwsem whatever the configuration (its
 * table shows the configuration); the script builds both at once. */
#if defined(CONFIG_RWSEM_SPIN_ON_OWNER) && !defined(RWSTRESS_KERNEL_NAME_PREFIX)
#define UPSTREAM_RWSEM_NAME GLUE_NAME("rwsem-spin")
#else
#define UPSTREAM_RWSEM_NAME GLUE_NAME("rwsem")
#endif

RWSTRESS_KERNEL_RWSEM_OPS(upstream_rwsem, UPSTREAM_RWSEM_NAME, struct rw_semaphore, rwsem_init,
                          down_read, up_read, down_write, up_write, down_read_trylock,
                          down_write_trylock, downgrade_write);
RWSTRESS_KERNEL_PLUGIN(&upstream_rwsem)
