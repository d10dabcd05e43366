/* The plain C stores of an explore build, for the memory model
 * (docs/explore.md, "Plain stores").
 *
 * The kernel's files initialise their queue nodes with plain C stores
 * (qspinlock.c's `node->locked = 0; node->next = NULL;`, osq_lock.c's),
 * and what orders those stores before the node is published (an smp_wmb(),
 * a release) is exactly what a node-initialisation bug leaves out. The
 * kernel-compat layer cannot see a plain store: the compiler can. The
 * explore build is compiled with GCC's ThreadSanitizer instrumentation
 * (the flags in share/rwstress/kernel-glue/explore-cflags) and linked
 * without its run-time library: this file is that run-time, and is all of
 * it. Each plain store or load of at most a word becomes the host's
 * plain_store() or plain_load() call (ABI 5: under explore --memory c11 or
 * tso, where the model follows the word, a relaxed store, or a relaxed
 * load that may read an older store); volatile accesses (READ_ONCE and
 * WRITE_ONCE, which the layer reports itself) and function entries are
 * nothing; the instrumented atomics are the atomic
 * operations themselves, sequentially consistent (the layer tells the
 * model each one's order; the hardware order does not matter in a run
 * where one thread runs at a time, and is only stronger outside one).
 *
 * Include it in exactly one file of a plugin built with those flags (the
 * glue files do, through glue.h); nothing without -fsanitize=thread. The
 * definitions are hidden: a plugin never hands them to anyone else, and a
 * ThreadSanitizer build of rwstress loading it keeps its own. */
#ifndef RWSTRESS_KERNEL_PLAIN_H
#define RWSTRESS_KERNEL_PLAIN_H
#if defined(RWSTRESS_KERNEL_EXPLORE) && defined(__SANITIZE_THREAD__)

#include <rwstress/explore.h>

#define RWSK_RUNTIME __attribute__((__no_sanitize_thread__, __visibility__("hidden"), __used__))

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

__attribute__((__no_sanitize_thread__)) static inline void rwsk_plain_store(void *word, unsigned size) {
    const struct rwstress_explore_host *host = rwstress_explore_host_;
    if (host && host->abi >= 5) host->plain_store((unsigned long)word, size);
}
__attribute__((__no_sanitize_thread__)) static inline void rwsk_plain_load(void *word, unsigned size) {
    const struct rwstress_explore_host *host = rwstress_explore_host_;
    if (host && host->abi >= 5) host->plain_load((unsigned long)word, size);
}

RWSK_RUNTIME void __tsan_init(void) {}
RWSK_RUNTIME void __tsan_func_entry(void *pc) { (void)pc; }
RWSK_RUNTIME void __tsan_func_exit(void) {}
RWSK_RUNTIME void __tsan_vptr_update(void **vptr, void *value) { (void)vptr, (void)value; }

/* Plain loads of at most a word. */
#define RWSK_LOAD(name, size) \
    RWSK_RUNTIME void name(void *word) { rwsk_plain_load(word, size); }
RWSK_LOAD(__tsan_read1, 1)
RWSK_LOAD(__tsan_read2, 2)
RWSK_LOAD(__tsan_read4, 4)
RWSK_LOAD(__tsan_read8, 8)
RWSK_LOAD(__tsan_unaligned_read2, 2)
RWSK_LOAD(__tsan_unaligned_read4, 4)
RWSK_LOAD(__tsan_unaligned_read8, 8)

/* Wider loads, volatile accesses of either kind (READ_ONCE, WRITE_ONCE:
 * the layer reports them itself). */
#define RWSK_NOTHING(name) \
    RWSK_RUNTIME void name(void *word) { (void)word; }
RWSK_NOTHING(__tsan_read16)
RWSK_NOTHING(__tsan_unaligned_read16)
RWSK_NOTHING(__tsan_volatile_read1)
RWSK_NOTHING(__tsan_volatile_read2)
RWSK_NOTHING(__tsan_volatile_read4)
RWSK_NOTHING(__tsan_volatile_read8)
RWSK_NOTHING(__tsan_volatile_read16)
RWSK_NOTHING(__tsan_volatile_write1)
RWSK_NOTHING(__tsan_volatile_write2)
RWSK_NOTHING(__tsan_volatile_write4)
RWSK_NOTHING(__tsan_volatile_write8)
RWSK_NOTHING(__tsan_volatile_write16)
RWSK_NOTHING(__tsan_unaligned_volatile_read2)
RWSK_NOTHING(__tsan_unaligned_volatile_read4)
RWSK_NOTHING(__tsan_unaligned_volatile_read8)
RWSK_NOTHING(__tsan_unaligned_volatile_read16)
RWSK_NOTHING(__tsan_unaligned_volatile_write2)
RWSK_NOTHING(__tsan_unaligned_volatile_write4)
RWSK_NOTHING(__tsan_unaligned_volatile_write8)
RWSK_NOTHING(__tsan_unaligned_volatile_write16)
RWSK_RUNTIME void __tsan_read_range(void *word, unsigned long size) { (void)word, (void)size; }

/* Plain stores. One wider than a word, or across two (an unaligned or a
 * range store: a structure copied whole), is not told: the model then
 * finds its word changed behind its back and reads memory there (a
 * "mixed" location), as it did before it saw plain stores at all. */
#define RWSK_STORE(name, size) \
    RWSK_RUNTIME void name(void *word) { rwsk_plain_store(word, size); }
RWSK_STORE(__tsan_write1, 1)
RWSK_STORE(__tsan_write2, 2)
RWSK_STORE(__tsan_write4, 4)
RWSK_STORE(__tsan_write8, 8)
RWSK_STORE(__tsan_unaligned_write2, 2)
RWSK_STORE(__tsan_unaligned_write4, 4)
RWSK_STORE(__tsan_unaligned_write8, 8)
RWSK_NOTHING(__tsan_write16)
RWSK_NOTHING(__tsan_unaligned_write16)
RWSK_RUNTIME void __tsan_write_range(void *word, unsigned long size) { (void)word, (void)size; }

/* The atomics: the operation, sequentially consistent. */
#define RWSK_SC __ATOMIC_SEQ_CST
#define RWSK_ATOMICS(bits, T)                                                                   \
    RWSK_RUNTIME T __tsan_atomic##bits##_load(const volatile void *a, int mo) {                 \
        (void)mo;                                                                               \
        return __atomic_load_n((const volatile T *)a, RWSK_SC);                                 \
    }                                                                                           \
    RWSK_RUNTIME void __tsan_atomic##bits##_store(volatile void *a, T v, int mo) {              \
        (void)mo;                                                                               \
        __atomic_store_n((volatile T *)a, v, RWSK_SC);                                          \
    }                                                                                           \
    RWSK_RUNTIME T __tsan_atomic##bits##_exchange(volatile void *a, T v, int mo) {              \
        (void)mo;                                                                               \
        return __atomic_exchange_n((volatile T *)a, v, RWSK_SC);                                \
    }                                                                                           \
    RWSK_RUNTIME T __tsan_atomic##bits##_fetch_add(volatile void *a, T v, int mo) {             \
        (void)mo;                                                                               \
        return __atomic_fetch_add((volatile T *)a, v, RWSK_SC);                                 \
    }                                                                                           \
    RWSK_RUNTIME T __tsan_atomic##bits##_fetch_sub(volatile void *a, T v, int mo) {             \
        (void)mo;                                                                               \
        return __atomic_fetch_sub((volatile T *)a, v, RWSK_SC);                                 \
    }                                                                                           \
    RWSK_RUNTIME T __tsan_atomic##bits##_fetch_and(volatile void *a, T v, int mo) {             \
        (void)mo;                                                                               \
        return __atomic_fetch_and((volatile T *)a, v, RWSK_SC);                                 \
    }                                                                                           \
    RWSK_RUNTIME T __tsan_atomic##bits##_fetch_or(volatile void *a, T v, int mo) {              \
        (void)mo;                                                                               \
        return __atomic_fetch_or((volatile T *)a, v, RWSK_SC);                                  \
    }                                                                                           \
    RWSK_RUNTIME T __tsan_atomic##bits##_fetch_xor(volatile void *a, T v, int mo) {             \
        (void)mo;                                                                               \
        return __atomic_fetch_xor((volatile T *)a, v, RWSK_SC);                                 \
    }                                                                                           \
    RWSK_RUNTIME T __tsan_atomic##bits##_fetch_nand(volatile void *a, T v, int mo) {            \
        (void)mo;                                                                               \
        return __atomic_fetch_nand((volatile T *)a, v, RWSK_SC);                                \
    }                                                                                           \
    RWSK_RUNTIME _Bool __tsan_atomic##bits##_compare_exchange_strong(volatile void *a, void *e, \
                                                                     T d, int mo, int fmo) {    \
        (void)mo, (void)fmo;                                                                    \
        return __atomic_compare_exchange_n((volatile T *)a, (T *)e, d, 0, RWSK_SC, RWSK_SC);    \
    }                                                                                           \
    RWSK_RUNTIME _Bool __tsan_atomic##bits##_compare_exchange_weak(volatile void *a, void *e,   \
                                                                   T d, int mo, int fmo) {      \
        (void)mo, (void)fmo;                                                                    \
        return __atomic_compare_exchange_n((volatile T *)a, (T *)e, d, 0, RWSK_SC, RWSK_SC);    \
    }                                                                                           \
    RWSK_RUNTIME T __tsan_atomic##bits##_compare_exchange_val(volatile void *a, T e, T d,       \
                                                              int mo, int fmo) {                \
        (void)mo, (void)fmo;                                                                    \
        __atomic_compare_exchange_n((volatile T *)a, &e, d, 0, RWSK_SC, RWSK_SC);               \
        return e;                                                                               \
    }
RWSK_ATOMICS(8, unsigned char)
RWSK_ATOMICS(16, unsigned short)
RWSK_ATOMICS(32, unsigned int)
RWSK_ATOMICS(64, unsigned long long)
RWSK_RUNTIME void __tsan_atomic_thread_fence(int mo) {
    (void)mo;
    __atomic_thread_fence(RWSK_SC);
}
RWSK_RUNTIME void __tsan_atomic_signal_fence(int mo) {
    (void)mo;
    __atomic_signal_fence(RWSK_SC);
}

#pragma GCC diagnostic pop
#undef RWSK_ATOMICS
#undef RWSK_SC
#undef RWSK_STORE
#undef RWSK_LOAD
#undef RWSK_NOTHING
#undef RWSK_RUNTIME

#endif
#endif
