/* Plugin locks that crash mid-run, for test_plugins: the crash must be a
 * CRASH run naming the lock and the signal, and the runs of the other locks
 * in the same session must be kept (console and --json).
 *
 *   crash-segv   a spinning mutex whose 200th lock() writes through NULL
 *   crash-abort  the same, calling abort() instead
 *   deadlock-200  the same lock, whose 200th unlock() does nothing: every
 *                  thread then waits forever (a HANG, for test_fuzz)
 *   exit-200     the same, calling exit(0) instead: a CRASH, not a HANG
 *   fork-sleeper a correct lock whose first lock() forks a process that
 *                  sleeps 40 s holding every inherited descriptor: the run
 *                  still ends on time, PASS */
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

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

static void exit_lock(void *l) {
    struct crashing *c = l;
    take(c);
    if (++c->calls == 200)
        exit(0);
}

static void fork_lock(void *l) {
    struct crashing *c = l;
    take(c);
    if (++c->calls == 1 && fork() == 0) {
        sleep(40);
        _exit(0);
    }
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

static const struct rwstress_lock_ops exits = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "exit-200", .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct crashing), .init = crash_init, .lock = exit_lock, .unlock = crash_unlock,
};
static const struct rwstress_lock_ops forks = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "fork-sleeper", .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct crashing), .init = crash_init, .lock = fork_lock, .unlock = crash_unlock,
};

const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {
    static const struct rwstress_lock_ops *const list[] = {&segv, &aborts, &deadlocks, &exits,
                                                           &forks, NULL};
    return list;
}
