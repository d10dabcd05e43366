/* Plugin locks that crash mid-run, for test_plugins: the crash must be a
 * CRASH run naming the lock and the signal, and the runs of the other locks
 * in the same session must be kept (console and --json).
 *
 *   crash-segv   a spinning mutex whose 200th lock() writes through NULL
 *   crash-abort  the same, calling abort() instead
 *   deadlock-200  the same lock, whose 200th unlock() does nothing: every
 *                  thread then waits forever (a HANG, for test_fuzz) */
#include <sched.h>
#include <stdlib.h>

#include <rwstress/plugin.h>

struct crashing {
    int locked;
    int calls;
};

static int crash_init(void *l, long count) {
    (void)l;
    (void)count;
    return 0;
}

static void take(struct crashing *c) {
    while (__atomic_exchange_n(&c->locked, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void segv_lock(void *l) {
    struct crashing *c = l;
    take(c);
    if (++c->calls == 200)
        *(volatile int *)0 = 1;
}

static void abort_lock(void *l) {
    struct crashing *c = l;
    take(c);
    if (++c->calls == 200)
        abort();
}

static void crash_unlock(void *l) {
    __atomic_store_n(&((struct crashing *)l)->locked, 0, __ATOMIC_RELEASE);
}

static void deadlock_lock(void *l) {
    struct crashing *c = l;
    take(c);
    ++c->calls;
}

static void deadlock_unlock(void *l) {
    struct crashing *c = l;
    if (c->calls != 200)
        crash_unlock(l);
}

static const struct rwstress_lock_ops segv = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "crash-segv", .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct crashing), .init = crash_init, .lock = segv_lock, .unlock = crash_unlock,
};
static const struct rwstress_lock_ops aborts = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "crash-abort", .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct crashing), .init = crash_init, .lock = abort_lock, .unlock = crash_unlock,
};

static const struct rwstress_lock_ops deadlocks = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "deadlock-200", .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct crashing), .init = crash_init, .lock = deadlock_lock,
    .unlock = deadlock_unlock,
};

const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {
    static const struct rwstress_lock_ops *const list[] = {&segv, &aborts, &deadlocks, NULL};
    return list;
}
