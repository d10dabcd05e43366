/* Glue for the upstream kernel/locking/percpu-rwsem.c, compiled unchanged
 * against the kernel-compat layer (scripts/kernel-upstream.sh, rwstress
 * kernel): struct percpu_rw_semaphore, the layer's reader fast paths
 * (<linux/percpu-rwsem.h>) over the file's slow paths, as an rwstress
 * plugin. Its readers' fast path is correct only with real RCU: the
 * layer's preempt_disable() is a read-side section of the host's liburcu,
 * and the file's rcu_sync_enter() waits a grace period for it.
 *
 * Each lock object owns per-CPU counts and, after a writer, an RCU
 * callback: destroy (percpu_free_rwsem) waits for the callback and frees
 * the counts. No write trylock and no downgrade: the kernel has neither.
 * Declared unfair, as the in-tree percpu-rwsem is: a writer that finds the
 * lock free takes it ahead of the queued waiters.
 *
 * A read hold may be released by an interrupt: sb_start_write() takes
 * one in task context and an AIO completion's file_end_write() drops it
 * in interrupt context, on whatever CPU the completion arrives (the
 * reason percpu-rwsem's counts must be interrupt-safe). Under explore
 * --interrupts every read release here is such a completion
 * (__rwsk_in_interrupt, <linux/preempt.h>); elsewhere it runs at once. */
#include <linux/percpu-rwsem.h>

#include "glue.h"

static void glue_init(struct percpu_rw_semaphore *sem) {
  if (percpu_init_rwsem(sem)) WARN(1, "percpu_init_rwsem: no memory for the per-CPU counts");
}

static int glue_read_trylock(struct percpu_rw_semaphore *sem) { return percpu_down_read_trylock(sem); }

static void glue_complete_read(void *sem) { percpu_up_read((struct percpu_rw_semaphore *)sem); }

static void glue_up_read(struct percpu_rw_semaphore *sem) {
  __rwsk_in_interrupt(glue_complete_read, sem);
}

static void glue_destroy(void *sem) { percpu_free_rwsem((struct percpu_rw_semaphore *)sem); }

RWSTRESS_KERNEL_RWSEM_OPS(upstream_percpu_rwsem, GLUE_NAME("percpu-rwsem"),
                          struct percpu_rw_semaphore, glue_init, percpu_down_read,
                          glue_up_read, percpu_down_write, percpu_up_write,
                          glue_read_trylock, NULL, NULL, .destroy = glue_destroy);
RWSTRESS_KERNEL_PLUGIN(&upstream_percpu_rwsem)
