/* The kernel-compat layer's <asm/cmpxchg.h>: xchg and cmpxchg on plain variables.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_ASM_CMPXCHG_H
#define RWSTRESS_LAYER_ASM_CMPXCHG_H

/* ---- xchg / cmpxchg on plain variables ---------------------------------- */

/* Each one a scheduling point in the explore build (<rwstress/kernel.h>). */
#define __rwsk_xchg(p, v, mo) __rwsk_XP(p, "xchg", __rwsk_op_xchg, (v), (mo))
#define xchg(p, v) __rwsk_xchg(p, v, __ATOMIC_SEQ_CST)
#define xchg_acquire(p, v) __rwsk_xchg(p, v, __ATOMIC_ACQUIRE)
#define xchg_release(p, v) __rwsk_xchg(p, v, __ATOMIC_RELEASE)
#define xchg_relaxed(p, v) __rwsk_xchg(p, v, __ATOMIC_RELAXED)

#define __rwsk_cmpxchg(p, o, n, mo, fmo)                                         \
  ({                                                                             \
    __typeof__(*(p)) __rwsk_old = (o);                                           \
    __rwsk_XP(p, "cmpxchg", __rwsk_op_cas, &__rwsk_old, (n), (mo), (fmo));       \
    __rwsk_old;                                                                  \
  })
#define cmpxchg(p, o, n) __rwsk_cmpxchg(p, o, n, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define cmpxchg_acquire(p, o, n) __rwsk_cmpxchg(p, o, n, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)
#define cmpxchg_release(p, o, n) __rwsk_cmpxchg(p, o, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define cmpxchg_relaxed(p, o, n) __rwsk_cmpxchg(p, o, n, __ATOMIC_RELAXED, __ATOMIC_RELAXED)

#define __rwsk_try_cmpxchg(p, po, n, mo, fmo) \
  __rwsk_XP(p, "try_cmpxchg", __rwsk_op_cas, (po), (n), (mo), (fmo))
#define try_cmpxchg(p, po, n) __rwsk_try_cmpxchg(p, po, n, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define try_cmpxchg_acquire(p, po, n) __rwsk_try_cmpxchg(p, po, n, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)
#define try_cmpxchg_release(p, po, n) __rwsk_try_cmpxchg(p, po, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define try_cmpxchg_relaxed(p, po, n) __rwsk_try_cmpxchg(p, po, n, __ATOMIC_RELAXED, __ATOMIC_RELAXED)

#endif /* RWSTRESS_LAYER_ASM_CMPXCHG_H */
