/* The kernel-compat layer's <asm/barrier.h>: barriers and the ONCE accessors.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_ASM_BARRIER_H
#define RWSTRESS_LAYER_ASM_BARRIER_H

/* ---- Barriers, ONCE accessors ------------------------------------------- */

/* Each access and barrier a scheduling point in the explore build. */
#define READ_ONCE(x) __rwsk_XP(&(x), "READ_ONCE", __rwsk_op_vload)
/* An access KCSAN should not report: the expression itself here. */
#define data_race(expr) ({ __auto_type __rwsk_v = (expr); __rwsk_v; })
#define WRITE_ONCE(x, val)                                    \
  do {                                                        \
    __rwsk_XPV(&(x), "WRITE_ONCE", __rwsk_op_vstore, (val));  \
  } while (0)
/* To the memory model (explore --memory c11) smp_rmb() is an acquire
 * fence and smp_wmb() a release one: each orders more than the kernel's
 * (which orders loads only, stores only), so the model reports less. */
#define __rwsk_fence(what, mo) (__rwsk_XPOINT(what), __rwsk_MMFENCE(mo), __atomic_thread_fence(mo))
#define smp_mb() __rwsk_fence("smp_mb", __ATOMIC_SEQ_CST)
#define smp_rmb() __rwsk_fence("smp_rmb", __ATOMIC_ACQUIRE)
#define smp_wmb() __rwsk_fence("smp_wmb", __ATOMIC_RELEASE)
#define mb() smp_mb()
#define rmb() smp_rmb()
#define wmb() smp_wmb()
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()
#define smp_mb__after_spinlock() smp_mb()
#define smp_acquire__after_ctrl_dep() smp_rmb()
#define smp_load_acquire(p) __rwsk_XP(p, "smp_load_acquire", __rwsk_op_load, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) \
  __rwsk_XPV(p, "smp_store_release", __rwsk_op_store, (v), __ATOMIC_RELEASE)
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
