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
 * the _lock/_unlock forms acquire and release; __ forms are not atomic.
 * The atomic ones are scheduling points in the explore build. */
#define __rwsk_bitop(what, op, nr, addr, mask, mo) \
  __rwsk_XP(__rwsk_bitword(nr, addr), what, __rwsk_op_rmw, op, (mask), (mo))
static inline void set_bit(long nr, volatile unsigned long *addr) {
  __rwsk_bitop("set_bit", fetch_or, nr, addr, BIT_MASK(nr), __ATOMIC_RELAXED);
}
static inline void clear_bit(long nr, volatile unsigned long *addr) {
  __rwsk_bitop("clear_bit", fetch_and, nr, addr, ~BIT_MASK(nr), __ATOMIC_RELAXED);
}
static inline void change_bit(long nr, volatile unsigned long *addr) {
  __rwsk_bitop("change_bit", fetch_xor, nr, addr, BIT_MASK(nr), __ATOMIC_RELAXED);
}
static inline bool test_bit(long nr, const volatile unsigned long *addr) {
  return (__rwsk_XP(__rwsk_bitword(nr, addr), "test_bit", __rwsk_op_load, __ATOMIC_RELAXED) &
          BIT_MASK(nr)) != 0;
}
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr) {
  return (__rwsk_bitop("test_and_set_bit", fetch_or, nr, addr, BIT_MASK(nr), __ATOMIC_SEQ_CST) &
          BIT_MASK(nr)) != 0;
}
static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr) {
  return (__rwsk_bitop("test_and_clear_bit", fetch_and, nr, addr, ~BIT_MASK(nr), __ATOMIC_SEQ_CST) &
          BIT_MASK(nr)) != 0;
}
static inline bool test_and_set_bit_lock(long nr, volatile unsigned long *addr) {
  return (__rwsk_bitop("test_and_set_bit_lock", fetch_or, nr, addr, BIT_MASK(nr), __ATOMIC_ACQUIRE) &
          BIT_MASK(nr)) != 0;
}
static inline void clear_bit_unlock(long nr, volatile unsigned long *addr) {
  __rwsk_bitop("clear_bit_unlock", fetch_and, nr, addr, ~BIT_MASK(nr), __ATOMIC_RELEASE);
}
static inline void __set_bit(long nr, volatile unsigned long *addr) {
  *__rwsk_bitword(nr, addr) |= BIT_MASK(nr);
}
static inline void __clear_bit(long nr, volatile unsigned long *addr) {
  *__rwsk_bitword(nr, addr) &= ~BIT_MASK(nr);
}

#endif /* RWSTRESS_LAYER_LINUX_BITOPS_H */
