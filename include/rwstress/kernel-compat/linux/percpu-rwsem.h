/* The kernel-compat layer's <linux/percpu-rwsem.h>: struct
 * percpu_rw_semaphore and its reader fast paths, for the slow paths of
 * kernel/locking/percpu-rwsem.c (link that file).
 *
 * A reader runs with preemption disabled, which is an RCU read-side
 * section here as in the kernel: while the rcu_sync is idle (no writer for
 * a grace period) it only bumps its CPU's count; otherwise it goes to the
 * file's slow path. A writer's rcu_sync_enter() waits a grace period, so
 * every reader that saw the fast path open has counted itself by then. */
#ifndef RWSTRESS_LINUX_PERCPU_RWSEM_H
#define RWSTRESS_LINUX_PERCPU_RWSEM_H
#include <rwstress/kernel.h>
#include <linux/version.h>

struct percpu_rw_semaphore {
  struct rcu_sync rss;
  int __percpu *read_count; /* unsigned int in the kernel, which builds with -Wno-pointer-sign */
  struct rcuwait writer;
  wait_queue_head_t waiters;
  atomic_t block;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
  struct lockdep_map dep_map;
#endif
};

int __percpu_init_rwsem(struct percpu_rw_semaphore *sem, const char *name,
                        struct lock_class_key *key);
void percpu_free_rwsem(struct percpu_rw_semaphore *sem);
void percpu_down_write(struct percpu_rw_semaphore *sem);
void percpu_up_write(struct percpu_rw_semaphore *sem);
bool percpu_is_read_locked(struct percpu_rw_semaphore *sem);
/* The reader slow path; `freeze` (TASK_FREEZABLE sleeps) came with 6.16. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
bool __percpu_down_read(struct percpu_rw_semaphore *sem, bool try, bool freeze);
#define __RWSK_PERCPU_DOWN_READ(sem, try) __percpu_down_read((sem), (try), false)
#else
bool __percpu_down_read(struct percpu_rw_semaphore *sem, bool try);
#define __RWSK_PERCPU_DOWN_READ(sem, try) __percpu_down_read((sem), (try))
#endif
/* The reader's release slow path moved into the file in 7.x; where the file
 * has none, the header's own runs (weak: present or not, it links). */
void __percpu_up_read(struct percpu_rw_semaphore *sem) __attribute__((__weak__));

#define percpu_init_rwsem(sem)                                  \
  ({                                                            \
    static struct lock_class_key __rwsk_percpu_key;             \
    __percpu_init_rwsem((sem), #sem, &__rwsk_percpu_key);       \
  })

/* The reader fast paths fire fast-path between seeing rcu_sync idle and
 * raising the count: the window a writer's grace period must cover (a
 * grace period that does not wait for this preempt_disable() section lets
 * the writer sum the counts before the raise). */
static inline void percpu_down_read(struct percpu_rw_semaphore *sem) {
  might_sleep();
  preempt_disable();
  if (likely(rcu_sync_is_idle(&sem->rss))) {
    __rwsk_host()->at(RWSTRESS_KPOINT_FAST_PATH);
    this_cpu_inc(*sem->read_count);
  } else
    __RWSK_PERCPU_DOWN_READ(sem, false);
  preempt_enable();
}

static inline bool percpu_down_read_trylock(struct percpu_rw_semaphore *sem) {
  bool ret = true;
  preempt_disable();
  if (likely(rcu_sync_is_idle(&sem->rss))) {
    __rwsk_host()->at(RWSTRESS_KPOINT_FAST_PATH);
    this_cpu_inc(*sem->read_count);
  } else
    ret = __RWSK_PERCPU_DOWN_READ(sem, true);
  preempt_enable();
  return ret;
}

static inline void percpu_up_read(struct percpu_rw_semaphore *sem) {
  preempt_disable();
  if (likely(rcu_sync_is_idle(&sem->rss))) {
    this_cpu_dec(*sem->read_count);
  } else if (__percpu_up_read) {
    __percpu_up_read(sem);
  } else {
    smp_mb(); /* the read section before the count drops; pairs with the writer's check */
    this_cpu_dec(*sem->read_count);
    rcuwait_wake_up(&sem->writer);
  }
  preempt_enable();
}

#endif /* RWSTRESS_LINUX_PERCPU_RWSEM_H */
