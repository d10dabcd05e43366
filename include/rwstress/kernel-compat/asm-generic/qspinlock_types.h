/* The kernel-compat layer's <asm-generic/qspinlock_types.h>: the queued spinlock and queued rwlock: types and fast paths.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_ASM_GENERIC_QSPINLOCK_TYPES_H
#define RWSTRESS_LAYER_ASM_GENERIC_QSPINLOCK_TYPES_H

/* ---- Queued spinlock and queued rwlock (asm-generic) -------------------- */

/* The kernel's layout (little-endian), so that qspinlock.c and qrwlock.c
 * compile against it. The slow paths are theirs: link qspinlock.c (or a
 * queued_spin_lock_slowpath of your own) when you use arch_spin_lock. */
typedef struct qspinlock {
  union {
    atomic_t val;
    struct {
      u8 locked;
      u8 pending;
    };
    struct {
      u16 locked_pending;
      u16 tail;
    };
  };
} arch_spinlock_t;
#define __ARCH_SPIN_LOCK_UNLOCKED { { .val = ATOMIC_INIT(0) } }

#define _Q_SET_MASK(type) (((1U << _Q_##type##_BITS) - 1) << _Q_##type##_OFFSET)
#define _Q_LOCKED_OFFSET 0
#define _Q_LOCKED_BITS 8
#define _Q_LOCKED_MASK _Q_SET_MASK(LOCKED)
#define _Q_PENDING_OFFSET (_Q_LOCKED_OFFSET + _Q_LOCKED_BITS)
#define _Q_PENDING_BITS 8
#define _Q_PENDING_MASK _Q_SET_MASK(PENDING)
#define _Q_TAIL_IDX_OFFSET (_Q_PENDING_OFFSET + _Q_PENDING_BITS)
#define _Q_TAIL_IDX_BITS 2
#define _Q_TAIL_IDX_MASK _Q_SET_MASK(TAIL_IDX)
#define _Q_TAIL_CPU_OFFSET (_Q_TAIL_IDX_OFFSET + _Q_TAIL_IDX_BITS)
#define _Q_TAIL_CPU_BITS (32 - _Q_TAIL_CPU_OFFSET)
#define _Q_TAIL_CPU_MASK _Q_SET_MASK(TAIL_CPU)
#define _Q_TAIL_OFFSET _Q_TAIL_IDX_OFFSET
#define _Q_TAIL_MASK (_Q_TAIL_IDX_MASK | _Q_TAIL_CPU_MASK)
#define _Q_LOCKED_VAL (1U << _Q_LOCKED_OFFSET)
#define _Q_PENDING_VAL (1U << _Q_PENDING_OFFSET)

extern void queued_spin_lock_slowpath(struct qspinlock *lock, u32 val);

static __always_inline int queued_spin_is_locked(struct qspinlock *lock) {
  return atomic_read(&lock->val);
}
static __always_inline int queued_spin_value_unlocked(struct qspinlock lock) {
  return !lock.val.counter;
}
static __always_inline int queued_spin_is_contended(struct qspinlock *lock) {
  return atomic_read(&lock->val) & ~_Q_LOCKED_MASK;
}
static __always_inline int queued_spin_trylock(struct qspinlock *lock) {
  int val = atomic_read(&lock->val);
  if (unlikely(val)) return 0;
  return likely(atomic_try_cmpxchg_acquire(&lock->val, &val, _Q_LOCKED_VAL));
}
static __always_inline void queued_spin_lock(struct qspinlock *lock) {
  int val = 0;
  if (likely(atomic_try_cmpxchg_acquire(&lock->val, &val, _Q_LOCKED_VAL))) return;
  queued_spin_lock_slowpath(lock, (u32)val);
}
static __always_inline void queued_spin_unlock(struct qspinlock *lock) {
  smp_store_release(&lock->locked, 0);
}
static __always_inline bool virt_spin_lock(struct qspinlock *lock) {
  (void)lock;
  return false;
}
#define arch_spin_is_locked(l) queued_spin_is_locked(l)
#define arch_spin_is_contended(l) queued_spin_is_contended(l)
#define arch_spin_value_unlocked(l) queued_spin_value_unlocked(l)
#define arch_spin_lock(l) queued_spin_lock(l)
#define arch_spin_trylock(l) queued_spin_trylock(l)
#define arch_spin_unlock(l) queued_spin_unlock(l)

typedef struct qrwlock {
  union {
    atomic_t cnts;
    struct {
      u8 wlocked;
      u8 __lstate[3];
    };
  };
  arch_spinlock_t wait_lock;
} arch_rwlock_t;
#define __ARCH_RW_LOCK_UNLOCKED { { .cnts = ATOMIC_INIT(0) }, .wait_lock = __ARCH_SPIN_LOCK_UNLOCKED }

#define _QW_WAITING 0x100
#define _QW_LOCKED 0x0ff
#define _QW_WMASK 0x1ff
#define _QR_SHIFT 9
#define _QR_BIAS (1U << _QR_SHIFT)

extern void queued_read_lock_slowpath(struct qrwlock *lock);
extern void queued_write_lock_slowpath(struct qrwlock *lock);

static inline int queued_read_trylock(struct qrwlock *lock) {
  int cnts = atomic_read(&lock->cnts);
  if (likely(!(cnts & _QW_WMASK))) {
    cnts = (int)atomic_add_return_acquire(_QR_BIAS, &lock->cnts);
    if (likely(!(cnts & _QW_WMASK))) return 1;
    atomic_sub(_QR_BIAS, &lock->cnts);
  }
  return 0;
}
static inline int queued_write_trylock(struct qrwlock *lock) {
  int cnts = atomic_read(&lock->cnts);
  if (unlikely(cnts)) return 0;
  return likely(atomic_try_cmpxchg_acquire(&lock->cnts, &cnts, _QW_LOCKED));
}
static inline void queued_read_lock(struct qrwlock *lock) {
  int cnts = (int)atomic_add_return_acquire(_QR_BIAS, &lock->cnts);
  if (likely(!(cnts & _QW_WMASK))) return;
  queued_read_lock_slowpath(lock); /* takes its bias back if it must wait */
}
static inline void queued_write_lock(struct qrwlock *lock) {
  int cnts = 0;
  if (likely(atomic_try_cmpxchg_acquire(&lock->cnts, &cnts, _QW_LOCKED))) return;
  queued_write_lock_slowpath(lock);
}
static inline void queued_read_unlock(struct qrwlock *lock) {
  (void)atomic_sub_return_release(_QR_BIAS, &lock->cnts);
}
static inline void queued_write_unlock(struct qrwlock *lock) {
  smp_store_release(&lock->wlocked, 0);
}
#define arch_read_lock(l) queued_read_lock(l)
#define arch_write_lock(l) queued_write_lock(l)
#define arch_read_trylock(l) queued_read_trylock(l)
#define arch_write_trylock(l) queued_write_trylock(l)
#define arch_read_unlock(l) queued_read_unlock(l)
#define arch_write_unlock(l) queued_write_unlock(l)

/* rwlock_t over the queued rwlock, as on x86. */
typedef struct {
  arch_rwlock_t raw_lock;
} rwlock_t;
#define __RW_LOCK_UNLOCKED(name) { .raw_lock = __ARCH_RW_LOCK_UNLOCKED }
#define DEFINE_RWLOCK(name) rwlock_t name = __RW_LOCK_UNLOCKED(name)
#define rwlock_init(l) (*(l) = (rwlock_t)__RW_LOCK_UNLOCKED(*(l)))
#define read_lock(l) arch_read_lock(&(l)->raw_lock)
#define read_unlock(l) arch_read_unlock(&(l)->raw_lock)
#define write_lock(l) arch_write_lock(&(l)->raw_lock)
#define write_unlock(l) arch_write_unlock(&(l)->raw_lock)
#define read_trylock(l) arch_read_trylock(&(l)->raw_lock)
#define write_trylock(l) arch_write_trylock(&(l)->raw_lock)

#endif /* RWSTRESS_LAYER_ASM_GENERIC_QSPINLOCK_TYPES_H */
