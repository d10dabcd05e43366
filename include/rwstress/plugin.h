/* rwstress plugin ABI, version 1: bring your own lock (docs/plugins.md).
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

#define RWSTRESS_PLUGIN_ABI 1

enum rwstress_family {
    RWSTRESS_FAMILY_RWLOCK    = 1,
    RWSTRESS_FAMILY_SEMAPHORE = 2,
    RWSTRESS_FAMILY_MUTEX     = 3
};

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
};

/* The one symbol a plugin exports: a NULL-terminated array of lock ops. */
const struct rwstress_lock_ops *const *rwstress_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* RWSTRESS_PLUGIN_H */
