/* The kernel-compat layer's <linux/bitops.h>: bit operations.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_BITOPS_H
#define RWSTRESS_LAYER_LINUX_BITOPS_H

/* ---- Bit operations (linux/bitops.h) -------------------------------------- */

#define BITS_PER_LONG (8 * (int)sizeof(long))
#define BIT(nr) (1UL << (nr))
#define BIT_MASK(nr) (1UL << ((nr) % BITS_PER_LONG))
#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)
#define __rwsk_bitword(nr, addr) ((unsigned long *)(addr) + BIT_WORD(nr))

/* set/clear/change are atomic and unordered; test_and_* are fully ordered;
 * the _lock/_unlock forms acquire and release; __ forms are not atomic. */
static inline void set_bit(long nr, volatile unsigned long *addr) {
  __atomic_fetch_or(__rwsk_bitword(nr, addr), BIT_MASK(nr), __ATOMIC_RELAXED);
}
static inline void clear_bit(long nr, volatile unsigned long *addr) {
  __atomic_fetch_and(__rwsk_bitword(nr, addr), ~BIT_MASK(nr), __ATOMIC_RELAXED);
}
static inline void change_bit(long nr, volatile unsigned long *addr) {
  __atomic_fetch_xor(__rwsk_bitword(nr, addr), BIT_MASK(nr), __ATOMIC_RELAXED);
}
static inline bool test_bit(long nr, const volatile unsigned long *addr) {
  return (__atomic_load_n(__rwsk_bitword(nr, addr), __ATOMIC_RELAXED) & BIT_MASK(nr)) != 0;
}
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr) {
  return (__atomic_fetch_or(__rwsk_bitword(nr, addr), BIT_MASK(nr), __ATOMIC_SEQ_CST) &
          BIT_MASK(nr)) != 0;
}
static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr) {
  return (__atomic_fetch_and(__rwsk_bitword(nr, addr), ~BIT_MASK(nr), __ATOMIC_SEQ_CST) &
          BIT_MASK(nr)) != 0;
}
static inline bool test_and_set_bit_lock(long nr, volatile unsigned long *addr) {
  return (__atomic_fetch_or(__rwsk_bitword(nr, addr), BIT_MASK(nr), __ATOMIC_ACQUIRE) &
          BIT_MASK(nr)) != 0;
}
static inline void clear_bit_unlock(long nr, volatile unsigned long *addr) {
  __atomic_fetch_and(__rwsk_bitword(nr, addr), ~BIT_MASK(nr), __ATOMIC_RELEASE);
}
static inline void __set_bit(long nr, volatile unsigned long *addr) {
  *__rwsk_bitword(nr, addr) |= BIT_MASK(nr);
}
static inline void __clear_bit(long nr, volatile unsigned long *addr) {
  *__rwsk_bitword(nr, addr) &= ~BIT_MASK(nr);
}

#endif /* RWSTRESS_LAYER_LINUX_BITOPS_H */
