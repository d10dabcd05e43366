/* The kernel-compat layer's <linux/spinlock.h>: spin locks (raw_spinlock_t, spinlock_t, rwlock_t) and their guards.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_SPINLOCK_H
#define RWSTRESS_LAYER_LINUX_SPINLOCK_H

/* ---- Spin locks -------------------------------------------------------- */

/* raw_spinlock_t: test-and-set, owner recorded (the checks above use it),
 * and its lock class (kernel_host.h): the lock-order checker's key, the
 * init site's text as lockdep names it ("&sem->wait_lock") with the file
 * and line that make it one site's. */
typedef struct raw_spinlock raw_spinlock_t; /* kernel_host.h: { locked, owner, lock_class } */
#define __rwsk_lock_class(what) what "@" __FILE__ ":" __rwsk_str(__LINE__)
#define __rwsk_raw_spin_unlocked_as(lock_class) { 0, NULL, (lock_class) }
#define __RAW_SPIN_LOCK_UNLOCKED(name) __rwsk_raw_spin_unlocked_as(__rwsk_lock_class(#name))
#define __RAW_SPIN_LOCK_INITIALIZER(name) __RAW_SPIN_LOCK_UNLOCKED(name)
#define DEFINE_RAW_SPINLOCK(name) raw_spinlock_t name = __RAW_SPIN_LOCK_UNLOCKED(name)
#define raw_spin_lock_init(l) \
  (*(l) = (raw_spinlock_t)__rwsk_raw_spin_unlocked_as(__rwsk_lock_class(#l)))

/* The explore build tells the lock-order checker the context a lock was
 * taken in (lockdep's interrupt-state rule: kernel_host.h, ABI 6); no
 * interrupt arrives in the other build, where there is nothing to tell. */
#ifdef RWSTRESS_KERNEL_EXPLORE
#define __rwsk_lock_irq_state(l, file, line) \
  __rwsk_host()->lock_irq_state((l), in_interrupt(), !irqs_disabled(), (file), (line))
#else
#define __rwsk_lock_irq_state(l, file, line) ((void)0)
#endif

static inline void __rwsk_spin_acquired(raw_spinlock_t *l) {
  struct task_struct *me = current;
  WRITE_ONCE(l->owner, me);
  me->spin_depth++;
}
/* raw_spin_lock(l), raw_spin_lock_nested(l, subclass): the lock-order
 * checker hears of it before the wait (a cycle is reported before it can
 * deadlock), with the caller's file and line. */
static inline void __rwsk_raw_spin_lock(raw_spinlock_t *l, int subclass, const char *file,
                                        int line) {
  if (__rwsk_lock_order_on()) {
    __rwsk_host()->lock_acquire(l, l->lock_class, subclass, 0, file, line);
    __rwsk_lock_irq_state(l, file, line);
  }
  __rwsk_preempt_hold(1); /* spin_lock() disables preemption, then spins */
  while (unlikely(__rwsk_XP(&l->locked, "raw_spin_lock", __rwsk_op_xchg, 1, __ATOMIC_ACQUIRE))) {
    while (__rwsk_XP(&l->locked, "raw_spin_lock: wait", __rwsk_op_load, __ATOMIC_RELAXED))
      cpu_relax();
  }
  __rwsk_spin_acquired(l);
}
#define raw_spin_lock(l) __rwsk_raw_spin_lock((l), 0, __FILE__, __LINE__)
static inline int __rwsk_raw_spin_trylock(raw_spinlock_t *l, const char *file, int line) {
  if (__rwsk_XP(&l->locked, "raw_spin_trylock", __rwsk_op_load, __ATOMIC_RELAXED) ||
      __rwsk_XP(&l->locked, "raw_spin_trylock", __rwsk_op_xchg, 1, __ATOMIC_ACQUIRE))
    return 0;
  if (__rwsk_lock_order_on()) {
    __rwsk_host()->lock_acquire(l, l->lock_class, 0, 1, file, line);
    __rwsk_lock_irq_state(l, file, line);
  }
  __rwsk_preempt_hold(1);
  __rwsk_spin_acquired(l);
  return 1;
}
#define raw_spin_trylock(l) __rwsk_raw_spin_trylock((l), __FILE__, __LINE__)
static inline void __rwsk_raw_spin_unlock(raw_spinlock_t *l, const char *file, int line) {
  struct task_struct *me = current;
  if (unlikely(READ_ONCE(l->owner) != me))
    __rwsk_warn(file, line, "raw_spin_unlock() of a spin lock this thread does not hold");
  WRITE_ONCE(l->owner, NULL);
  me->spin_depth--;
  if (__rwsk_lock_order_on()) __rwsk_host()->lock_release(l);
  __rwsk_XPV(&l->locked, "raw_spin_unlock", __rwsk_op_store, 0, __ATOMIC_RELEASE);
  __rwsk_preempt_hold(-1);
  /* wait-unlock: what was decided under the lock is not yet acted on (a
   * waiter about to check for a signal, a releaser about to wake). */
  __rwsk_host()->at(RWSTRESS_KPOINT_WAIT_UNLOCK);
}
#define raw_spin_unlock(l) __rwsk_raw_spin_unlock((l), __FILE__, __LINE__)
#define raw_spin_is_locked(l) \
  (__rwsk_XP(&(l)->locked, "raw_spin_is_locked", __rwsk_op_load, __ATOMIC_RELAXED) != 0)
#define raw_spin_lock_irq(l) \
  do {                       \
    local_irq_disable();     \
    raw_spin_lock(l);        \
  } while (0)
#define raw_spin_unlock_irq(l) \
  do {                         \
    raw_spin_unlock(l);        \
    local_irq_enable();        \
  } while (0)
#define raw_spin_lock_bh(l) raw_spin_lock(l)
#define raw_spin_unlock_bh(l) raw_spin_unlock(l)
#define raw_spin_lock_irqsave(l, flags) \
  do {                                  \
    local_irq_save(flags);              \
    raw_spin_lock(l);                   \
  } while (0)
#define raw_spin_unlock_irqrestore(l, flags) \
  do {                                       \
    raw_spin_unlock(l);                      \
    local_irq_restore(flags);                \
  } while (0)
#define raw_spin_trylock_irqsave(l, flags)                         \
  __extension__({                                                  \
    local_irq_save(flags);                                         \
    int __rwsk_took = raw_spin_trylock(l);                         \
    if (!__rwsk_took) local_irq_restore(flags);                    \
    __rwsk_took;                                                   \
  })

typedef struct spinlock {
  struct raw_spinlock rlock;
} spinlock_t;
#define __SPIN_LOCK_UNLOCKED(name) { __RAW_SPIN_LOCK_UNLOCKED(name.rlock) }
#define DEFINE_SPINLOCK(name) spinlock_t name = __SPIN_LOCK_UNLOCKED(name)
#define spin_lock_init(l) \
  ((l)->rlock = (raw_spinlock_t)__rwsk_raw_spin_unlocked_as(__rwsk_lock_class(#l)))
#define spin_lock(l) raw_spin_lock(&(l)->rlock)
#define spin_unlock(l) raw_spin_unlock(&(l)->rlock)
#define spin_trylock(l) raw_spin_trylock(&(l)->rlock)
#define spin_is_locked(l) raw_spin_is_locked(&(l)->rlock)
#define spin_lock_irq(l) raw_spin_lock_irq(&(l)->rlock)
#define spin_unlock_irq(l) raw_spin_unlock_irq(&(l)->rlock)
#define spin_lock_bh(l) spin_lock(l)
#define spin_unlock_bh(l) spin_unlock(l)
#define spin_lock_irqsave(l, flags) raw_spin_lock_irqsave(&(l)->rlock, flags)
#define spin_unlock_irqrestore(l, flags) raw_spin_unlock_irqrestore(&(l)->rlock, flags)

#include <linux/lockdep.h>

/* ---- Guards over the locks above (linux/cleanup.h) ---------------------- */

#include <linux/cleanup.h>
DEFINE_LOCK_GUARD_1(raw_spinlock, raw_spinlock_t, raw_spin_lock(_T->lock), raw_spin_unlock(_T->lock))
DEFINE_LOCK_GUARD_1_COND(raw_spinlock, _try, raw_spin_trylock(_T->lock))
DEFINE_LOCK_GUARD_1(raw_spinlock_irq, raw_spinlock_t, raw_spin_lock_irq(_T->lock),
                    raw_spin_unlock_irq(_T->lock))
DEFINE_LOCK_GUARD_1(raw_spinlock_irqsave, raw_spinlock_t,
                    raw_spin_lock_irqsave(_T->lock, _T->flags),
                    raw_spin_unlock_irqrestore(_T->lock, _T->flags), unsigned long flags)
DEFINE_LOCK_GUARD_1(spinlock, spinlock_t, spin_lock(_T->lock), spin_unlock(_T->lock))
DEFINE_LOCK_GUARD_1(spinlock_irq, spinlock_t, spin_lock_irq(_T->lock), spin_unlock_irq(_T->lock))
DEFINE_LOCK_GUARD_1(spinlock_irqsave, spinlock_t, spin_lock_irqsave(_T->lock, _T->flags),
                    spin_unlock_irqrestore(_T->lock, _T->flags), unsigned long flags)
/* 7.x: initialising a lock's protected fields "under" it (for the
 * context analysis): initialises the lock, takes nothing. */
DEFINE_LOCK_GUARD_1(raw_spinlock_init, raw_spinlock_t, raw_spin_lock_init(_T->lock), (void)0)
DEFINE_LOCK_GUARD_1(spinlock_init, spinlock_t, spin_lock_init(_T->lock), (void)0)
DEFINE_LOCK_GUARD_0(preempt, preempt_disable(), preempt_enable())
DEFINE_LOCK_GUARD_0(preempt_notrace, preempt_disable(), preempt_enable())
DEFINE_LOCK_GUARD_0(migrate, migrate_disable(), migrate_enable())
DEFINE_LOCK_GUARD_0(irq, local_irq_disable(), local_irq_enable())
DEFINE_LOCK_GUARD_0(rcu, rcu_read_lock(), rcu_read_unlock())

/* 6.14+: drop a raw spin lock, then do the wake-ups collected under it. */
static inline void raw_spin_unlock_irqrestore_wake(raw_spinlock_t *lock, unsigned long flags,
                                                   struct wake_q_head *wake_q) {
  raw_spin_unlock_irqrestore(lock, flags);
  if (wake_q) {
    wake_up_q(wake_q);
    wake_q_init(wake_q);
  }
}
static inline void raw_spin_unlock_irq_wake(raw_spinlock_t *lock, struct wake_q_head *wake_q) {
  raw_spin_unlock_irq(lock);
  if (wake_q) {
    wake_up_q(wake_q);
    wake_q_init(wake_q);
  }
}

#endif /* RWSTRESS_LAYER_LINUX_SPINLOCK_H */
