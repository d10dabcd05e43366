/* The kernel-compat layer: kernel/locking code compiles as it is, as an
 * rwstress plugin (docs/plugins.md, "The kernel-compat layer").
 *
 * Build a plugin with
 *
 *     cc -shared -fPIC -O2 $(pkg-config --cflags rwstress-kernel) semaphore.c glue.c -o sem.so
 *
 * rwstress-kernel's Cflags put rwstress/kernel-compat on the include path, so that
 * <linux/spinlock.h>, <linux/sched.h>, <asm/qspinlock.h>, ... resolve to small
 * headers that include this one. Nothing to link: the layer is inline code
 * plus what rwstress lends the plugin when it loads it (kernel_host.h).
 *
 * What is real here, and how it differs from the kernel (the kernel's own
 * semaphore.c, qrwlock.c, qspinlock.c, osq_lock.c, rwsem.c and mutex.c build on it):
 * - Atomics, READ_ONCE/WRITE_ONCE and barriers have the kernel's ordering
 *   (GCC __atomic builtins; fully ordered RMWs are seq_cst).
 * - A "CPU" is a thread slot (kernel_host.h): smp_processor_id() and per-CPU
 *   data belong to one thread, because nothing here disables preemption;
 *   nr_cpu_ids and for_each_possible_cpu() cover the slots in use.
 * - Tasks sleep on futexes. set_current_state / check / schedule() has no
 *   lost wake-up: a wake_up_process() before schedule() makes it return.
 * - raw_spinlock_t is a test-and-set lock that records its owner, so that
 *   lockdep_assert_held, might_sleep and schedule() under a spin lock are
 *   checked. arch_spinlock_t is the kernel's queued spinlock (link
 *   qspinlock.c, or your own queued_spin_lock_slowpath, if you use it).
 * - WARN_ON, BUG_ON, DEBUG_LOCKS_WARN_ON and failed lockdep checks report a
 *   lock-warning violation (the run FAILs, naming file and line).
 * - task->on_cpu is 0 while the task is parked in schedule(), else 1, so
 *   owner_on_cpu() stops an optimistic spinner whose owner sleeps (a thread
 *   the host preempted still counts as on a CPU).
 * - Wake-ups match the sleeper's state (wake_up_state, try_to_wake_up).
 * - Signals come from the signal injector (a fatal one, pending for a task
 *   as it goes to sleep): signal_pending_state() answers by state, and a
 *   killable or interruptible sleep wakes for it.
 * - need_resched() is set by the host (a slice run while the CPU was
 *   wanted, or the resched injector) until the task schedules; a task
 *   spinning a second after it was told is a soft lockup (a lock warning).
 * - No interrupts, no preemption control: irq-save forms save nothing,
 *   preempt_disable() is a compiler barrier.
 * - Headers of several kernels at once (docs/plugins.md, "Which kernel the
 *   layer matches"): -DRWSTRESS_LINUX_VERSION_CODE picks where they differ.
 * - Injection points: set_current_state(sleeping) = after-enqueue,
 *   schedule() = before-sleep and after-wake (and spurious-wake),
 *   wake_up_process() = before-wake, wake_q_add() = mid-release,
 *   cpu_relax() and spin-lock slow paths = spin.
 *
 * C only (GNU C11: statement expressions, typeof, _Generic). */
#ifndef RWSTRESS_KERNEL_H
#define RWSTRESS_KERNEL_H

#ifdef __cplusplus
#error "<rwstress/kernel.h> is for C plugins (kernel code is C); use <rwstress/plugin.h> from C++"
#endif

/* System headers first: none of them may see the macros below. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <asm/types.h> /* the kernel's __u8 .. __s64 (the uapi header) */

#include <rwstress/kernel_host.h>
#include <rwstress/plugin.h>

/* ---- Compiler ------------------------------------------------------------ */

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define barrier() __asm__ __volatile__("" ::: "memory")
#define noinline __attribute__((__noinline__))
#undef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#define __noinline noinline
#define __pure __attribute__((__pure__))
#define __cold __attribute__((__cold__))
#define __used __attribute__((__used__))
#define __weak __attribute__((__weak__))
#define __packed __attribute__((__packed__))
#define __aligned(x) __attribute__((__aligned__(x)))
#define __section(s) __attribute__((__section__(s)))
#define __maybe_unused __attribute__((__unused__))
#define __always_unused __attribute__((__unused__))
#define __must_check __attribute__((__warn_unused_result__))
#define __visible
#define __sched
#define __lockfunc
#define notrace
#define asmlinkage
#define __init
#define __exit
#define __initdata
#define __read_mostly
#define __percpu
#define __rcu
#define __user
#define __iomem
#define __force
#define __private
/* Sparse's and 7.x's context-analysis annotations: nothing to a GCC build. */
#define __must_hold(x)
#define __must_hold_shared(x)
#define __must_not_hold(x)
#define __acquires(x)
#define __acquires_shared(x)
#define __releases(x)
#define __releases_shared(x)
#define __cond_acquires(...)
#define __cond_acquires_shared(...)
#define __cond_releases(...)
#define __acquire_shared(x) (void)0
#define __release_shared(x) (void)0
#define __acquire_ret(call, ...) call
#define __acquires_ret
#define __no_context_analysis
#define __context_unsafe(...)
#define context_unsafe(...) ({ __VA_ARGS__; })
#define __guarded_by(...)
#define __pt_guarded_by(...)
#define __assumes_ctx_lock(...)
#define __assumes_shared_ctx_lock(...)
#define context_lock_struct(name, ...) struct name
#define token_context_lock(name, ...) struct __rwsk_ctx_##name { char unused; }
#define token_context_lock_instance(ctx, name) struct __rwsk_ctx_##ctx name
#define __acquire(x) (void)0
#define __release(x) (void)0
#define fallthrough __attribute__((__fallthrough__))
#define unreachable() __builtin_unreachable()
#define L1_CACHE_BYTES 64
#define SMP_CACHE_BYTES 64
#define ____cacheline_aligned __attribute__((__aligned__(64)))
#define ____cacheline_aligned_in_smp ____cacheline_aligned
#define __cacheline_aligned ____cacheline_aligned
#define __cacheline_aligned_in_smp ____cacheline_aligned

#define EXPORT_SYMBOL(sym) extern __typeof__(sym) sym
#define EXPORT_TRACEPOINT_SYMBOL_GPL(name) extern int __rwsk_tracepoint_##name __attribute__((__unused__))
#define EXPORT_TRACEPOINT_SYMBOL(name) EXPORT_TRACEPOINT_SYMBOL_GPL(name)
#define _RET_IP_ ((unsigned long)__builtin_return_address(0))
#define _THIS_IP_ ({ __label__ __here; __here: (unsigned long)&&__here; })
#define EXPORT_SYMBOL_GPL(sym) EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_NS_GPL(sym, ns) EXPORT_SYMBOL(sym)
#define early_param(name, fn) extern int rwstress_kernel_unused_param_
#define module_init(fn) extern int rwstress_kernel_unused_init_
#define module_exit(fn) extern int rwstress_kernel_unused_exit_

/* IS_ENABLED(CONFIG_X): 1 when CONFIG_X is defined to 1. */
#define __rwsk_placeholder_1 0,
#define __rwsk_second(ignored, val, ...) val
#define __rwsk_defined3(arg_or_junk) __rwsk_second(arg_or_junk 1, 0, 0)
#define __rwsk_defined2(val) __rwsk_defined3(__rwsk_placeholder_##val)
#define __rwsk_defined(x) __rwsk_defined2(x)
#define IS_ENABLED(option) __rwsk_defined(option)
#define IS_BUILTIN(option) __rwsk_defined(option)

#define BUILD_BUG_ON(cond) ((void)sizeof(char[1 - 2 * !!(cond)]))
#define BUILD_BUG_ON_MSG(cond, msg) BUILD_BUG_ON(cond)

/* ---- Configuration ------------------------------------------------------- */

#define CONFIG_SMP 1
#define CONFIG_NR_CPUS RWSTRESS_KERNEL_NR_CPUS
#define NR_CPUS CONFIG_NR_CPUS
/* nr_cpu_ids: the thread slots taken so far (kernel_host.h), so that a
 * run of N threads has N possible CPUs; NR_CPUS stays the capacity of the
 * per-CPU areas. */
#define nr_cpu_ids ((unsigned int)__atomic_load_n(__rwsk_host()->cpus_in_use, __ATOMIC_ACQUIRE))
#define HZ 1000
#define NSEC_PER_USEC 1000L
#define NSEC_PER_MSEC 1000000L
#define NSEC_PER_SEC 1000000000L
#define USEC_PER_MSEC 1000L
#define USEC_PER_SEC 1000000L
#define MSEC_PER_SEC 1000L

/* ---- Types ----------------------------------------------------------------- */

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef unsigned long ulong;
typedef unsigned int uint;

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
typedef struct { s64 counter; } atomic64_t;
#define ATOMIC_INIT(i) { (i) }
#define ATOMIC_LONG_INIT(i) { (i) }
#define ATOMIC64_INIT(i) { (i) }

#ifndef offsetof
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif
#define container_of(ptr, type, member) \
  ((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define min(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a < __b ? __a : __b; })
#define max(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a > __b ? __a : __b; })
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

#include <linux/err.h> /* ERR_PTR, IS_ERR */

/* ---- Printing and warnings ----------------------------------------------- */

#define KERN_EMERG ""
#define KERN_ERR ""
#define KERN_WARNING ""
#define KERN_INFO ""
#define KERN_DEBUG ""
#define printk(...) fprintf(stderr, __VA_ARGS__)
#define pr_err(...) fprintf(stderr, __VA_ARGS__)
#define pr_warn(...) fprintf(stderr, __VA_ARGS__)
#define pr_info(...) ((void)0)
#define pr_debug(...) ((void)0)
#define pr_cont(...) ((void)0)

/* The host table: set by rwstress_kernel_attach_v1 when rwstress loads the
 * plugin. One definition across the plugin's files (weak, hidden). */
__attribute__((__weak__, __visibility__("hidden"))) const struct rwstress_kernel_host
    *rwstress_kernel_host_;

__attribute__((__weak__, __visibility__("default"))) void rwstress_kernel_attach_v1(
    const struct rwstress_kernel_host *host) {
  if (host->abi < RWSTRESS_KERNEL_HOST_ABI) {
    fprintf(stderr,
            "rwstress kernel layer: this plugin was built for kernel host ABI %d and this "
            "rwstress lends %u: rebuild it against this rwstress's headers\n",
            RWSTRESS_KERNEL_HOST_ABI, host->abi);
    _exit(2);
  }
  rwstress_kernel_host_ = host;
}

static inline const struct rwstress_kernel_host *__rwsk_host(void) {
  const struct rwstress_kernel_host *h = rwstress_kernel_host_;
  if (unlikely(!h)) {
    fprintf(stderr, "rwstress kernel layer: used before rwstress attached the plugin\n");
    abort();
  }
  return h;
}

static inline void __rwsk_warn(const char *file, int line, const char *what) {
  __rwsk_host()->warn(file, line, what);
}

#define WARN_ON(cond)                                                  \
  ({                                                                   \
    int __rwsk_c = !!(cond);                                           \
    if (unlikely(__rwsk_c)) __rwsk_warn(__FILE__, __LINE__, "WARN_ON(" #cond ")"); \
    __rwsk_c;                                                          \
  })
#define WARN_ON_ONCE(cond)                                             \
  ({                                                                   \
    static int __rwsk_warned;                                          \
    int __rwsk_c = !!(cond);                                           \
    if (unlikely(__rwsk_c) && !__atomic_exchange_n(&__rwsk_warned, 1, __ATOMIC_RELAXED)) \
      __rwsk_warn(__FILE__, __LINE__, "WARN_ON_ONCE(" #cond ")");      \
    __rwsk_c;                                                          \
  })
#define WARN(cond, ...)                                                \
  ({                                                                   \
    int __rwsk_c = !!(cond);                                           \
    if (unlikely(__rwsk_c)) {                                          \
      char __rwsk_m[160];                                              \
      snprintf(__rwsk_m, sizeof __rwsk_m, __VA_ARGS__);                \
      __rwsk_warn(__FILE__, __LINE__, __rwsk_m);                       \
    }                                                                  \
    __rwsk_c;                                                          \
  })
#define WARN_ONCE(cond, ...) WARN(cond, __VA_ARGS__)
#define DEBUG_LOCKS_WARN_ON(cond)                                      \
  ({                                                                   \
    int __rwsk_c = !!(cond);                                           \
    if (unlikely(__rwsk_c)) __rwsk_warn(__FILE__, __LINE__, "DEBUG_LOCKS_WARN_ON(" #cond ")"); \
    __rwsk_c;                                                          \
  })
/* The kernel stops here; a run reports the violation, then the thread
 * carries on where that is possible (BUG_ON) or the process aborts (BUG). */
#define BUG_ON(cond)                                                   \
  do {                                                                 \
    if (unlikely(cond)) __rwsk_warn(__FILE__, __LINE__, "BUG_ON(" #cond ")"); \
  } while (0)
#define BUG()                                                          \
  do {                                                                 \
    __rwsk_warn(__FILE__, __LINE__, "BUG()");                          \
    abort();                                                           \
  } while (0)

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

/* ---- cpu_relax, the spin injection point -------------------------------- */

/* One turn of a busy-wait: the spin injection point, a pause, and every
 * 128th turn a sched_yield(), since a spinner here can outnumber the CPUs
 * and nothing stops the holder from being preempted. */
static __thread unsigned __rwsk_spins __attribute__((__unused__));
static inline void __rwsk_soft_lockup_check(const char *file, int line);  /* after the tasks */
#define cpu_relax() __rwsk_cpu_relax(__FILE__, __LINE__)
static inline void __rwsk_cpu_relax(const char *file, int line) {
  __rwsk_host()->at(RWSTRESS_KPOINT_SPIN);
  __rwsk_soft_lockup_check(file, line);
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
  if ((++__rwsk_spins & 127) == 0) sched_yield();
  barrier();
}

#define smp_cond_load_relaxed(ptr, cond_expr)                   \
  ({                                                            \
    __typeof__(ptr) __PTR = (ptr);                              \
    __rwsk_unqual(*__PTR) VAL;                                  \
    for (;;) {                                                  \
      VAL = __atomic_load_n(__PTR, __ATOMIC_RELAXED);           \
      if (cond_expr) break;                                     \
      cpu_relax();                                              \
    }                                                           \
    (__typeof__(*__PTR))VAL;                                    \
  })
#define smp_cond_load_acquire(ptr, cond_expr)                   \
  ({                                                            \
    __typeof__(ptr) __PTR = (ptr);                              \
    __rwsk_unqual(*__PTR) VAL;                                  \
    for (;;) {                                                  \
      VAL = __atomic_load_n(__PTR, __ATOMIC_ACQUIRE);           \
      if (cond_expr) break;                                     \
      cpu_relax();                                              \
    }                                                           \
    (__typeof__(*__PTR))VAL;                                    \
  })

#define prefetch(x) __builtin_prefetch(x)
#define prefetchw(x) __builtin_prefetch((x), 1)

/* ---- xchg / cmpxchg on plain variables ---------------------------------- */

#define __rwsk_xchg(p, v, mo) __atomic_exchange_n((p), (v), (mo))
#define xchg(p, v) __rwsk_xchg(p, v, __ATOMIC_SEQ_CST)
#define xchg_acquire(p, v) __rwsk_xchg(p, v, __ATOMIC_ACQUIRE)
#define xchg_release(p, v) __rwsk_xchg(p, v, __ATOMIC_RELEASE)
#define xchg_relaxed(p, v) __rwsk_xchg(p, v, __ATOMIC_RELAXED)

#define __rwsk_cmpxchg(p, o, n, mo, fmo)                                         \
  ({                                                                             \
    __typeof__(*(p)) __rwsk_old = (o);                                           \
    __atomic_compare_exchange_n((p), &__rwsk_old, (n), 0, (mo), (fmo));          \
    __rwsk_old;                                                                  \
  })
#define cmpxchg(p, o, n) __rwsk_cmpxchg(p, o, n, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define cmpxchg_acquire(p, o, n) __rwsk_cmpxchg(p, o, n, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)
#define cmpxchg_release(p, o, n) __rwsk_cmpxchg(p, o, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define cmpxchg_relaxed(p, o, n) __rwsk_cmpxchg(p, o, n, __ATOMIC_RELAXED, __ATOMIC_RELAXED)

#define __rwsk_try_cmpxchg(p, po, n, mo, fmo) \
  __atomic_compare_exchange_n((p), (po), (n), 0, (mo), (fmo))
#define try_cmpxchg(p, po, n) __rwsk_try_cmpxchg(p, po, n, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define try_cmpxchg_acquire(p, po, n) __rwsk_try_cmpxchg(p, po, n, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)
#define try_cmpxchg_release(p, po, n) __rwsk_try_cmpxchg(p, po, n, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define try_cmpxchg_relaxed(p, po, n) __rwsk_try_cmpxchg(p, po, n, __ATOMIC_RELAXED, __ATOMIC_RELAXED)

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

#define __rwsk_read(v) __atomic_load_n(__rwsk_ctr(v), __rwsk_RLX)
#define __rwsk_set(v, i) __atomic_store_n(__rwsk_ctr(v), (i), __rwsk_RLX)
#define __rwsk_op(v, op, i) ((void)__atomic_##op(__rwsk_ctr(v), (i), __rwsk_RLX))
#define __rwsk_ret(v, op, i, mo) __atomic_##op(__rwsk_ctr(v), (i), (mo))
#define __rwsk_cas(v, po, n, mo, fmo)                                                        \
  __atomic_compare_exchange_n(__rwsk_ctr(v), (__rwsk_ctrtype(v) *)(void *)(po), (n), 0, (mo), \
                              (fmo))
#define __rwsk_cmpxchg_v(v, o, n, mo, fmo)                      \
  ({                                                            \
    __rwsk_ctrtype(v) __rwsk_o = (o);                           \
    __rwsk_cas(v, &__rwsk_o, n, mo, fmo);                       \
    __rwsk_o;                                                   \
  })

#define atomic_read(v) __rwsk_read(v)
#define atomic_set(v, i) __rwsk_set(v, i)
#define atomic_read_acquire(v) __atomic_load_n(__rwsk_ctr(v), __rwsk_ACQ)
#define atomic_set_release(v, i) __atomic_store_n(__rwsk_ctr(v), (i), __rwsk_REL)
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

#define atomic_xchg(v, n) __atomic_exchange_n(__rwsk_ctr(v), (n), __rwsk_SC)
#define atomic_xchg_acquire(v, n) __atomic_exchange_n(__rwsk_ctr(v), (n), __rwsk_ACQ)
#define atomic_xchg_release(v, n) __atomic_exchange_n(__rwsk_ctr(v), (n), __rwsk_REL)
#define atomic_xchg_relaxed(v, n) __atomic_exchange_n(__rwsk_ctr(v), (n), __rwsk_RLX)
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

/* ---- Tasks ------------------------------------------------------------------ */

#define task_struct rwstress_kernel_task

#define TASK_RUNNING 0x0000
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_WAKEKILL 0x0100
#define TASK_NOLOAD 0x0400
#define TASK_KILLABLE (TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#define TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_NORMAL (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)
#define MAX_SCHEDULE_TIMEOUT LONG_MAX

/* current: the host's task of this thread, cached per file and thread. */
static __thread struct task_struct *__rwsk_current __attribute__((__unused__));
static inline struct task_struct *__rwsk_get_current(void) {
  struct task_struct *t = __rwsk_current;
  if (unlikely(!t)) t = __rwsk_current = __rwsk_host()->current_task();
  return t;
}
#define current __rwsk_get_current()
#define get_current() __rwsk_get_current()

static inline struct task_struct *get_task_struct(struct task_struct *t) {
  __atomic_add_fetch(&t->usage, 1, __ATOMIC_RELAXED);
  return t;
}
static inline void put_task_struct(struct task_struct *t) {
  if (__atomic_sub_fetch(&t->usage, 1, __ATOMIC_ACQ_REL) == 0) __rwsk_host()->put_task(t);
}
#define task_pid_nr(t) ((t)->pid)
#define task_cpu(t) ((t)->cpu)

#define smp_processor_id() (current->cpu)
#define raw_smp_processor_id() smp_processor_id()
#define get_cpu() smp_processor_id()
#define put_cpu() ((void)0)
#define num_online_cpus() ((unsigned int)sysconf(_SC_NPROCESSORS_ONLN))
#define num_possible_cpus() nr_cpu_ids
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (unsigned int)(cpu) < nr_cpu_ids; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)
#define cpu_online(cpu) ((unsigned int)(cpu) < nr_cpu_ids)
#define cpu_possible(cpu) cpu_online(cpu)

#define preempt_disable() barrier()
#define preempt_enable() barrier()
#define preempt_enable_no_resched() barrier()
#define preempt_count() 0
#define preemptible() 1
#define migrate_disable() barrier()
#define migrate_enable() barrier()
#define in_interrupt() 0
#define in_irq() 0
#define in_nmi() 0
#define in_task() 1
#define in_atomic() (current->spin_depth != 0)
#define irqs_disabled() 0
#define local_irq_disable() barrier()
#define local_irq_enable() barrier()
#define local_irq_save(flags) \
  do {                        \
    (flags) = 0;              \
    barrier();                \
  } while (0)
#define local_irq_restore(flags) \
  do {                           \
    (void)(flags);               \
    barrier();                   \
  } while (0)

#define might_sleep()                                                                 \
  do {                                                                                \
    if (unlikely(current->spin_depth))                                                \
      __rwsk_warn(__FILE__, __LINE__, "might_sleep() with a spin lock held");         \
  } while (0)
#define might_sleep_if(cond) \
  do {                       \
    if (cond) might_sleep(); \
  } while (0)
#define might_resched() ((void)0)
/* Clocks and delays: CLOCK_MONOTONIC, and busy or sleeping waits. */
static inline u64 __rwsk_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* need_resched(): TIF_NEED_RESCHED, set when the host says so (a resched
 * injector, or a slice run while others wanted the CPU: kernel_host.h) and
 * kept until the task schedules: schedule(), cond_resched(), yield(), or the
 * end of the plugin operation (a return to user space). */
static inline int __rwsk_need_resched(void) {
  struct task_struct *t = current;
  if (!t->need_resched) {
    if (!__rwsk_host()->resched_check()) return 0;
    t->need_resched = 1;
  }
  if (!t->resched_seen_ns) t->resched_seen_ns = __rwsk_now_ns();
  return 1;
}
#define need_resched() __rwsk_need_resched()
static inline void __rwsk_rescheduled(struct task_struct *t) {
  t->need_resched = 0;
  t->resched_seen_ns = 0;
}
static inline int __rwsk_cond_resched(void) {
  if (!need_resched()) return 0;
  __rwsk_rescheduled(current);
  sched_yield();
  return 1;
}
#define cond_resched() __rwsk_cond_resched()
/* The soft-lockup watchdog, for spinners: a task still spinning a second
 * after need_resched() told it to stop (it asked, and spun on) is what the
 * kernel's watchdog reports. A spinner that never asks (a raw spin lock's
 * waiter) is not judged here. Reported once a second of spinning, where
 * it spins. */
#define RWSTRESS_SOFT_LOCKUP_NS 1000000000ULL
static inline void __rwsk_soft_lockup_check(const char *file, int line) {
  struct task_struct *t = current;
  if (likely(!t->resched_seen_ns)) return;
  const u64 now = __rwsk_now_ns();
  if (now - t->resched_seen_ns < RWSTRESS_SOFT_LOCKUP_NS) return;
  char what[160];
  snprintf(what, sizeof what,
           "soft lockup: still spinning %llu ms after need_resched() said to stop",
           (unsigned long long)((now - t->resched_seen_ns) / 1000000ULL));
  t->resched_seen_ns = now;
  __rwsk_warn(file, line, what);
}
/* Signals: the signal injector (signal@before-sleep) makes a fatal signal
 * pending for a task about to sleep, as SIGKILL would; a killable or
 * interruptible sleep wakes for it and the lock's bail-out path runs. The
 * glue "returns to user space" after each operation, which handles it
 * (rwstress_kernel_signal_handled). */
#define signal_pending(p) (__atomic_load_n(&(p)->sigpending, __ATOMIC_ACQUIRE) != 0)
#define fatal_signal_pending(p) signal_pending(p)
#define __fatal_signal_pending(p) signal_pending(p)
static inline int __rwsk_signal_pending_state(unsigned int state, struct task_struct *p) {
  if (!(state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL))) return 0;
  if (!signal_pending(p)) return 0;
  return (state & TASK_INTERRUPTIBLE) || __fatal_signal_pending(p);
}
#define signal_pending_state(state, p) __rwsk_signal_pending_state((unsigned int)(state), (p))
static inline void rwstress_kernel_signal_handled(void) {
  __atomic_store_n(&current->sigpending, 0, __ATOMIC_RELAXED);
}
/* The end of a plugin operation, as a return to user space: a pending
 * signal is handled and a pending reschedule taken. */
static inline void __rwsk_return_to_user(void) {
  struct task_struct *t = current;
  rwstress_kernel_signal_handled();
  if (t->need_resched) __rwsk_rescheduled(t);
}

/* Setting a sleeping state fires after-enqueue, just before the store: in
 * the kernel's pattern the waiter is queued and about to drop the lock and
 * schedule(), and a lock that sets its state too late (after dropping the
 * lock) has its lost wake-up window opened here. */
static inline void __rwsk_note_state(int state) {
  if (state != TASK_RUNNING) __rwsk_host()->at(RWSTRESS_KPOINT_AFTER_ENQUEUE);
}
#define __set_current_state(state)                   \
  do {                                               \
    __rwsk_note_state(state);                        \
    WRITE_ONCE(current->__state, (state));           \
  } while (0)
#define set_current_state(state)                     \
  do {                                               \
    __rwsk_note_state(state);                        \
    smp_store_mb(current->__state, (state));         \
  } while (0)
#define set_special_state(state) set_current_state(state)

static inline long __rwsk_futex(int *word, int op, int val, const struct timespec *timeout) {
  return syscall(SYS_futex, word, op | 128 /* FUTEX_PRIVATE_FLAG */, val, timeout, NULL, 0);
}

static inline unsigned long __rwsk_jiffies(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long)ts.tv_sec * HZ + (unsigned long)ts.tv_nsec / (1000000000UL / HZ);
}
#define jiffies __rwsk_jiffies()
#define msecs_to_jiffies(m) ((unsigned long)(m) * HZ / 1000)
#define usecs_to_jiffies(u) DIV_ROUND_UP((unsigned long)(u) * HZ, 1000000UL)
#define jiffies_to_msecs(j) ((unsigned int)((j) * 1000 / HZ))
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)

/* Parks until a wake_up_process() set this task TASK_RUNNING, or until
 * `deadline` (jiffies; 0 = none). Returns at once if the wake-up came
 * first. An injected spurious wake-up returns as a real one would. */
static inline void __rwsk_park(unsigned long deadline, const char *file, int line) {
  struct task_struct *t = current;
  const struct rwstress_kernel_host *h = __rwsk_host();
  if (unlikely(t->spin_depth)) __rwsk_warn(file, line, "schedule() with a spin lock held");
  h->at(RWSTRESS_KPOINT_BEFORE_SLEEP);
  __rwsk_rescheduled(t);
  /* Off the CPU while parked: an optimistic spinner that watches this task
   * as a lock owner (owner_on_cpu) stops spinning and sleeps too. */
  __atomic_store_n(&t->on_cpu, 0, __ATOMIC_RELAXED);
  for (;;) {
    int state = __atomic_load_n(&t->__state, __ATOMIC_ACQUIRE);
    if (state == TASK_RUNNING) break;
    /* A pending signal wakes a killable or interruptible sleep. */
    if ((state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL)) && signal_pending(t)) break;
    if (h->spurious_wake()) break;
    struct timespec ts, *tsp = NULL;
    if (deadline) {
      unsigned long now = __rwsk_jiffies();
      if (!time_before(now, deadline)) break;
      unsigned long left = deadline - now;
      ts.tv_sec = (time_t)(left / HZ);
      ts.tv_nsec = (long)(left % HZ) * (1000000000L / HZ);
      tsp = &ts;
    }
    __rwsk_futex(&t->__state, 0 /* FUTEX_WAIT */, state, tsp);
  }
  __atomic_store_n(&t->__state, TASK_RUNNING, __ATOMIC_RELAXED);
  __atomic_store_n(&t->on_cpu, 1, __ATOMIC_RELAXED);
  h->at(RWSTRESS_KPOINT_AFTER_WAKE);
}

/* schedule() and the unlocks are macros so that a warning names the
 * caller's file and line. */
#define schedule() __rwsk_park(0, __FILE__, __LINE__)
#define schedule_preempt_disabled() schedule()
#define io_schedule() schedule()
static inline long __rwsk_schedule_timeout(long timeout, const char *file, int line) {
  if (timeout == MAX_SCHEDULE_TIMEOUT) {
    __rwsk_park(0, file, line);
    return timeout;
  }
  if (timeout <= 0) {
    __atomic_store_n(&current->__state, TASK_RUNNING, __ATOMIC_RELAXED);
    return 0;
  }
  unsigned long deadline = __rwsk_jiffies() + (unsigned long)timeout;
  if (deadline == 0) deadline = 1;
  __rwsk_park(deadline, file, line);
  long left = (long)(deadline - __rwsk_jiffies());
  return left < 0 ? 0 : left;
}
#define schedule_timeout(t) __rwsk_schedule_timeout((t), __FILE__, __LINE__)
#define schedule_timeout_uninterruptible(t) \
  (__set_current_state(TASK_UNINTERRUPTIBLE), schedule_timeout(t))
#define yield() (__rwsk_rescheduled(current), (void)sched_yield())
#define task_is_running(t) (READ_ONCE((t)->__state) == TASK_RUNNING)
#define rt_task(t) 0
#define rt_or_dl_task(t) 0
#define dl_task(t) 0
#define rt_or_dl_task_policy(t) 0
#define vcpu_is_preempted(cpu) false
/* Whether a lock owner runs: false while it is parked in schedule(). A
 * thread the host's scheduler preempted still counts as running (as a
 * preempted task does in the kernel until it is switched out). */
static inline bool owner_on_cpu(struct task_struct *owner) {
  return READ_ONCE(owner->on_cpu) && !vcpu_is_preempted(task_cpu(owner));
}
#define rcu_read_lock() barrier()
#define rcu_read_unlock() barrier()

#define local_clock() __rwsk_now_ns()
#define sched_clock() __rwsk_now_ns()
#define ktime_get_ns() __rwsk_now_ns()
static inline void ndelay(unsigned long ns) {
  const u64 end = __rwsk_now_ns() + ns;
  while (__rwsk_now_ns() < end) cpu_relax();
}
#define udelay(us) ndelay((unsigned long)(us) * 1000UL)
#define mdelay(ms) ndelay((unsigned long)(ms) * 1000000UL)
static inline void msleep(unsigned int ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* try_to_wake_up: wakes the task only if its state matches `state` (a
 * mismatched wake is a no-op, as in the kernel: wake_up_state(p,
 * TASK_INTERRUPTIBLE) leaves an uninterruptible sleeper asleep). 1 if it
 * woke the task. Fully ordered before it reads the state
 * (smp_mb__after_spinlock in the kernel). */
static inline int __rwsk_try_to_wake_up(struct task_struct *p, unsigned int state) {
  __rwsk_host()->at(RWSTRESS_KPOINT_BEFORE_WAKE);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  int cur = __atomic_load_n(&p->__state, __ATOMIC_RELAXED);
  do {
    if (!((unsigned int)cur & state)) return 0;
  } while (!__atomic_compare_exchange_n(&p->__state, &cur, TASK_RUNNING, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED));
  __rwsk_futex(&p->__state, 1 /* FUTEX_WAKE */, 1, NULL);
  return 1;
}
#define wake_up_process(p) __rwsk_try_to_wake_up((p), TASK_NORMAL)
#define wake_up_state(p, state) __rwsk_try_to_wake_up((p), (unsigned int)(state))
#define try_to_wake_up(p, state, flags) __rwsk_try_to_wake_up((p), (unsigned int)(state))

/* wake_q: wake-ups collected under a lock and done after dropping it. */
struct wake_q_head {
  struct rwstress_kernel_wake_q_node *first;
  struct rwstress_kernel_wake_q_node **lastp;
};
#define WAKE_Q_TAIL ((struct rwstress_kernel_wake_q_node *)0x01)
#define WAKE_Q_HEAD_INITIALIZER(name) { WAKE_Q_TAIL, &name.first }
#define DEFINE_WAKE_Q(name) struct wake_q_head name = WAKE_Q_HEAD_INITIALIZER(name)
static inline void wake_q_init(struct wake_q_head *head) {
  head->first = WAKE_Q_TAIL;
  head->lastp = &head->first;
}
static inline bool wake_q_empty(struct wake_q_head *head) { return head->first == WAKE_Q_TAIL; }
static inline void wake_q_add(struct wake_q_head *head, struct task_struct *task) {
  __rwsk_host()->at(RWSTRESS_KPOINT_MID_RELEASE);
  struct rwstress_kernel_wake_q_node *none = NULL;
  /* Already on a wake_q: its owner wakes it. */
  if (!__atomic_compare_exchange_n(&task->wake_q.next, &none, WAKE_Q_TAIL, 0, __ATOMIC_SEQ_CST,
                                   __ATOMIC_RELAXED))
    return;
  get_task_struct(task);
  *head->lastp = &task->wake_q;
  head->lastp = &task->wake_q.next;
}
static inline void wake_q_add_safe(struct wake_q_head *head, struct task_struct *task) {
  wake_q_add(head, task);
  put_task_struct(task);
}
static inline void wake_up_q(struct wake_q_head *head) {
  struct rwstress_kernel_wake_q_node *node = head->first;
  while (node != WAKE_Q_TAIL) {
    struct task_struct *task = container_of(node, struct task_struct, wake_q);
    node = node->next;
    __atomic_store_n(&task->wake_q.next, NULL, __ATOMIC_RELAXED);
    wake_up_process(task);
    put_task_struct(task);
  }
}

/* io_schedule() bookkeeping (iowait accounting): nothing to account. */
#define io_schedule_prepare() 0
#define io_schedule_finish(token) ((void)(token))
/* Proxy execution (CONFIG_SCHED_PROXY_EXEC) is off, as in a kernel built
 * without it: mutex.c keeps blocked_on (and its WARNs) but never donates. */
#define sched_proxy_exec() false

/* ---- Lists ------------------------------------------------------------------ */

struct list_head {
  struct list_head *next, *prev;
};
#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
static inline void INIT_LIST_HEAD(struct list_head *l) {
  WRITE_ONCE(l->next, l);
  l->prev = l;
}
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next) {
  next->prev = n;
  n->next = next;
  n->prev = prev;
  WRITE_ONCE(prev->next, n);
}
static inline void list_add(struct list_head *n, struct list_head *head) {
  __list_add(n, head, head->next);
}
static inline void list_add_tail(struct list_head *n, struct list_head *head) {
  __list_add(n, head->prev, head);
}
static inline void __list_del(struct list_head *prev, struct list_head *next) {
  next->prev = prev;
  WRITE_ONCE(prev->next, next);
}
/* A deleted entry points at poison, as in the kernel: a second list_del or
 * a walk through it faults instead of corrupting the list quietly. */
#define LIST_POISON1 ((struct list_head *)0x100)
#define LIST_POISON2 ((struct list_head *)0x122)
static inline void list_del(struct list_head *e) {
  __list_del(e->prev, e->next);
  e->next = LIST_POISON1;
  e->prev = LIST_POISON2;
}
static inline void list_del_init(struct list_head *e) {
  __list_del(e->prev, e->next);
  INIT_LIST_HEAD(e);
}
static inline void list_move_tail(struct list_head *e, struct list_head *head) {
  __list_del(e->prev, e->next);
  list_add_tail(e, head);
}
static inline int list_empty(const struct list_head *head) { return READ_ONCE(head->next) == head; }
static inline int list_is_singular(const struct list_head *head) {
  return !list_empty(head) && head->next == head->prev;
}
static inline int list_is_last(const struct list_head *e, const struct list_head *head) {
  return e->next == head;
}
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)
#define list_first_entry_or_null(ptr, type, member)                       \
  ({                                                                      \
    struct list_head *__rwsk_h = (ptr);                                   \
    struct list_head *__rwsk_n = READ_ONCE(__rwsk_h->next);               \
    __rwsk_n != __rwsk_h ? list_entry(__rwsk_n, type, member) : NULL;     \
  })
#define list_next_entry(pos, member) list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_prev_entry(pos, member) list_entry((pos)->member.prev, __typeof__(*(pos)), member)
#define list_entry_is_head(pos, head, member) (&(pos)->member == (head))
#define list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_entry(pos, head, member)                                  \
  for (pos = list_first_entry(head, __typeof__(*pos), member);                   \
       !list_entry_is_head(pos, head, member); pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)                          \
  for (pos = list_first_entry(head, __typeof__(*pos), member),                  \
      n = list_next_entry(pos, member);                                         \
       !list_entry_is_head(pos, head, member); pos = n, n = list_next_entry(n, member))

/* ---- Spin locks -------------------------------------------------------- */

/* raw_spinlock_t: test-and-set, owner recorded (the checks above use it). */
typedef struct raw_spinlock raw_spinlock_t; /* kernel_host.h: { locked, owner } */
#define __RAW_SPIN_LOCK_UNLOCKED(name) { 0, NULL }
#define __RAW_SPIN_LOCK_INITIALIZER(name) __RAW_SPIN_LOCK_UNLOCKED(name)
#define DEFINE_RAW_SPINLOCK(name) raw_spinlock_t name = __RAW_SPIN_LOCK_UNLOCKED(name)
#define raw_spin_lock_init(l) (*(l) = (raw_spinlock_t)__RAW_SPIN_LOCK_UNLOCKED(*(l)))

static inline void __rwsk_spin_acquired(raw_spinlock_t *l) {
  struct task_struct *me = current;
  WRITE_ONCE(l->owner, me);
  me->spin_depth++;
}
static inline void raw_spin_lock(raw_spinlock_t *l) {
  while (unlikely(__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))) {
    while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED)) cpu_relax();
  }
  __rwsk_spin_acquired(l);
}
static inline int raw_spin_trylock(raw_spinlock_t *l) {
  if (__atomic_load_n(&l->locked, __ATOMIC_RELAXED) ||
      __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
    return 0;
  __rwsk_spin_acquired(l);
  return 1;
}
static inline void __rwsk_raw_spin_unlock(raw_spinlock_t *l, const char *file, int line) {
  struct task_struct *me = current;
  if (unlikely(READ_ONCE(l->owner) != me))
    __rwsk_warn(file, line, "raw_spin_unlock() of a spin lock this thread does not hold");
  WRITE_ONCE(l->owner, NULL);
  me->spin_depth--;
  __atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
#define raw_spin_unlock(l) __rwsk_raw_spin_unlock((l), __FILE__, __LINE__)
#define raw_spin_is_locked(l) (__atomic_load_n(&(l)->locked, __ATOMIC_RELAXED) != 0)
#define raw_spin_lock_irq(l) raw_spin_lock(l)
#define raw_spin_unlock_irq(l) raw_spin_unlock(l)
#define raw_spin_lock_bh(l) raw_spin_lock(l)
#define raw_spin_unlock_bh(l) raw_spin_unlock(l)
#define raw_spin_lock_irqsave(l, flags) \
  do {                                  \
    (flags) = 0;                        \
    raw_spin_lock(l);                   \
  } while (0)
#define raw_spin_unlock_irqrestore(l, flags) \
  do {                                       \
    (void)(flags);                           \
    raw_spin_unlock(l);                      \
  } while (0)
#define raw_spin_trylock_irqsave(l, flags) ((flags) = 0, raw_spin_trylock(l))

typedef struct spinlock {
  struct raw_spinlock rlock;
} spinlock_t;
#define __SPIN_LOCK_UNLOCKED(name) { __RAW_SPIN_LOCK_UNLOCKED(name.rlock) }
#define DEFINE_SPINLOCK(name) spinlock_t name = __SPIN_LOCK_UNLOCKED(name)
#define spin_lock_init(l) raw_spin_lock_init(&(l)->rlock)
#define spin_lock(l) raw_spin_lock(&(l)->rlock)
#define spin_unlock(l) raw_spin_unlock(&(l)->rlock)
#define spin_trylock(l) raw_spin_trylock(&(l)->rlock)
#define spin_is_locked(l) raw_spin_is_locked(&(l)->rlock)
#define spin_lock_irq(l) spin_lock(l)
#define spin_unlock_irq(l) spin_unlock(l)
#define spin_lock_bh(l) spin_lock(l)
#define spin_unlock_bh(l) spin_unlock(l)
#define spin_lock_irqsave(l, flags) raw_spin_lock_irqsave(&(l)->rlock, flags)
#define spin_unlock_irqrestore(l, flags) raw_spin_unlock_irqrestore(&(l)->rlock, flags)

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
#define raw_spin_lock_nested(l, subclass) raw_spin_lock(l)
#define raw_spin_lock_irqsave_nested(l, flags, subclass) raw_spin_lock_irqsave(l, flags)
#define spin_lock_nested(l, subclass) spin_lock(l)
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

/* ---- Per-CPU data --------------------------------------------------------- */

/* Per-CPU variables live in one section; the first use lays out a copy of
 * it per slot (NR_CPUS copies, each 64-byte aligned), and per_cpu_ptr()
 * moves a pointer into the section to the same place in a slot's copy. */
#define __RWSK_PERCPU __attribute__((__section__("rwstress_percpu")))
#define DEFINE_PER_CPU(type, name) __RWSK_PERCPU __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name) __RWSK_PERCPU __attribute__((__aligned__(64))) __typeof__(type) name
#define DEFINE_PER_CPU_SHARED_ALIGNED(type, name) DEFINE_PER_CPU_ALIGNED(type, name)
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name
#define DECLARE_PER_CPU_ALIGNED(type, name) DECLARE_PER_CPU(type, name)

extern char __start_rwstress_percpu[] __attribute__((__weak__, __visibility__("hidden")));
extern char __stop_rwstress_percpu[] __attribute__((__weak__, __visibility__("hidden")));
__attribute__((__weak__, __visibility__("hidden"))) char *__rwsk_percpu_area;

static inline size_t __rwsk_percpu_stride(void) {
  return ((size_t)(__stop_rwstress_percpu - __start_rwstress_percpu) + 63) & ~(size_t)63;
}
static inline char *__rwsk_percpu_layout(void) {
  const size_t stride = __rwsk_percpu_stride();
  const size_t used = (size_t)(__stop_rwstress_percpu - __start_rwstress_percpu);
  char *area = (char *)aligned_alloc(64, stride * NR_CPUS);
  if (!area) {
    fprintf(stderr, "rwstress kernel layer: no memory for per-CPU data\n");
    abort();
  }
  for (size_t cpu = 0; cpu < NR_CPUS; ++cpu) {
    memcpy(area + cpu * stride, __start_rwstress_percpu, used);
    memset(area + cpu * stride + used, 0, stride - used);
  }
  char *none = NULL;
  if (!__atomic_compare_exchange_n(&__rwsk_percpu_area, &none, area, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    free(area);
    return none;
  }
  return area;
}
static inline void *__rwsk_per_cpu(const void *p, int cpu) {
  char *area = __atomic_load_n(&__rwsk_percpu_area, __ATOMIC_ACQUIRE);
  if (unlikely(!area)) area = __rwsk_percpu_layout();
  return area + (size_t)cpu * __rwsk_percpu_stride() + ((const char *)p - __start_rwstress_percpu);
}
#define per_cpu_ptr(ptr, cpu) ((__typeof__(ptr))__rwsk_per_cpu((ptr), (cpu)))
#define this_cpu_ptr(ptr) per_cpu_ptr(ptr, smp_processor_id())
#define raw_cpu_ptr(ptr) this_cpu_ptr(ptr)
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), cpu))
#define this_cpu_read(var) (*this_cpu_ptr(&(var)))
#define this_cpu_write(var, v) (*this_cpu_ptr(&(var)) = (v))
#define this_cpu_add(var, v) (*this_cpu_ptr(&(var)) += (v))
#define this_cpu_sub(var, v) (*this_cpu_ptr(&(var)) -= (v))
#define this_cpu_inc(var) this_cpu_add(var, 1)
#define this_cpu_dec(var) this_cpu_sub(var, 1)
#define __this_cpu_read this_cpu_read
#define __this_cpu_write this_cpu_write
#define __this_cpu_add this_cpu_add
#define __this_cpu_sub this_cpu_sub
#define __this_cpu_inc this_cpu_inc
#define __this_cpu_dec this_cpu_dec
#define raw_cpu_read this_cpu_read
#define raw_cpu_inc this_cpu_inc

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

/* ---- struct semaphore (include/linux/semaphore.h) ----------------------- */

/* The fields of every recent kernel's semaphore.c at once: the wait list
 * (up to 6.x), the first waiter (the list's replacement on linux-next) and
 * the last holder (CONFIG_DETECT_HUNG_TASK_BLOCKER); a file uses its own
 * and leaves the others as initialised. */
struct semaphore {
  raw_spinlock_t lock;
  unsigned int count;
  struct list_head wait_list;
  struct semaphore_waiter *first_waiter;
  unsigned long last_holder;
};
#define __SEMAPHORE_INITIALIZER(name, n)                                                    \
  {                                                                                         \
    .lock = __RAW_SPIN_LOCK_UNLOCKED((name).lock), .count = (n),                            \
    .wait_list = LIST_HEAD_INIT((name).wait_list), .first_waiter = NULL, .last_holder = 0UL \
  }
/* DEFINE_SEMAPHORE(name) (count 1, before 6.4) and DEFINE_SEMAPHORE(name, n). */
#define __rwsk_defsem1(name) struct semaphore name = __SEMAPHORE_INITIALIZER(name, 1)
#define __rwsk_defsem2(name, n) struct semaphore name = __SEMAPHORE_INITIALIZER(name, n)
#define __rwsk_pick3(a, b, which, ...) which
#define DEFINE_SEMAPHORE(...) __rwsk_pick3(__VA_ARGS__, __rwsk_defsem2, __rwsk_defsem1, 0)(__VA_ARGS__)
static inline void sema_init(struct semaphore *sem, int val) {
  *sem = (struct semaphore)__SEMAPHORE_INITIALIZER(*sem, (unsigned int)val);
}
extern void down(struct semaphore *sem);
extern int __must_check down_interruptible(struct semaphore *sem);
extern int __must_check down_killable(struct semaphore *sem);
extern int __must_check down_trylock(struct semaphore *sem);
extern int __must_check down_timeout(struct semaphore *sem, long timeout);
extern void up(struct semaphore *sem);

/* ---- Tracing: nothing ------------------------------------------------------ */

#define LCB_F_SPIN (1U << 0)
#define LCB_F_READ (1U << 1)
#define LCB_F_WRITE (1U << 2)
#define LCB_F_RT (1U << 3)
#define LCB_F_PERCPU (1U << 4)
#define LCB_F_MUTEX (1U << 5)
#define trace_contention_begin(lock, flags) ((void)(lock), (void)(flags))
#define trace_contention_end(lock, ret) ((void)(lock), (void)(ret))
#define trace_contended_release(lock) ((void)(lock))
#define BLOCKER_TYPE_MUTEX 0x00UL
#define BLOCKER_TYPE_SEM 0x01UL
#define BLOCKER_TYPE_RWSEM_READER 0x02UL
#define BLOCKER_TYPE_RWSEM_WRITER 0x03UL
#define hung_task_set_blocker(lock, type) ((void)(lock), (void)(type))
#define hung_task_clear_blocker() ((void)0)
#define trace_lock_acquire(...) ((void)0)
#define trace_lock_release(...) ((void)0)
/* lockevent_*: the kernel's own kernel/locking/lock_events.h defines them
 * (empty without CONFIG_LOCK_EVENT_COUNTS); it declares its debugfs reader
 * with a struct file. */
struct file;
/* 7.x: the contended_release tracepoint, off. */
#define trace_contended_release_enabled() false
#define trace_call__contended_release(lock) ((void)(lock))

/* ---- Glue: a kernel-style lock as an rwstress ops table ------------------ */

/* Each macro defines `static const struct rwstress_lock_ops ident` for a
 * lock of C type `type`; list them with RWSTRESS_KERNEL_PLUGIN. `init` is
 * void init(type *) (semaphores: void init(type *, int count)). Trylocks
 * take the kernel's own convention and may be NULL:
 *   down_trylock: 0 = acquired (like the kernel's);
 *   spin/mutex trylock, down_read_trylock, down_write_trylock: 1 = acquired. */
/* Each operation ends as a return to user space would: a signal left
 * pending (by an uninterruptible wait, which ignores it) is handled. */
#define __RWSK_WRAP_VOID(ident, what, type, fn) \
  static void ident##_##what(void *l) {         \
    fn((type *)l);                              \
    __rwsk_return_to_user();                    \
  }
#define __RWSK_UNUSED __attribute__((__unused__))
/* NULL (a void *) for an op left out, else the wrapper. */
#define __RWSK_FN(ident, what, fn) \
  __builtin_choose_expr(__builtin_types_compatible_p(__typeof__(fn), void *), NULL, ident##_##what)

#define RWSTRESS_KERNEL_SEMAPHORE_OPS(ident, lock_name, type, init_fn, down_fn, up_fn, trylock_fn) \
  static int ident##_init(void *l, long count) {                                                \
    init_fn((type *)l, (int)count);                                                             \
    return 0;                                                                                   \
  }                                                                                             \
  __RWSK_WRAP_VOID(ident, down, type, down_fn)                                                  \
  __RWSK_WRAP_VOID(ident, up, type, up_fn)                                                      \
  static int (*const ident##_trylock_fn)(type *) = trylock_fn;                                  \
  __RWSK_UNUSED static int ident##_trylock(void *l) { return ident##_trylock_fn((type *)l) == 0; }             \
  static const struct rwstress_lock_ops ident = {                                               \
      .abi = RWSTRESS_PLUGIN_ABI, .name = lock_name, .family = RWSTRESS_FAMILY_SEMAPHORE,       \
      .size = sizeof(type), .init = ident##_init, .lock = ident##_down, .unlock = ident##_up,   \
      .try_lock = __RWSK_FN(ident, trylock, trylock_fn)}

#define RWSTRESS_KERNEL_MUTEX_OPS(ident, lock_name, type, init_fn, lock_fn, unlock_fn, trylock_fn) \
  static int ident##_init(void *l, long count) {                                                \
    (void)count;                                                                                \
    init_fn((type *)l);                                                                         \
    return 0;                                                                                   \
  }                                                                                             \
  __RWSK_WRAP_VOID(ident, lock, type, lock_fn)                                                  \
  __RWSK_WRAP_VOID(ident, unlock, type, unlock_fn)                                              \
  static int (*const ident##_trylock_fn)(type *) = trylock_fn;                                  \
  __RWSK_UNUSED static int ident##_trylock(void *l) { return ident##_trylock_fn((type *)l) != 0; }             \
  static const struct rwstress_lock_ops ident = {                                               \
      .abi = RWSTRESS_PLUGIN_ABI, .name = lock_name, .family = RWSTRESS_FAMILY_MUTEX,           \
      .size = sizeof(type), .init = ident##_init, .lock = ident##_lock,                         \
      .unlock = ident##_unlock, .try_lock = __RWSK_FN(ident, trylock, trylock_fn)}

#define RWSTRESS_KERNEL_RWSEM_OPS(ident, lock_name, type, init_fn, down_read_fn, up_read_fn,    \
                                  down_write_fn, up_write_fn, read_trylock_fn,                   \
                                  write_trylock_fn, downgrade_fn)                                \
  static int ident##_init(void *l, long count) {                                                \
    (void)count;                                                                                \
    init_fn((type *)l);                                                                         \
    return 0;                                                                                   \
  }                                                                                             \
  __RWSK_WRAP_VOID(ident, down_read, type, down_read_fn)                                        \
  __RWSK_WRAP_VOID(ident, up_read, type, up_read_fn)                                            \
  __RWSK_WRAP_VOID(ident, down_write, type, down_write_fn)                                      \
  __RWSK_WRAP_VOID(ident, up_write, type, up_write_fn)                                          \
  static int (*const ident##_rtry_fn)(type *) = read_trylock_fn;                                \
  __RWSK_UNUSED static int ident##_rtry(void *l) { return ident##_rtry_fn((type *)l) != 0; }                  \
  static int (*const ident##_wtry_fn)(type *) = write_trylock_fn;                               \
  __RWSK_UNUSED static int ident##_wtry(void *l) { return ident##_wtry_fn((type *)l) != 0; }                  \
  static void (*const ident##_downgrade_fn)(type *) = downgrade_fn;                             \
  __RWSK_UNUSED static void ident##_downgrade(void *l) { ident##_downgrade_fn((type *)l); }                   \
  static const struct rwstress_lock_ops ident = {                                               \
      .abi = RWSTRESS_PLUGIN_ABI, .name = lock_name, .family = RWSTRESS_FAMILY_RWLOCK,          \
      .size = sizeof(type), .init = ident##_init, .lock = ident##_down_write,                   \
      .unlock = ident##_up_write, .lock_shared = ident##_down_read,                             \
      .unlock_shared = ident##_up_read, .try_lock = __RWSK_FN(ident, wtry, write_trylock_fn),   \
      .try_lock_shared = __RWSK_FN(ident, rtry, read_trylock_fn),                               \
      .downgrade = __RWSK_FN(ident, downgrade, downgrade_fn)}

/* RWSTRESS_KERNEL_PLUGIN(&a_ops, &b_ops): the plugin's one exported symbol. */
#define RWSTRESS_KERNEL_PLUGIN(...)                                                  \
  const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {                  \
    static const struct rwstress_lock_ops *const list[] = {__VA_ARGS__, NULL};       \
    return list;                                                                     \
  }

#endif /* RWSTRESS_KERNEL_H */
