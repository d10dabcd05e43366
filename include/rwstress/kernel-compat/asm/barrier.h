/* The kernel-compat layer's <asm/barrier.h>: barriers and the ONCE accessors.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_ASM_BARRIER_H
#define RWSTRESS_LAYER_ASM_BARRIER_H

/* ---- Barriers, ONCE accessors ------------------------------------------- */

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
/* An access KCSAN should not report: the expression itself here. */
#define data_race(expr) ({ __auto_type __rwsk_v = (expr); __rwsk_v; })
#define WRITE_ONCE(x, val)                        \
  do {                                            \
    *(volatile __typeof__(x) *)&(x) = (val);      \
  } while (0)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define mb() smp_mb()
#define rmb() smp_rmb()
#define wmb() smp_wmb()
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()
#define smp_mb__after_spinlock() smp_mb()
#define smp_acquire__after_ctrl_dep() smp_rmb()
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_store_mb(var, value) \
  do {                           \
    WRITE_ONCE(var, value);      \
    smp_mb();                    \
  } while (0)

/* The type of x without qualifiers, for the VAL of the cond-load loops. */
#define __rwsk_unqual(x)                                                           \
  __typeof__(_Generic((x), char: (char)0, unsigned char: (unsigned char)0,         \
                      signed char: (signed char)0, unsigned short: (unsigned short)0, \
                      short: (short)0, unsigned int: (unsigned int)0, int: (int)0,   \
                      unsigned long: (unsigned long)0, long: (long)0,             \
                      unsigned long long: (unsigned long long)0,                  \
                      long long: (long long)0, default: (x)))

#endif /* RWSTRESS_LAYER_ASM_BARRIER_H */
