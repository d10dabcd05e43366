/* A plain C plugin that sleeps (docs/plugins.md): the ordinary way to write
 * a futex lock, with C11 atomics, <linux/futex.h> and syscall(2), built
 * against <rwstress/plugin.h> alone (pkg-config module rwstress, CMake
 * target rwstress::plugin; the kernel-compat layer is not on its path).
 *
 *   futex-mutex      three-state mutex (0 free, 1 held, 2 held with
 *                    waiters): the unlocker wakes one waiter only when the
 *                    word said someone may sleep. try_lock.
 *   futex-semaphore  counting semaphore: the count, and a waiter count that
 *                    tells up() whether a FUTEX_WAKE is owed. try_lock.
 *
 *   cc -shared -fPIC -O2 $(pkg-config --cflags rwstress) futex_locks.c -o futex_locks.so
 *   rwstress --plugin ./futex_locks.so --lock futex-mutex,futex-semaphore */
/* <stdatomic.h> before <linux/futex.h>: on the layer's path the latter would
 * pull in the kernel's atomic_* macros over C11's (the reason a plain plugin
 * builds with the rwstress module, not rwstress-kernel). */
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rwstress/plugin.h>

/* Sleeps while *word == expected (a changed word returns at once). */
static void futex_wait(atomic_uint *word, unsigned expected) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *word, int how_many) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, how_many, NULL, NULL, 0);
}

/* ---- futex-mutex --------------------------------------------------------- */

enum { FREE = 0, HELD = 1, CONTENDED = 2 };

struct futex_mutex {
    atomic_uint word;
};

static int mutex_init(void *p, long count) {
    (void)count;
    atomic_init(&((struct futex_mutex *)p)->word, FREE);
    return 0;
}

static void mutex_lock(void *p) {
    struct futex_mutex *m = p;
    unsigned seen = FREE;
    if (atomic_compare_exchange_strong_explicit(&m->word, &seen, HELD, memory_order_acquire,
                                                memory_order_relaxed))
        return;
    /* From here on the word says CONTENDED whenever this thread holds or
     * may sleep: whoever unlocks next then knows to wake. */
    if (seen != CONTENDED)
        seen = atomic_exchange_explicit(&m->word, CONTENDED, memory_order_acquire);
    while (seen != FREE) {
        futex_wait(&m->word, CONTENDED);
        seen = atomic_exchange_explicit(&m->word, CONTENDED, memory_order_acquire);
    }
}

static int mutex_try_lock(void *p) {
    struct futex_mutex *m = p;
    unsigned seen = FREE;
    return atomic_compare_exchange_strong_explicit(&m->word, &seen, HELD, memory_order_acquire,
                                                   memory_order_relaxed);
}

static void mutex_unlock(void *p) {
    struct futex_mutex *m = p;
    if (atomic_exchange_explicit(&m->word, FREE, memory_order_release) == CONTENDED)
        futex_wake(&m->word, 1);
}

static const struct rwstress_lock_ops futex_mutex_ops = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = "futex-mutex",
    .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct futex_mutex),
    .init = mutex_init,
    .lock = mutex_lock,
    .unlock = mutex_unlock,
    .try_lock = mutex_try_lock,
};

/* ---- futex-semaphore ----------------------------------------------------- */

struct futex_semaphore {
    atomic_uint count;   /* units free: the futex word */
    atomic_uint waiters; /* threads in (or about to enter) FUTEX_WAIT */
};

static int semaphore_init(void *p, long count) {
    struct futex_semaphore *s = p;
    if (count < 0 || count > INT_MAX)
        return -1;
    atomic_init(&s->count, (unsigned)count);
    atomic_init(&s->waiters, 0);
    return 0;
}

static int semaphore_try_down(void *p) {
    struct futex_semaphore *s = p;
    unsigned seen = atomic_load_explicit(&s->count, memory_order_relaxed);
    while (seen != 0)
        if (atomic_compare_exchange_weak_explicit(&s->count, &seen, seen - 1,
                                                  memory_order_acquire, memory_order_relaxed))
            return 1;
    return 0;
}

static void semaphore_down(void *p) {
    struct futex_semaphore *s = p;
    while (!semaphore_try_down(s)) {
        /* Counted before the last look at the count (both seq_cst): an up()
         * that adds a unit after that look sees this waiter and wakes. */
        atomic_fetch_add(&s->waiters, 1);
        if (atomic_load(&s->count) == 0)
            futex_wait(&s->count, 0);
        atomic_fetch_sub(&s->waiters, 1);
    }
}

static void semaphore_up(void *p) {
    struct futex_semaphore *s = p;
    atomic_fetch_add(&s->count, 1);
    if (atomic_load(&s->waiters) != 0)
        futex_wake(&s->count, 1);
}

static const struct rwstress_lock_ops futex_semaphore_ops = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = "futex-semaphore",
    .family = RWSTRESS_FAMILY_SEMAPHORE,
    .size = sizeof(struct futex_semaphore),
    .init = semaphore_init,
    .lock = semaphore_down,
    .unlock = semaphore_up,
    .try_lock = semaphore_try_down,
};

const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {
    static const struct rwstress_lock_ops *const locks[] = {&futex_mutex_ops,
                                                           &futex_semaphore_ops, NULL};
    return locks;
}
