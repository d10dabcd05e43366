/* The kernel-compat layer's <linux/mutex.h>: struct mutex and the API that
 * kernel/locking/mutex.c implements (link that file, with osq_lock.c for
 * CONFIG_MUTEX_SPIN_ON_OWNER). */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LINUX_MUTEX_H
#define RWSTRESS_LINUX_MUTEX_H
#include <linux/osq_lock.h>

struct mutex_waiter;

/* The fields of every recent kernel's mutex.c at once: the wait list (up
 * to 7.1) and the first waiter (its replacement from 7.2); a file uses its
 * own and leaves the other as initialised. */
struct mutex {
  atomic_long_t owner;
  raw_spinlock_t wait_lock;
#ifdef CONFIG_MUTEX_SPIN_ON_OWNER
  struct optimistic_spin_queue osq;
#endif
  struct list_head wait_list;
  struct mutex_waiter *first_waiter;
#ifdef CONFIG_DEBUG_MUTEXES
  void *magic;
#endif
};

#ifdef CONFIG_MUTEX_SPIN_ON_OWNER
#define __MUTEX_OPT_INIT(lockname) .osq = OSQ_LOCK_UNLOCKED,
#else
#define __MUTEX_OPT_INIT(lockname)
#endif
#define __MUTEX_INITIALIZER(lockname)                                                    \
  {                                                                                      \
    .owner = ATOMIC_LONG_INIT(0), .wait_lock = __RAW_SPIN_LOCK_UNLOCKED(lockname.wait_lock), \
    __MUTEX_OPT_INIT(lockname) .wait_list = LIST_HEAD_INIT(lockname.wait_list),          \
    .first_waiter = NULL                                                                 \
  }
#define DEFINE_MUTEX(mutexname) struct mutex mutexname = __MUTEX_INITIALIZER(mutexname)

/* mutex.c defines __mutex_init up to 6.x and mutex_init_generic (and
 * mutex_init_lockdep) from 7.x: both are declared weak, and mutex_init
 * calls the one the linked file defines. */
extern void __mutex_init(struct mutex *lock, const char *name, struct lock_class_key *key)
    __attribute__((__weak__));
extern void mutex_init_generic(struct mutex *lock) __attribute__((__weak__));
static inline void __rwsk_mutex_init(struct mutex *lock, const char *name,
                                     struct lock_class_key *key) {
  if (__mutex_init)
    __mutex_init(lock, name, key);
  else
    mutex_init_generic(lock);
}
#define mutex_init(mutex)                            \
  do {                                               \
    static struct lock_class_key __key;              \
    __rwsk_mutex_init((mutex), #mutex, &__key);      \
  } while (0)
#define mutex_init_with_key(mutex, key) __rwsk_mutex_init((mutex), #mutex, (key))
#define mutex_destroy(m) ((void)(m))

extern bool mutex_is_locked(struct mutex *lock);
extern void mutex_lock(struct mutex *lock);
extern int __must_check mutex_lock_interruptible(struct mutex *lock);
extern int __must_check mutex_lock_killable(struct mutex *lock);
extern void mutex_lock_io(struct mutex *lock);
extern int mutex_trylock(struct mutex *lock);
extern void mutex_unlock(struct mutex *lock);
extern int atomic_dec_and_mutex_lock(atomic_t *cnt, struct mutex *lock);
/* Without CONFIG_DEBUG_LOCK_ALLOC, as mutex.c's own #else branch wants. */
#define mutex_lock_nested(lock, subclass) mutex_lock(lock)
#define mutex_lock_interruptible_nested(lock, subclass) mutex_lock_interruptible(lock)
#define mutex_lock_killable_nested(lock, subclass) mutex_lock_killable(lock)
#define mutex_lock_nest_lock(lock, nest_lock) mutex_lock(lock)
#define mutex_lock_io_nested(lock, subclass) mutex_lock_io(lock)
#define mutex_trylock_nest_lock(lock, nest_lock) mutex_trylock(lock)

DEFINE_GUARD(mutex, struct mutex *, mutex_lock(_T), mutex_unlock(_T))

/* task->blocked_on, with the kernel's checks (include/linux/sched.h): up to
 * 6.19 serialised by the mutex's wait_lock, from 7.0 by the task's
 * blocked_lock. */
#include <linux/version.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
static inline struct mutex *__get_task_blocked_on(struct task_struct *p) {
  struct mutex *m = p->blocked_on;
  if (m) lockdep_assert_held_once(&m->wait_lock);
  return m;
}
static inline void __set_task_blocked_on(struct task_struct *p, struct mutex *m) {
  struct mutex *blocked_on = READ_ONCE(p->blocked_on);
  WARN_ON_ONCE(!m);
  WARN_ON_ONCE(p != current); /* a task sets only itself as blocked */
  lockdep_assert_held_once(&m->wait_lock);
  WARN_ON_ONCE(blocked_on && blocked_on != m);
  WRITE_ONCE(p->blocked_on, m);
}
static inline void set_task_blocked_on(struct task_struct *p, struct mutex *m) {
  guard(raw_spinlock_irqsave)(&m->wait_lock);
  __set_task_blocked_on(p, m);
}
static inline void __clear_task_blocked_on(struct task_struct *p, struct mutex *m) {
  if (m) {
    struct mutex *blocked_on = READ_ONCE(p->blocked_on);
    lockdep_assert_held_once(&m->wait_lock);
    WARN_ON_ONCE(blocked_on && blocked_on != m);
  }
  WRITE_ONCE(p->blocked_on, NULL);
}
static inline void clear_task_blocked_on(struct task_struct *p, struct mutex *m) {
  guard(raw_spinlock_irqsave)(&m->wait_lock);
  __clear_task_blocked_on(p, m);
}
#else
static inline struct mutex *__get_task_blocked_on(struct task_struct *p) {
  lockdep_assert_held_once(&p->blocked_lock);
  return p->blocked_on;
}
static inline void __set_task_blocked_on(struct task_struct *p, struct mutex *m) {
  WARN_ON_ONCE(!m);
  WARN_ON_ONCE(p != current); /* a task sets only itself as blocked */
  lockdep_assert_held_once(&p->blocked_lock);
  WARN_ON_ONCE(p->blocked_on && p->blocked_on != m);
  p->blocked_on = m;
}
static inline void __clear_task_blocked_on(struct task_struct *p, struct mutex *m) {
  lockdep_assert_held_once(&p->blocked_lock);
  WARN_ON_ONCE(m && p->blocked_on && p->blocked_on != m);
  p->blocked_on = NULL;
}
static inline void clear_task_blocked_on(struct task_struct *p, struct mutex *m) {
  guard(raw_spinlock_irqsave)(&p->blocked_lock);
  __clear_task_blocked_on(p, m);
}
#endif
#endif
