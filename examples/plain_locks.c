/* A plain C plugin (docs/plugins.md): one lock of each family, written
 * against <rwstress/plugin.h> only, with C11 atomics and sched_yield.
 *
 *   c-rwlock     writer-preferring spinning rwlock: a writer sets its bit,
 *                then waits for the readers to drain; readers back off
 *                while the bit is set. try_lock, try_lock_shared, downgrade.
 *   c-mutex      test-and-test-and-set spinlock, with try_lock.
 *   c-semaphore  counting semaphore on one atomic count, with try_lock.
 *
 * Built with -DRWSTRESS_EXAMPLE_BROKEN it is a broken plugin instead (the
 * names end in -broken), each lock with one bug that rwstress must catch:
 * the rwlock's writer does not wait for readers to drain, the mutex's
 * acquisition is a load and a store, the semaphore's up adds two.
 *
 *   cc -shared -fPIC -O2 $(pkg-config --cflags rwstress) plain_locks.c -o plain_locks.so
 *   rwstress --plugin ./plain_locks.so --lock c-rwlock,c-mutex,c-semaphore */
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>

#include <rwstress/plugin.h>

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define NAME(n) n "-broken"
#else
#define NAME(n) n
#endif

/* Spins a while, then yields: the holder may have lost its CPU. */
static void relax(unsigned *spins) {
    if (++*spins % 128 == 0)
        sched_yield();
    else
        __builtin_ia32_pause();
}

/* ---- c-rwlock ---------------------------------------------------------- */

#define WRITER 0x80000000u /* the rest of the word counts the readers */

struct c_rwlock {
    _Atomic unsigned word;
};

static int rw_init(void *l, long count) {
    (void)count;
    atomic_init(&((struct c_rwlock *)l)->word, 0);
    return 0;
}

static int rw_try_lock_shared(void *l) {
    struct c_rwlock *rw = l;
    unsigned w = atomic_fetch_add_explicit(&rw->word, 1, memory_order_acquire);
    if (!(w & WRITER))
        return 1;
    atomic_fetch_sub_explicit(&rw->word, 1, memory_order_relaxed);
    return 0;
}

static void rw_lock_shared(void *l) {
    struct c_rwlock *rw = l;
    unsigned spins = 0;
    while (!rw_try_lock_shared(l))
        while (atomic_load_explicit(&rw->word, memory_order_relaxed) & WRITER)
            relax(&spins);
}

static void rw_unlock_shared(void *l) {
    atomic_fetch_sub_explicit(&((struct c_rwlock *)l)->word, 1, memory_order_release);
}

static int rw_try_lock(void *l) {
    unsigned expected = 0;
    return atomic_compare_exchange_strong_explicit(&((struct c_rwlock *)l)->word, &expected,
                                                   WRITER, memory_order_acquire,
                                                   memory_order_relaxed);
}

static void rw_lock(void *l) {
    struct c_rwlock *rw = l;
    unsigned spins = 0;
    /* Claim the writer bit (newcomer readers now back off)... */
    for (;;) {
        unsigned w = atomic_load_explicit(&rw->word, memory_order_relaxed);
        if (!(w & WRITER) &&
            atomic_compare_exchange_weak_explicit(&rw->word, &w, w | WRITER,
                                                  memory_order_acquire, memory_order_relaxed))
            break;
        relax(&spins);
    }
#ifndef RWSTRESS_EXAMPLE_BROKEN
    /* ...then wait for the readers inside to leave. */
    while (atomic_load_explicit(&rw->word, memory_order_acquire) != WRITER)
        relax(&spins);
#endif
}

static void rw_unlock(void *l) {
    atomic_fetch_and_explicit(&((struct c_rwlock *)l)->word, ~WRITER, memory_order_release);
}

static void rw_downgrade(void *l) {
    /* One reader in, the writer bit out, in one step: nobody gets between. */
    atomic_fetch_add_explicit(&((struct c_rwlock *)l)->word, 1u - WRITER, memory_order_release);
}

static const struct rwstress_lock_ops c_rwlock_ops = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = NAME("c-rwlock"),
    .family = RWSTRESS_FAMILY_RWLOCK,
    .size = sizeof(struct c_rwlock),
    .init = rw_init,
    .lock = rw_lock,
    .unlock = rw_unlock,
    .lock_shared = rw_lock_shared,
    .unlock_shared = rw_unlock_shared,
    .try_lock = rw_try_lock,
    .try_lock_shared = rw_try_lock_shared,
    .downgrade = rw_downgrade,
};

/* ---- c-mutex ----------------------------------------------------------- */

struct c_mutex {
    _Atomic int locked;
};

static int mx_init(void *l, long count) {
    (void)count;
    atomic_init(&((struct c_mutex *)l)->locked, 0);
    return 0;
}

static int mx_try_lock(void *l) {
    struct c_mutex *m = l;
#ifdef RWSTRESS_EXAMPLE_BROKEN
    if (atomic_load_explicit(&m->locked, memory_order_relaxed))
        return 0;
    sched_yield(); /* widen the window between the look and the store */
    atomic_store_explicit(&m->locked, 1, memory_order_relaxed);
    return 1;
#else
    return !atomic_load_explicit(&m->locked, memory_order_relaxed) &&
           !atomic_exchange_explicit(&m->locked, 1, memory_order_acquire);
#endif
}

static void mx_lock(void *l) {
    unsigned spins = 0;
    while (!mx_try_lock(l))
        relax(&spins);
}

static void mx_unlock(void *l) {
    atomic_store_explicit(&((struct c_mutex *)l)->locked, 0, memory_order_release);
}

static const struct rwstress_lock_ops c_mutex_ops = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = NAME("c-mutex"),
    .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct c_mutex),
    .init = mx_init,
    .lock = mx_lock,
    .unlock = mx_unlock,
    .try_lock = mx_try_lock,
};

/* ---- c-semaphore ------------------------------------------------------- */

struct c_semaphore {
    _Atomic long count;
};

static int sem_init(void *l, long count) {
    if (count < 0)
        return -1;
    atomic_init(&((struct c_semaphore *)l)->count, count);
    return 0;
}

static int sem_try_down(void *l) {
    struct c_semaphore *s = l;
    long c = atomic_load_explicit(&s->count, memory_order_relaxed);
    while (c > 0)
        if (atomic_compare_exchange_weak_explicit(&s->count, &c, c - 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return 1;
    return 0;
}

static void sem_down(void *l) {
    unsigned spins = 0;
    while (!sem_try_down(l))
        relax(&spins);
}

static void sem_up(void *l) {
#ifdef RWSTRESS_EXAMPLE_BROKEN
    atomic_fetch_add_explicit(&((struct c_semaphore *)l)->count, 2, memory_order_release);
#else
    atomic_fetch_add_explicit(&((struct c_semaphore *)l)->count, 1, memory_order_release);
#endif
}

static const struct rwstress_lock_ops c_semaphore_ops = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = NAME("c-semaphore"),
    .family = RWSTRESS_FAMILY_SEMAPHORE,
    .size = sizeof(struct c_semaphore),
    .init = sem_init,
    .lock = sem_down,
    .unlock = sem_up,
    .try_lock = sem_try_down,
};

const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {
    static const struct rwstress_lock_ops *const locks[] = {
        &c_rwlock_ops, &c_mutex_ops, &c_semaphore_ops, NULL};
    return locks;
}
