/* The kernel-compat layer's <linux/rwsem.h>: struct rw_semaphore and the
 * API that kernel/locking/rwsem.c implements (link that file). */
#ifndef RWSTRESS_LINUX_RWSEM_H
#define RWSTRESS_LINUX_RWSEM_H
#include <rwstress/kernel.h>
#include <linux/osq_lock.h>

struct rwsem_waiter;

/* The fields of every recent kernel's rwsem.c at once: the wait list (up
 * to 7.1) and the first waiter (its replacement from 7.2); a file uses its
 * own and leaves the other as initialised. The spin queue is there with
 * CONFIG_RWSEM_SPIN_ON_OWNER, as in the kernel. */
struct rw_semaphore {
  atomic_long_t count;
  atomic_long_t owner;
#ifdef CONFIG_RWSEM_SPIN_ON_OWNER
  struct optimistic_spin_queue osq;
#endif
  raw_spinlock_t wait_lock;
  struct list_head wait_list;
  struct rwsem_waiter *first_waiter;
#ifdef CONFIG_DEBUG_RWSEMS
  void *magic;
#endif
};

#define RWSEM_UNLOCKED_VALUE 0UL
#define RWSEM_WRITER_LOCKED (1UL << 0)
#define __RWSEM_COUNT_INIT(name) .count = ATOMIC_LONG_INIT(RWSEM_UNLOCKED_VALUE)
#ifdef CONFIG_RWSEM_SPIN_ON_OWNER
#define __RWSEM_OPT_INIT(lockname) .osq = OSQ_LOCK_UNLOCKED,
#else
#define __RWSEM_OPT_INIT(lockname)
#endif
#ifdef CONFIG_DEBUG_RWSEMS
#define __RWSEM_DEBUG_INIT(lockname) .magic = &lockname,
#else
#define __RWSEM_DEBUG_INIT(lockname)
#endif
#define __RWSEM_INITIALIZER(name)                                                          \
  {                                                                                        \
    __RWSEM_COUNT_INIT(name), .owner = ATOMIC_LONG_INIT(0), __RWSEM_OPT_INIT(name)         \
    .wait_lock = __RAW_SPIN_LOCK_UNLOCKED(name.wait_lock),                                 \
    .wait_list = LIST_HEAD_INIT((name).wait_list), .first_waiter = NULL,                   \
    __RWSEM_DEBUG_INIT(name)                                                               \
  }
#define DECLARE_RWSEM(name) struct rw_semaphore name = __RWSEM_INITIALIZER(name)

extern void __init_rwsem(struct rw_semaphore *sem, const char *name, struct lock_class_key *key);
#define init_rwsem(sem)                          \
  do {                                           \
    static struct lock_class_key __key;          \
    __init_rwsem((sem), #sem, &__key);           \
  } while (0)

static inline int rwsem_is_locked(struct rw_semaphore *sem) {
  return atomic_long_read(&sem->count) != RWSEM_UNLOCKED_VALUE;
}
static inline void rwsem_assert_held_nolockdep(const struct rw_semaphore *sem) {
  WARN_ON(atomic_long_read(&sem->count) == RWSEM_UNLOCKED_VALUE);
}
static inline void rwsem_assert_held_write_nolockdep(const struct rw_semaphore *sem) {
  WARN_ON(!(atomic_long_read(&sem->count) & RWSEM_WRITER_LOCKED));
}
#define rwsem_assert_held(sem) rwsem_assert_held_nolockdep(sem)
#define rwsem_assert_held_write(sem) rwsem_assert_held_write_nolockdep(sem)
/* Whichever of the two wait fields the file keeps (an __init_rwsem that
 * does not know the list leaves it zeroed: next == NULL). */
static inline bool rwsem_is_contended(struct rw_semaphore *sem) {
  if (READ_ONCE(sem->first_waiter)) return true;
  struct list_head *next = READ_ONCE(sem->wait_list.next);
  return next != NULL && next != &sem->wait_list;
}

extern void down_read(struct rw_semaphore *sem);
extern int __must_check down_read_interruptible(struct rw_semaphore *sem);
extern int __must_check down_read_killable(struct rw_semaphore *sem);
extern int down_read_trylock(struct rw_semaphore *sem);
extern void down_write(struct rw_semaphore *sem);
extern int __must_check down_write_killable(struct rw_semaphore *sem);
extern int down_write_trylock(struct rw_semaphore *sem);
extern void up_read(struct rw_semaphore *sem);
extern void up_write(struct rw_semaphore *sem);
extern void downgrade_write(struct rw_semaphore *sem);
extern void down_read_non_owner(struct rw_semaphore *sem);
extern void up_read_non_owner(struct rw_semaphore *sem);
/* Without CONFIG_DEBUG_LOCK_ALLOC, as rwsem.c's own #else branch wants. */
#define down_read_nested(sem, subclass) down_read(sem)
#define down_read_killable_nested(sem, subclass) down_read_killable(sem)
#define down_write_nest_lock(sem, nest_lock) down_write(sem)
#define down_write_nested(sem, subclass) down_write(sem)
#define down_write_killable_nested(sem, subclass) down_write_killable(sem)
#endif
