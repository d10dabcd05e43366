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
 *                  still ends on time, PASS
 *   sem-leak-50  a futex semaphore whose 50th up() loses its unit: the
 *                  count goes down by one for good ("units lost")
 *   sem-futex    the same semaphore without the bug: PASS (it has no
 *                  try_lock, so the after-run check takes units with down())
 *   sem-timeout  a futex semaphore with try_lock and lock_timeout (plugin
 *                  ABI 4): the timed run takes one trylock turn in two
 *                  through lock_timeout; PASS
 *   sem-timeout-grants  the same, whose lock_timeout says it took a unit
 *                  when its time ran out: the semantics probe's down_timeout
 *                  with every unit taken "succeeds" (trylock-truth) */
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <sys/syscall.h>
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

struct leaky {
    int count;
    int ups;
    int leak_at; /* the up() that loses its unit; 0: none */
};

static int leaky_init(void *l, long count) {
    ((struct leaky *)l)->count = (int)count;
    ((struct leaky *)l)->leak_at = 50;
    return 0;
}

static int futex_sem_init(void *l, long count) {
    ((struct leaky *)l)->count = (int)count;
    return 0;
}

static void leaky_down(void *l) {
    struct leaky *s = l;
    for (;;) {
        int c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
        if (c > 0 && __atomic_compare_exchange_n(&s->count, &c, c - 1, 0, __ATOMIC_ACQUIRE,
                                                 __ATOMIC_RELAXED))
            return;
        if (c <= 0)
            syscall(SYS_futex, &s->count, FUTEX_WAIT_PRIVATE, c, NULL, NULL, 0);
    }
}

static void leaky_up(void *l) {
    struct leaky *s = l;
    if (__atomic_add_fetch(&s->ups, 1, __ATOMIC_RELAXED) == s->leak_at)
        return; /* the bug: this unit is never given back */
    __atomic_add_fetch(&s->count, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &s->count, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static const struct rwstress_lock_ops leaks = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "sem-leak-50", .family = RWSTRESS_FAMILY_SEMAPHORE,
    .size = sizeof(struct leaky), .init = leaky_init, .lock = leaky_down, .unlock = leaky_up,
};

static const struct rwstress_lock_ops futex_sem = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "sem-futex", .family = RWSTRESS_FAMILY_SEMAPHORE,
    .size = sizeof(struct leaky), .init = futex_sem_init, .lock = leaky_down, .unlock = leaky_up,
};

struct timed_sem {
    int count;
};

static int timed_init(void *l, long count) {
    ((struct timed_sem *)l)->count = (int)count;
    return 0;
}

static int timed_try(void *l) {
    struct timed_sem *s = l;
    int c = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
    while (c > 0)
        if (__atomic_compare_exchange_n(&s->count, &c, c - 1, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            return 1;
    return 0;
}

static void timed_down(void *l) {
    struct timed_sem *s = l;
    while (!timed_try(s))
        syscall(SYS_futex, &s->count, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static void timed_up(void *l) {
    struct timed_sem *s = l;
    __atomic_add_fetch(&s->count, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &s->count, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static long long monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* 1 with a unit taken; when the time runs out, `expired` (0 for the
 * correct one; 1, a unit it does not have, for the broken one). */
static int timed_wait(struct timed_sem *s, unsigned long long ns, int expired) {
    const long long deadline = monotonic_ns() + (long long)ns;
    for (;;) {
        if (timed_try(s)) return 1;
        const long long left = deadline - monotonic_ns();
        if (left <= 0) return expired;
        struct timespec rel = {(time_t)(left / 1000000000LL), (long)(left % 1000000000LL)};
        syscall(SYS_futex, &s->count, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0);
    }
}

static int timed_down_timeout(void *l, unsigned long long ns) { return timed_wait(l, ns, 0); }
static int granting_down_timeout(void *l, unsigned long long ns) { return timed_wait(l, ns, 1); }

static const struct rwstress_lock_ops timed_sem = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "sem-timeout", .family = RWSTRESS_FAMILY_SEMAPHORE,
    .size = sizeof(struct timed_sem), .init = timed_init, .lock = timed_down, .unlock = timed_up,
    .try_lock = timed_try, .lock_timeout = timed_down_timeout,
};

static const struct rwstress_lock_ops granting_sem = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "sem-timeout-grants", .family = RWSTRESS_FAMILY_SEMAPHORE,
    .size = sizeof(struct timed_sem), .init = timed_init, .lock = timed_down, .unlock = timed_up,
    .try_lock = timed_try, .lock_timeout = granting_down_timeout,
};

const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {
    static const struct rwstress_lock_ops *const list[] = {&segv, &aborts, &deadlocks, &exits,
                                                           &forks, &leaks, &futex_sem,
                                                           &timed_sem, &granting_sem, NULL};
    return list;
}
