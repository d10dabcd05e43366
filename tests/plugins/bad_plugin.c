/* Plugins that rwstress must refuse with one line and exit 2 (test_plugins).
 * Built once per BAD_* macro; each breaks the ABI in one way. */
#include <stddef.h>

#include <rwstress/plugin.h>

__attribute__((unused)) static int ok_init(void *l, long c) { (void)l; (void)c; return 0; }
__attribute__((unused)) static int failing_init(void *l, long c) { (void)l; (void)c; return -22; }
static void nop(void *l) { (void)l; }

static const struct rwstress_lock_ops ops = {
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
#else
    .init = ok_init,
#endif
    .lock = nop,
#ifndef BAD_MISSING_UNLOCK
    .unlock = nop,
#endif
    .lock_shared = nop,
    .unlock_shared = nop,
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
