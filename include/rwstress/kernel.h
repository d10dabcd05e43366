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
 * - No interrupts, no preemption control: irq-save forms save nothing.
 * - RCU is real (the host's liburcu, urcu-memb): rcu_read_lock() and
 *   preempt_disable() open nesting read-side sections, synchronize_rcu()
 *   and call_rcu() wait for grace periods over them, and rcu_sync and
 *   rcuwait are built on them (percpu-rwsem.c's reader fast path needs
 *   it). schedule() inside a section is a lock warning.
 * - Wait queues (__wake_up with a key and custom wake functions,
 *   wait_event) and dynamic per-CPU data (alloc_percpu).
 * - Headers of several kernels at once (docs/plugins.md, "Which kernel the
 *   layer matches"): -DRWSTRESS_LINUX_VERSION_CODE picks where they differ.
 * - Injection points: set_current_state(sleeping) = after-enqueue,
 *   schedule() = before-sleep and after-wake (and spurious-wake),
 *   wake_up_process() = before-wake, wake_q_add() = mid-release,
 *   raw_spin_unlock() = wait-unlock, percpu_down_read()'s fast path =
 *   fast-path, cpu_relax() and spin-lock slow paths = spin.
 *
 * Where things are: as in the kernel's tree, under rwstress/kernel-compat/.
 * This file keeps the compiler macros, the types, the warnings and the
 * host's table, then includes the parts in the order they build on each
 * other: <asm/barrier.h> (barriers, READ_ONCE), <asm/processor.h>
 * (cpu_relax), <asm/cmpxchg.h>, <linux/atomic.h>, <linux/bitops.h>,
 * <linux/sched.h> (tasks, schedule(), need_resched(), signals, wake_q; it
 * includes <linux/preempt.h> and <linux/rcupdate.h>), <linux/list.h>,
 * <linux/spinlock.h> (and <linux/lockdep.h>, <linux/cleanup.h> and the
 * guards), <linux/percpu.h>, <linux/wait.h>, <linux/rcuwait.h>,
 * <linux/rcu_sync.h>, <asm-generic/qspinlock_types.h> (the queued
 * spinlock and rwlock), <linux/semaphore.h> and <trace/events/lock.h>;
 * then the glue macros below. Each part includes this file first, so any
 * of them may be included alone.
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

/* The explore build (-DRWSTRESS_KERNEL_EXPLORE; docs/explore.md, "The
 * kernel's own files"): every atomic, cmpxchg/xchg, READ_ONCE/WRITE_ONCE,
 * smp_load_acquire/smp_store_release, per-CPU op and bit op of the layer is
 * a scheduling point of `rwstress explore` (include/rwstress/explore.h),
 * barriers are points, cpu_relax() is a spin turn, and schedule() and the
 * wake-ups sleep and wake through the scheduler's model. Outside a
 * controlled run such a plugin runs as the ordinary build does, a
 * thread-local test slower per access. Without the macro nothing of this
 * is compiled: __rwsk_XP(ptr, what, OP, args...) is OP(ptr, args...). */
#ifdef RWSTRESS_KERNEL_EXPLORE
#include <rwstress/explore.h>
#define __rwsk_XP(ptr, what, OP, ...)                                               \
  __extension__({                                                                   \
    __typeof__(ptr) __rwsk_xp = (ptr);                                              \
    RWSTRESS_ACCESS_UNMODELLED(__rwsk_xp, what, OP(__rwsk_xp, ##__VA_ARGS__));      \
  })
#define __rwsk_XPV(ptr, what, OP, ...)                                              \
  __extension__({                                                                   \
    __typeof__(ptr) __rwsk_xp = (ptr);                                              \
    RWSTRESS_ACCESS_UNMODELLED_VOID(__rwsk_xp, what, OP(__rwsk_xp, ##__VA_ARGS__)); \
  })
#define __rwsk_XPOINT(what) rwstress_explore_point(what)
#define __rwsk_exploring() rwstress_explore_active()
/* The memory model's events (explore --memory c11): each access below
 * says what it was and its order once done; a fence says its order. */
#define __rwsk_MM(P, kind, mo) \
  rwstress_explore_model((P), (unsigned)sizeof(*(P)), RWSTRESS_MODEL_##kind, (mo))
#define __rwsk_MMFENCE(mo) rwstress_explore_model(0, 0, RWSTRESS_MODEL_FENCE, (mo))
#define __rwsk_MMVAL(P, kind, mo, expr)  \
  __extension__({                        \
    __auto_type __rwsk_mv = (expr);      \
    __rwsk_MM(P, kind, mo);              \
    __rwsk_mv;                           \
  })
/* A load's value goes through the model, which may make it an older one. */
#define __rwsk_MMREAD(P, mo, expr)                                              \
  __extension__({                                                               \
    __auto_type __rwsk_mv = (expr);                                             \
    rwstress_explore_model_load((P), (unsigned)sizeof(__rwsk_mv), (mo), &__rwsk_mv); \
    __rwsk_mv;                                                                  \
  })
#define __rwsk_op_load(P, mo) __rwsk_MMREAD(P, mo, __atomic_load_n((P), (mo)))
#define __rwsk_op_store(P, v, mo) \
  __extension__({ __atomic_store_n((P), (v), (mo)); __rwsk_MM(P, STORE, mo); })
#define __rwsk_op_xchg(P, v, mo) __rwsk_MMVAL(P, RMW, mo, __atomic_exchange_n((P), (v), (mo)))
#define __rwsk_op_cas(P, po, n, mo, fmo)                                       \
  __extension__({                                                              \
    _Bool __rwsk_ok = __atomic_compare_exchange_n((P), (po), (n), 0, (mo), (fmo)); \
    if (__rwsk_ok)                                                             \
      __rwsk_MM(P, RMW, mo);                                                   \
    else                                                                       \
      __rwsk_MM(P, LOAD, fmo);                                                 \
    __rwsk_ok;                                                                 \
  })
#define __rwsk_op_rmw(P, op, i, mo) __rwsk_MMVAL(P, RMW, mo, __atomic_##op((P), (i), (mo)))
#define __rwsk_op_vload(P) __rwsk_MMREAD(P, __ATOMIC_RELAXED, (*(const volatile __typeof__(*(P)) *)(P)))
#define __rwsk_op_vstore(P, v) __rwsk_MMVAL(P, STORE, __ATOMIC_RELAXED, (*(volatile __typeof__(*(P)) *)(P) = (v)))
#else
#define __rwsk_XP(ptr, what, OP, ...) OP((ptr), ##__VA_ARGS__)
#define __rwsk_XPV(ptr, what, OP, ...) ((void)OP((ptr), ##__VA_ARGS__))
#define __rwsk_XPOINT(what) ((void)0)
#define __rwsk_exploring() 0
#define __rwsk_MM(P, kind, mo) ((void)0)
#define __rwsk_MMFENCE(mo) ((void)0)
#define __rwsk_MMVAL(P, kind, mo, expr) (expr)
/* The accesses the layer makes points of, as OPs over a pointer. */
#define __rwsk_op_load(P, mo) __atomic_load_n((P), (mo))
#define __rwsk_op_store(P, v, mo) __atomic_store_n((P), (v), (mo))
#define __rwsk_op_xchg(P, v, mo) __atomic_exchange_n((P), (v), (mo))
#define __rwsk_op_cas(P, po, n, mo, fmo) __atomic_compare_exchange_n((P), (po), (n), 0, (mo), (fmo))
#define __rwsk_op_rmw(P, op, i, mo) __atomic_##op((P), (i), (mo))
#define __rwsk_op_vload(P) (*(const volatile __typeof__(*(P)) *)(P))
#define __rwsk_op_vstore(P, v) (*(volatile __typeof__(*(P)) *)(P) = (v))
#endif

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
 * per-CPU areas. In a controlled run, the run's threads, whatever ran
 * before it in the process (a schedule replays in a fresh one). */
#define __rwsk_cpus_in_use() \
  ((unsigned int)__atomic_load_n(__rwsk_host()->cpus_in_use, __ATOMIC_ACQUIRE))
#ifdef RWSTRESS_KERNEL_EXPLORE
#define nr_cpu_ids                                                                 \
  __extension__({                                                                  \
    const int __rwsk_run_cpus = rwstress_explore_cpus();                           \
    __rwsk_run_cpus > 0 ? (unsigned int)__rwsk_run_cpus : __rwsk_cpus_in_use();    \
  })
#else
#define nr_cpu_ids __rwsk_cpus_in_use()
#endif
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

#define __rwsk_str_(x) #x
#define __rwsk_str(x) __rwsk_str_(x)

/* Whether the lock-order checker is on (kernel_host.h): the spin locks and
 * the wake-ups call into the host only then. */
#define __rwsk_lock_order_on() \
  unlikely(__atomic_load_n(__rwsk_host()->lock_order_on, __ATOMIC_RELAXED))

static inline void __rwsk_warn(const char *file, int line, const char *what) {
  __rwsk_host()->warn(file, line, what);
}

#define WARN_ON(cond)                                                  \
  ({                                                                   \
    int __rwsk_c = !!(cond);                                           \
    if (unlikely(__rwsk_c)) __rwsk_warn(__FILE__, __LINE__, "WARN_ON(" #cond ")"); \
    __rwsk_c;                                                          \
  })
/* Once per process, as in the kernel; in the explore build every time, so
 * that every schedule (and every replay of one) reports what it hits. */
#define WARN_ON_ONCE(cond)                                             \
  ({                                                                   \
    static int __rwsk_warned;                                          \
    int __rwsk_c = !!(cond);                                           \
    if (unlikely(__rwsk_c) &&                                          \
        (__rwsk_exploring() || !__atomic_exchange_n(&__rwsk_warned, 1, __ATOMIC_RELAXED))) \
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

#include <asm/barrier.h>

#include <asm/processor.h>

#include <asm/cmpxchg.h>

#include <linux/atomic.h>

#include <linux/bitops.h>

#include <linux/sched.h>

#include <linux/list.h>

#include <linux/spinlock.h>

#include <linux/percpu.h>

#include <linux/wait.h>

#include <linux/rcuwait.h>

#include <linux/rcu_sync.h>

#include <asm-generic/qspinlock_types.h>

#include <linux/semaphore.h>

#include <trace/events/lock.h>

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
/* A release returns holding no spin lock (lockdep's "lock held when
 * returning to user space"); an acquisition may: a lock made of spin
 * locks is held across its critical section. */
#define __RWSK_WRAP_RELEASE(ident, what, type, fn)                             \
  static void ident##_##what(void *l) {                                        \
    fn((type *)l);                                                             \
    if (unlikely(current->spin_depth != 0))                                    \
      __rwsk_host()->held_at_release(#fn, __FILE__, __LINE__);                 \
    __rwsk_return_to_user();                                                   \
  }
#define __RWSK_UNUSED __attribute__((__unused__))
/* NULL (a void *) for an op left out, else the wrapper. */
#define __RWSK_FN(ident, what, fn) \
  __builtin_choose_expr(__builtin_types_compatible_p(__typeof__(fn), void *), NULL, ident##_##what)

/* The ops tables. Anything after the last op is more of the table's
 * initializer: the lock's promise and flags (plugin ABI 2), as in
 *   RWSTRESS_KERNEL_MUTEX_OPS(..., mutex_trylock, .fairness = RWSTRESS_FAIRNESS_HANDOFF)
 * Left out: unfair, no flags. */
#define RWSTRESS_KERNEL_SEMAPHORE_OPS(ident, lock_name, type, init_fn, down_fn, up_fn, trylock_fn, ...) \
  static int ident##_init(void *l, long count) {                                                \
    init_fn((type *)l, (int)count);                                                             \
    return 0;                                                                                   \
  }                                                                                             \
  __RWSK_WRAP_VOID(ident, down, type, down_fn)                                                  \
  __RWSK_WRAP_RELEASE(ident, up, type, up_fn)                                                   \
  static int (*const ident##_trylock_fn)(type *) = trylock_fn;                                  \
  __RWSK_UNUSED static int ident##_trylock(void *l) { return ident##_trylock_fn((type *)l) == 0; }             \
  static const struct rwstress_lock_ops ident = {                                               \
      .abi = RWSTRESS_PLUGIN_ABI, .name = lock_name, .family = RWSTRESS_FAMILY_SEMAPHORE,       \
      .size = sizeof(type), .init = ident##_init, .lock = ident##_down, .unlock = ident##_up,   \
      .try_lock = __RWSK_FN(ident, trylock, trylock_fn), ##__VA_ARGS__}

#define RWSTRESS_KERNEL_MUTEX_OPS(ident, lock_name, type, init_fn, lock_fn, unlock_fn, trylock_fn, ...) \
  static int ident##_init(void *l, long count) {                                                \
    (void)count;                                                                                \
    init_fn((type *)l);                                                                         \
    return 0;                                                                                   \
  }                                                                                             \
  __RWSK_WRAP_VOID(ident, lock, type, lock_fn)                                                  \
  __RWSK_WRAP_RELEASE(ident, unlock, type, unlock_fn)                                           \
  static int (*const ident##_trylock_fn)(type *) = trylock_fn;                                  \
  __RWSK_UNUSED static int ident##_trylock(void *l) { return ident##_trylock_fn((type *)l) != 0; }             \
  static const struct rwstress_lock_ops ident = {                                               \
      .abi = RWSTRESS_PLUGIN_ABI, .name = lock_name, .family = RWSTRESS_FAMILY_MUTEX,           \
      .size = sizeof(type), .init = ident##_init, .lock = ident##_lock,                         \
      .unlock = ident##_unlock, .try_lock = __RWSK_FN(ident, trylock, trylock_fn), ##__VA_ARGS__}

#define RWSTRESS_KERNEL_RWSEM_OPS(ident, lock_name, type, init_fn, down_read_fn, up_read_fn,    \
                                  down_write_fn, up_write_fn, read_trylock_fn,                   \
                                  write_trylock_fn, downgrade_fn, ...)                           \
  static int ident##_init(void *l, long count) {                                                \
    (void)count;                                                                                \
    init_fn((type *)l);                                                                         \
    return 0;                                                                                   \
  }                                                                                             \
  __RWSK_WRAP_VOID(ident, down_read, type, down_read_fn)                                        \
  __RWSK_WRAP_RELEASE(ident, up_read, type, up_read_fn)                                         \
  __RWSK_WRAP_VOID(ident, down_write, type, down_write_fn)                                      \
  __RWSK_WRAP_RELEASE(ident, up_write, type, up_write_fn)                                       \
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
      .downgrade = __RWSK_FN(ident, downgrade, downgrade_fn), ##__VA_ARGS__}

/* RWSTRESS_KERNEL_PLUGIN(&a_ops, &b_ops): the plugin's one exported symbol. */
#define RWSTRESS_KERNEL_PLUGIN(...)                                                  \
  const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {                  \
    static const struct rwstress_lock_ops *const list[] = {__VA_ARGS__, NULL};       \
    return list;                                                                     \
  }

#endif /* RWSTRESS_KERNEL_H */
