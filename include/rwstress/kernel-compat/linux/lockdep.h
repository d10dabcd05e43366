/* The kernel-compat layer's <linux/lockdep.h>: lockdep: held-by-me checks for spin locks, no-ops for the rest.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_LOCKDEP_H
#define RWSTRESS_LAYER_LINUX_LOCKDEP_H

/* lockdep: held-by-me for spin locks; nothing for other lock types. */
static inline int __rwsk_raw_held(const raw_spinlock_t *l) { return READ_ONCE(l->owner) == current; }
#define __rwsk_held(l)                                                                   \
  _Generic((l), raw_spinlock_t *: __rwsk_raw_held((const raw_spinlock_t *)(const void *)(l)), \
           const raw_spinlock_t *: __rwsk_raw_held((const raw_spinlock_t *)(const void *)(l)), \
           spinlock_t *: __rwsk_raw_held(&((const spinlock_t *)(const void *)(l))->rlock),   \
           const spinlock_t *: __rwsk_raw_held(&((const spinlock_t *)(const void *)(l))->rlock), \
           default: 1)
#define lockdep_assert_held(l)                                                           \
  do {                                                                                   \
    if (unlikely(!__rwsk_held(l)))                                                       \
      __rwsk_warn(__FILE__, __LINE__, "lockdep_assert_held(" #l ") and it is not held"); \
  } while (0)
#define lockdep_assert_not_held(l)                                                       \
  do {                                                                                   \
    if (unlikely(_Generic((l), raw_spinlock_t *: 1, spinlock_t *: 1, default: 0) &&      \
                 __rwsk_held(l)))                                                        \
      __rwsk_warn(__FILE__, __LINE__, "lockdep_assert_not_held(" #l ") and it is held"); \
  } while (0)
#define lockdep_assert_held_write(l) ((void)0)
#define lockdep_assert_held_read(l) ((void)0)
#define lockdep_assert_irqs_disabled() ((void)0)
#define lockdep_assert_irqs_enabled() ((void)0)
#define lockdep_assert_preemption_disabled() ((void)0)
#define lockdep_init_map(...) ((void)0)
/* The annotations of sleeping locks, as the kernel spells them without
 * CONFIG_DEBUG_LOCK_ALLOC: the arguments (&sem->dep_map among them, a
 * field the layer's locks do not have) are never evaluated. */
#define lockdep_init_map_wait(...) do { } while (0)
#define lockdep_set_class(...) do { } while (0)
#define lock_acquire(...) do { } while (0)
#define lock_release(...) do { } while (0)
#define lock_acquired(...) do { } while (0)
#define lock_contended(...) do { } while (0)
#define lock_downgrade(...) do { } while (0)
#define lock_acquire_exclusive(...) do { } while (0)
#define lock_acquire_shared(...) do { } while (0)
#define lock_acquire_shared_recursive(...) do { } while (0)
#define rwsem_acquire(...) do { } while (0)
#define rwsem_acquire_nest(...) do { } while (0)
#define rwsem_acquire_read(...) do { } while (0)
#define rwsem_release(...) do { } while (0)
#define mutex_acquire(...) do { } while (0)
#define mutex_acquire_nest(...) do { } while (0)
#define mutex_release(...) do { } while (0)
#define rwlock_acquire(...) do { } while (0)
#define rwlock_release(...) do { } while (0)
#define spin_acquire(...) do { } while (0)
#define spin_release(...) do { } while (0)
#define LOCK_CONTENDED(_lock, try, lock) lock(_lock)
#define LOCK_CONTENDED_RETURN(_lock, try, lock) lock(_lock)
#define LD_WAIT_INV 0
#define LD_WAIT_FREE 1
#define LD_WAIT_SPIN 2
#define LD_WAIT_CONFIG LD_WAIT_SPIN
#define LD_WAIT_SLEEP 3
#define lockdep_is_held(l) __rwsk_held(l)
#define lockdep_assert_held_once(l) lockdep_assert_held(l)
#define lockdep_assert_none_held_once() ((void)0)
#define SINGLE_DEPTH_NESTING 1
/* _nested: a lock of a class this thread already holds, on purpose (the
 * lock-order checker keys it as a class of its own, as lockdep does). */
#define raw_spin_lock_nested(l, subclass) \
  __rwsk_raw_spin_lock((l), (int)(subclass), __FILE__, __LINE__)
#define raw_spin_lock_irqsave_nested(l, flags, subclass) \
  do {                                                  \
    local_irq_save(flags);                              \
    raw_spin_lock_nested(l, subclass);                  \
  } while (0)
#define spin_lock_nested(l, subclass) raw_spin_lock_nested(&(l)->rlock, subclass)
#define lockdep_recursing(tsk) 0
#define lockdep_pin_lock(l) ((void)0)
#define lockdep_unpin_lock(l, c) ((void)0)
#define debug_check_no_locks_freed(a, n) ((void)0)
struct lock_class_key {
  char unused;
};
struct lockdep_map {
  char unused;
};

#endif /* RWSTRESS_LAYER_LINUX_LOCKDEP_H */
