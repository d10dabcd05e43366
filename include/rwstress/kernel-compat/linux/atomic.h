/* The kernel-compat layer's <linux/atomic.h>: atomic_t, atomic_long_t and atomic64_t with the kernel's operations.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_ATOMIC_H
#define RWSTRESS_LAYER_LINUX_ATOMIC_H

/* ---- atomic_t, atomic_long_t, atomic64_t --------------------------------- */

/* The ops are macros over the counter, so that a caller's `u32 *old` for an
 * atomic_t's try_cmpxchg works as in the kernel (which builds with
 * -Wno-pointer-sign). `pre` is the family: atomic, atomic_long, atomic64. */
#define __rwsk_SC __ATOMIC_SEQ_CST
#define __rwsk_ACQ __ATOMIC_ACQUIRE
#define __rwsk_REL __ATOMIC_RELEASE
#define __rwsk_RLX __ATOMIC_RELAXED
#define __rwsk_ctr(v) (&(v)->counter)
#define __rwsk_ctrtype(v) __typeof__((v)->counter)

/* Each one a scheduling point in the explore build (<rwstress/kernel.h>). */
#define __rwsk_read(v) __rwsk_XP(__rwsk_ctr(v), "atomic_read", __rwsk_op_load, __rwsk_RLX)
#define __rwsk_set(v, i) __rwsk_XPV(__rwsk_ctr(v), "atomic_set", __rwsk_op_store, (i), __rwsk_RLX)
#define __rwsk_op(v, op, i) __rwsk_XPV(__rwsk_ctr(v), "atomic " #op, __rwsk_op_rmw, op, (i), __rwsk_RLX)
#define __rwsk_ret(v, op, i, mo) __rwsk_XP(__rwsk_ctr(v), "atomic " #op, __rwsk_op_rmw, op, (i), (mo))
#define __rwsk_cas(v, po, n, mo, fmo)                                                        \
  __rwsk_XP(__rwsk_ctr(v), "atomic cmpxchg", __rwsk_op_cas, (__rwsk_ctrtype(v) *)(void *)(po), \
            (n), (mo), (fmo))
#define __rwsk_cmpxchg_v(v, o, n, mo, fmo)                      \
  ({                                                            \
    __rwsk_ctrtype(v) __rwsk_o = (o);                           \
    __rwsk_cas(v, &__rwsk_o, n, mo, fmo);                       \
    __rwsk_o;                                                   \
  })

#define atomic_read(v) __rwsk_read(v)
#define atomic_set(v, i) __rwsk_set(v, i)
#define atomic_read_acquire(v) __rwsk_XP(__rwsk_ctr(v), "atomic_read_acquire", __rwsk_op_load, __rwsk_ACQ)
#define atomic_set_release(v, i) \
  __rwsk_XPV(__rwsk_ctr(v), "atomic_set_release", __rwsk_op_store, (i), __rwsk_REL)
#define atomic_long_read atomic_read
#define atomic_long_set atomic_set
#define atomic_long_read_acquire atomic_read_acquire
#define atomic_long_set_release atomic_set_release
#define atomic64_read atomic_read
#define atomic64_set atomic_set

/* Fully ordered void RMWs are not ordered in the kernel (only the value-
 * returning ones are); relaxed here too. */
#define atomic_add(i, v) __rwsk_op(v, fetch_add, i)
#define atomic_sub(i, v) __rwsk_op(v, fetch_sub, i)
#define atomic_inc(v) __rwsk_op(v, fetch_add, 1)
#define atomic_dec(v) __rwsk_op(v, fetch_sub, 1)
#define atomic_and(i, v) __rwsk_op(v, fetch_and, i)
#define atomic_or(i, v) __rwsk_op(v, fetch_or, i)
#define atomic_xor(i, v) __rwsk_op(v, fetch_xor, i)
#define atomic_andnot(i, v) __rwsk_op(v, fetch_and, ~(i))

#define atomic_add_return(i, v) __rwsk_ret(v, add_fetch, i, __rwsk_SC)
#define atomic_add_return_acquire(i, v) __rwsk_ret(v, add_fetch, i, __rwsk_ACQ)
#define atomic_add_return_release(i, v) __rwsk_ret(v, add_fetch, i, __rwsk_REL)
#define atomic_add_return_relaxed(i, v) __rwsk_ret(v, add_fetch, i, __rwsk_RLX)
#define atomic_sub_return(i, v) __rwsk_ret(v, sub_fetch, i, __rwsk_SC)
#define atomic_sub_return_acquire(i, v) __rwsk_ret(v, sub_fetch, i, __rwsk_ACQ)
#define atomic_sub_return_release(i, v) __rwsk_ret(v, sub_fetch, i, __rwsk_REL)
#define atomic_sub_return_relaxed(i, v) __rwsk_ret(v, sub_fetch, i, __rwsk_RLX)
#define atomic_inc_return(v) atomic_add_return(1, v)
#define atomic_inc_return_acquire(v) atomic_add_return_acquire(1, v)
#define atomic_inc_return_release(v) atomic_add_return_release(1, v)
#define atomic_inc_return_relaxed(v) atomic_add_return_relaxed(1, v)
#define atomic_dec_return(v) atomic_sub_return(1, v)
#define atomic_dec_return_acquire(v) atomic_sub_return_acquire(1, v)
#define atomic_dec_return_release(v) atomic_sub_return_release(1, v)
#define atomic_dec_return_relaxed(v) atomic_sub_return_relaxed(1, v)

#define atomic_fetch_add(i, v) __rwsk_ret(v, fetch_add, i, __rwsk_SC)
#define atomic_fetch_add_acquire(i, v) __rwsk_ret(v, fetch_add, i, __rwsk_ACQ)
#define atomic_fetch_add_release(i, v) __rwsk_ret(v, fetch_add, i, __rwsk_REL)
#define atomic_fetch_add_relaxed(i, v) __rwsk_ret(v, fetch_add, i, __rwsk_RLX)
#define atomic_fetch_sub(i, v) __rwsk_ret(v, fetch_sub, i, __rwsk_SC)
#define atomic_fetch_sub_acquire(i, v) __rwsk_ret(v, fetch_sub, i, __rwsk_ACQ)
#define atomic_fetch_sub_release(i, v) __rwsk_ret(v, fetch_sub, i, __rwsk_REL)
#define atomic_fetch_sub_relaxed(i, v) __rwsk_ret(v, fetch_sub, i, __rwsk_RLX)
#define atomic_fetch_inc(v) atomic_fetch_add(1, v)
#define atomic_fetch_dec(v) atomic_fetch_sub(1, v)
#define atomic_fetch_or(i, v) __rwsk_ret(v, fetch_or, i, __rwsk_SC)
#define atomic_fetch_or_acquire(i, v) __rwsk_ret(v, fetch_or, i, __rwsk_ACQ)
#define atomic_fetch_or_release(i, v) __rwsk_ret(v, fetch_or, i, __rwsk_REL)
#define atomic_fetch_or_relaxed(i, v) __rwsk_ret(v, fetch_or, i, __rwsk_RLX)
#define atomic_fetch_and(i, v) __rwsk_ret(v, fetch_and, i, __rwsk_SC)
#define atomic_fetch_and_acquire(i, v) __rwsk_ret(v, fetch_and, i, __rwsk_ACQ)
#define atomic_fetch_and_release(i, v) __rwsk_ret(v, fetch_and, i, __rwsk_REL)
#define atomic_fetch_and_relaxed(i, v) __rwsk_ret(v, fetch_and, i, __rwsk_RLX)
#define atomic_fetch_andnot(i, v) __rwsk_ret(v, fetch_and, ~(i), __rwsk_SC)
#define atomic_fetch_andnot_acquire(i, v) __rwsk_ret(v, fetch_and, ~(i), __rwsk_ACQ)
#define atomic_fetch_andnot_release(i, v) __rwsk_ret(v, fetch_and, ~(i), __rwsk_REL)
#define atomic_fetch_andnot_relaxed(i, v) __rwsk_ret(v, fetch_and, ~(i), __rwsk_RLX)
#define atomic_fetch_xor(i, v) __rwsk_ret(v, fetch_xor, i, __rwsk_SC)

#define atomic_inc_and_test(v) (atomic_inc_return(v) == 0)
#define atomic_dec_and_test(v) (atomic_dec_return(v) == 0)
#define atomic_sub_and_test(i, v) (atomic_sub_return(i, v) == 0)
#define atomic_add_negative(i, v) (atomic_add_return(i, v) < 0)

#define __rwsk_atomic_xchg(v, n, mo) __rwsk_XP(__rwsk_ctr(v), "atomic xchg", __rwsk_op_xchg, (n), (mo))
#define atomic_xchg(v, n) __rwsk_atomic_xchg(v, n, __rwsk_SC)
#define atomic_xchg_acquire(v, n) __rwsk_atomic_xchg(v, n, __rwsk_ACQ)
#define atomic_xchg_release(v, n) __rwsk_atomic_xchg(v, n, __rwsk_REL)
#define atomic_xchg_relaxed(v, n) __rwsk_atomic_xchg(v, n, __rwsk_RLX)
#define atomic_cmpxchg(v, o, n) __rwsk_cmpxchg_v(v, o, n, __rwsk_SC, __rwsk_SC)
#define atomic_cmpxchg_acquire(v, o, n) __rwsk_cmpxchg_v(v, o, n, __rwsk_ACQ, __rwsk_ACQ)
#define atomic_cmpxchg_release(v, o, n) __rwsk_cmpxchg_v(v, o, n, __rwsk_REL, __rwsk_RLX)
#define atomic_cmpxchg_relaxed(v, o, n) __rwsk_cmpxchg_v(v, o, n, __rwsk_RLX, __rwsk_RLX)
#define atomic_try_cmpxchg(v, po, n) __rwsk_cas(v, po, n, __rwsk_SC, __rwsk_SC)
#define atomic_try_cmpxchg_acquire(v, po, n) __rwsk_cas(v, po, n, __rwsk_ACQ, __rwsk_ACQ)
#define atomic_try_cmpxchg_release(v, po, n) __rwsk_cas(v, po, n, __rwsk_REL, __rwsk_RLX)
#define atomic_try_cmpxchg_relaxed(v, po, n) __rwsk_cas(v, po, n, __rwsk_RLX, __rwsk_RLX)

#define atomic_fetch_add_unless(v, a, u)                                  \
  ({                                                                      \
    __rwsk_ctrtype(v) __rwsk_c = atomic_read(v);                          \
    do {                                                                  \
      if (__rwsk_c == (u)) break;                                         \
    } while (!atomic_try_cmpxchg(v, &__rwsk_c, __rwsk_c + (a)));          \
    __rwsk_c;                                                             \
  })
#define atomic_add_unless(v, a, u) (atomic_fetch_add_unless(v, a, u) != (u))
#define atomic_inc_not_zero(v) atomic_add_unless(v, 1, 0)

#define atomic_cond_read_relaxed(v, c) smp_cond_load_relaxed(__rwsk_ctr(v), (c))
#define atomic_cond_read_acquire(v, c) smp_cond_load_acquire(__rwsk_ctr(v), (c))

/* atomic_long_* and atomic64_*: the same macros work on any counter. */
#define atomic_long_add atomic_add
#define atomic_long_sub atomic_sub
#define atomic_long_inc atomic_inc
#define atomic_long_dec atomic_dec
#define atomic_long_and atomic_and
#define atomic_long_or atomic_or
#define atomic_long_andnot atomic_andnot
#define atomic_long_add_return atomic_add_return
#define atomic_long_add_return_acquire atomic_add_return_acquire
#define atomic_long_add_return_release atomic_add_return_release
#define atomic_long_add_return_relaxed atomic_add_return_relaxed
#define atomic_long_sub_return atomic_sub_return
#define atomic_long_sub_return_acquire atomic_sub_return_acquire
#define atomic_long_sub_return_release atomic_sub_return_release
#define atomic_long_sub_return_relaxed atomic_sub_return_relaxed
#define atomic_long_inc_return atomic_inc_return
#define atomic_long_inc_return_acquire atomic_inc_return_acquire
#define atomic_long_inc_return_release atomic_inc_return_release
#define atomic_long_inc_return_relaxed atomic_inc_return_relaxed
#define atomic_long_dec_return atomic_dec_return
#define atomic_long_dec_return_acquire atomic_dec_return_acquire
#define atomic_long_dec_return_release atomic_dec_return_release
#define atomic_long_dec_return_relaxed atomic_dec_return_relaxed
#define atomic_long_fetch_add atomic_fetch_add
#define atomic_long_fetch_add_acquire atomic_fetch_add_acquire
#define atomic_long_fetch_add_release atomic_fetch_add_release
#define atomic_long_fetch_add_relaxed atomic_fetch_add_relaxed
#define atomic_long_fetch_sub atomic_fetch_sub
#define atomic_long_fetch_sub_acquire atomic_fetch_sub_acquire
#define atomic_long_fetch_sub_release atomic_fetch_sub_release
#define atomic_long_fetch_sub_relaxed atomic_fetch_sub_relaxed
#define atomic_long_fetch_or atomic_fetch_or
#define atomic_long_fetch_or_acquire atomic_fetch_or_acquire
#define atomic_long_fetch_or_release atomic_fetch_or_release
#define atomic_long_fetch_or_relaxed atomic_fetch_or_relaxed
#define atomic_long_fetch_and atomic_fetch_and
#define atomic_long_fetch_andnot atomic_fetch_andnot
#define atomic_long_fetch_andnot_acquire atomic_fetch_andnot_acquire
#define atomic_long_fetch_andnot_release atomic_fetch_andnot_release
#define atomic_long_fetch_andnot_relaxed atomic_fetch_andnot_relaxed
#define atomic_long_inc_and_test atomic_inc_and_test
#define atomic_long_dec_and_test atomic_dec_and_test
#define atomic_long_sub_and_test atomic_sub_and_test
#define atomic_long_add_negative atomic_add_negative
#define atomic_long_xchg atomic_xchg
#define atomic_long_xchg_acquire atomic_xchg_acquire
#define atomic_long_xchg_release atomic_xchg_release
#define atomic_long_xchg_relaxed atomic_xchg_relaxed
#define atomic_long_cmpxchg atomic_cmpxchg
#define atomic_long_cmpxchg_acquire atomic_cmpxchg_acquire
#define atomic_long_cmpxchg_release atomic_cmpxchg_release
#define atomic_long_cmpxchg_relaxed atomic_cmpxchg_relaxed
#define atomic_long_try_cmpxchg atomic_try_cmpxchg
#define atomic_long_try_cmpxchg_acquire atomic_try_cmpxchg_acquire
#define atomic_long_try_cmpxchg_release atomic_try_cmpxchg_release
#define atomic_long_try_cmpxchg_relaxed atomic_try_cmpxchg_relaxed
#define atomic_long_add_unless atomic_add_unless
#define atomic_long_inc_not_zero atomic_inc_not_zero
#define atomic_long_cond_read_relaxed atomic_cond_read_relaxed
#define atomic_long_cond_read_acquire atomic_cond_read_acquire
#define atomic64_add atomic_add
#define atomic64_sub atomic_sub
#define atomic64_inc atomic_inc
#define atomic64_dec atomic_dec
#define atomic64_add_return atomic_add_return
#define atomic64_sub_return atomic_sub_return
#define atomic64_inc_return atomic_inc_return
#define atomic64_dec_return atomic_dec_return
#define atomic64_fetch_add atomic_fetch_add
#define atomic64_xchg atomic_xchg
#define atomic64_cmpxchg atomic_cmpxchg
#define atomic64_try_cmpxchg atomic_try_cmpxchg

#endif /* RWSTRESS_LAYER_LINUX_ATOMIC_H */
