/* rwstress plugin ABI, version 5: bring your own lock (docs/plugins.md).
 *
 * A plugin is a shared object that exports one symbol, rwstress_plugin_v1,
 * returning a NULL-terminated array of lock ops. rwstress allocates each lock
 * object itself (`size` bytes, 64-byte aligned, zeroed), calls `init` on it
 * before a run and `destroy` after. Build one with
 *
 *     cc -shared -fPIC -O2 $(pkg-config --cflags rwstress) mylock.c -o mylock.so
 *
 * and run it with `rwstress --plugin ./mylock.so --lock NAME`. Plain C;
 * usable from C++. */
#ifndef RWSTRESS_PLUGIN_H
#define RWSTRESS_PLUGIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2 added `fairness` and `flags` at the end. A plugin built for ABI 1 keeps
 * loading: its table ends before them, and it is judged unfair, without
 * flags. 3 added `not_idle`; a plugin built for ABI 1 or 2 keeps loading,
 * and only the trylock check of a free lock runs after a run. 4 added
 * `lock_timeout`; a plugin built for ABI 1 to 3 keeps loading, and its
 * semaphore is run without a timed entry point. 5 added `handoff_waiter`;
 * an older table ends before it, and explore judges its hand-off waits by
 * time alone (explore --fair). */
#define RWSTRESS_PLUGIN_ABI 5

enum rwstress_family {
    RWSTRESS_FAMILY_RWLOCK    = 1,
    RWSTRESS_FAMILY_SEMAPHORE = 2,
    RWSTRESS_FAMILY_MUTEX     = 3
};

/* The promise the lock makes, which rwstress then judges (docs/checkers.md):
 * a thread of a promised role that gets (almost) no share of the lock, or
 * a hand-off lock's waiter kept waiting far past its bound, is STARVED. */
enum rwstress_fairness {
    RWSTRESS_FAIRNESS_UNFAIR      = 0,  /* no promise (the default; ABI 1 plugins) */
    RWSTRESS_FAIRNESS_TASK_FAIR   = 1,  /* FIFO: nobody is overtaken indefinitely */
    RWSTRESS_FAIRNESS_PHASE_FAIR  = 2,  /* read and write phases alternate */
    RWSTRESS_FAIRNESS_READER_PREF = 3,  /* readers progress; writers may starve */
    RWSTRESS_FAIRNESS_WRITER_PREF = 4,  /* writers progress; readers may starve */
    RWSTRESS_FAIRNESS_HANDOFF     = 5   /* stealing allowed, every wait bounded by a hand-off
                                           (the kernel's rwsem and mutex) */
};

/* flags */
#define RWSTRESS_LOCK_SPINS 1u  /* waiters spin and never sleep: no wake-up to lose, and a
                                   promise is not judged with more threads than CPUs */
#define RWSTRESS_LOCK_KILLABLE 2u /* some acquisitions take a killable or interruptible entry
                                     point, as many as the run's --killable-every says (the
                                     kernel-compat glue: rwstress_kernel_host.acquire_kind) */
#define RWSTRESS_LOCK_CONTROLLED 4u /* every access other threads see, every busy-wait turn and
                                       every sleep goes through <rwstress/explore.h>'s points:
                                       `rwstress explore` may run it (the plugin must export
                                       rwstress_explore_attach_v1, which that header defines; the
                                       kernel-compat layer built with -DRWSTRESS_KERNEL_EXPLORE
                                       needs no flag) */

struct rwstress_lock_ops {
    unsigned abi;                 /* RWSTRESS_PLUGIN_ABI */
    const char *name;             /* unique, [a-z0-9._-]+ */
    enum rwstress_family family;
    size_t size;                  /* bytes of one lock object; rwstress allocates it, 64-byte aligned, zeroed */
    int  (*init)(void *lock, long count);   /* count: initial count for semaphores, else 0; 0 = success */
    void (*destroy)(void *lock);            /* may be NULL */
    void (*lock)(void *lock);               /* rwlock: down_write; mutex: lock; semaphore: down */
    void (*unlock)(void *lock);             /* rwlock: up_write;   mutex: unlock; semaphore: up */
    void (*lock_shared)(void *lock);        /* rwlock: down_read; NULL for other families */
    void (*unlock_shared)(void *lock);      /* rwlock: up_read;   NULL for other families */
    int  (*try_lock)(void *lock);           /* optional (NULL): 1 = acquired, 0 = not */
    int  (*try_lock_shared)(void *lock);    /* optional, rwlock only */
    void (*downgrade)(void *lock);          /* optional, rwlock only: write -> read */
    /* ABI 2 */
    enum rwstress_fairness fairness;        /* left out (0): unfair */
    unsigned flags;                         /* RWSTRESS_LOCK_SPINS | _KILLABLE | _CONTROLLED, or 0 */
    /* ABI 3 */
    /* Optional (NULL): called after every thread of a run has left the lock
     * (a timed run whose threads all finished, an explore schedule that ran
     * to its end). Returns NULL when every field is back at rest (the lock
     * word, the wait list, a spinner queue, a hand-off bit), else a short
     * line naming the field that is not ("the OSQ is held"): the run FAILs
     * `not-idle` with it (docs/checkers.md). */
    const char *(*not_idle)(void *lock);
    /* ABI 4 */
    /* Optional (NULL), semaphores only: down() with a time limit, as the
     * kernel's down_timeout(): waits at most timeout_ns (relative) for a
     * unit; 1 = it took one, 0 = the time ran out and it took nothing. A
     * unit handed over just as the time runs out is taken (1), never lost.
     * Timed runs take one trylock turn in two through it; explore takes one
     * acquisition in three through it, with the expiry a choice of the
     * schedule where the plugin waits through <rwstress/explore.h>'s timed
     * futex_wait (docs/plugins.md). */
    int (*lock_timeout)(void *lock, unsigned long long timeout_ns);
    /* ABI 5 */
    /* Optional (NULL), for hand-off locks: the waiter the lock owes the
     * lock next because it asked for it (the kernel's mutex.c and rwsem.c:
     * a HANDOFF bit set for their first waiter), as that thread's kernel
     * thread id (gettid()); 0 when it owes nobody. Read only: explore calls
     * it between two steps of a schedule, with every thread stopped, so it
     * must not take a lock, sleep or reach a scheduling point (plain or
     * __atomic loads of the lock's fields). From the step it names a waiter,
     * every acquisition by a newcomer (a thread that asked after that step;
     * two readers excepted) while that waiter still waits is an overtaking;
     * more than one per thread is STARVED `handoff-starved`
     * (docs/checkers.md), in any schedule, fair or not. */
    int (*handoff_waiter)(void *lock);
};

/* The one symbol a plugin exports: a NULL-terminated array of lock ops. */
const struct rwstress_lock_ops *const *rwstress_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* RWSTRESS_PLUGIN_H */
