/* Plugins that rwstress must refuse with one line and exit 2 (test_plugins).
 * Built once per BAD_* macro; each breaks the ABI in one way, or misbehaves
 * at load time (a constructor or init() that crashes, hangs or exits). */
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include <rwstress/plugin.h>

__attribute__((unused)) static int ok_init(void *l, long c) { (void)l; (void)c; return 0; }
__attribute__((unused)) static int failing_init(void *l, long c) { (void)l; (void)c; return -22; }
static void nop(void *l) { (void)l; }
__attribute__((unused)) static int nobody(void *l) { (void)l; return 0; }
__attribute__((unused)) static int timed_nop(void *l, unsigned long long ns) {
    (void)l;
    (void)ns;
    return 1;
}

#if defined(BAD_INIT_SEGV)
static int bad_init(void *l, long c) { (void)l; (void)c; *(volatile int *)0 = 1; return 0; }
#elif defined(BAD_INIT_HANG)
static int bad_init(void *l, long c) { (void)l; (void)c; for (;;) pause(); return 0; }
#elif defined(BAD_INIT_EXIT)
static int bad_init(void *l, long c) { (void)l; (void)c; exit(0); }
#endif
#if defined(BAD_CTOR_SEGV)
/* Through a volatile pointer: GCC drops a constructor that stores to a
 * constant null outright. */
static int *volatile nowhere;
__attribute__((constructor)) static void bad_ctor(void) { *nowhere = 1; }
#elif defined(BAD_CTOR_EXIT)
__attribute__((constructor)) static void bad_ctor(void) { exit(0); }
#endif

__attribute__((unused)) static const struct rwstress_lock_ops ops = {
#ifdef BAD_ABI
    .abi = RWSTRESS_PLUGIN_ABI + 1,
#else
    .abi = RWSTRESS_PLUGIN_ABI,
#endif
#if defined(BAD_NAME)
    .name = "Bad Name",
#elif defined(BAD_DUPLICATE)
    .name = "xadd",
#else
    .name = "bad-plugin-lock",
#endif
#ifdef BAD_FAMILY
    .family = (enum rwstress_family)7,
#elif defined(BAD_SHARED_IN_MUTEX)
    .family = RWSTRESS_FAMILY_MUTEX,
#else
    .family = RWSTRESS_FAMILY_RWLOCK,
#endif
    .size = 8,
#ifdef BAD_INIT_FAILS
    .init = failing_init,
#elif defined(BAD_INIT_SEGV) || defined(BAD_INIT_HANG) || defined(BAD_INIT_EXIT)
    .init = bad_init,
#else
    .init = ok_init,
#endif
    .lock = nop,
#ifndef BAD_MISSING_UNLOCK
    .unlock = nop,
#endif
    .lock_shared = nop,
    .unlock_shared = nop,
#ifdef BAD_FAIRNESS
    .fairness = (enum rwstress_fairness)9,
#endif
#ifdef BAD_FLAGS
    .flags = 0x80,
#endif
#ifdef BAD_TIMEOUT_IN_RWLOCK /* lock_timeout is a semaphore's */
    .lock_timeout = timed_nop,
#endif
#ifdef BAD_HANDOFF_WAITER /* a hand-off owed by a lock that promises none */
    .handoff_waiter = nobody,
#endif
#ifdef BAD_CONTROLLED /* explorable, it says, but it marks no points */
    .flags = RWSTRESS_LOCK_CONTROLLED,
#endif
};

#ifdef BAD_NO_SYMBOL
const struct rwstress_lock_ops *const *rwstress_plugin_v2(void) {
#else
const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {
#endif
#if defined(BAD_EMPTY)
    static const struct rwstress_lock_ops *const locks[] = {NULL};
#elif defined(BAD_TWICE)
    static const struct rwstress_lock_ops *const locks[] = {&ops, &ops, NULL};
#else
    static const struct rwstress_lock_ops *const locks[] = {&ops, NULL};
#endif
    return locks;
}
