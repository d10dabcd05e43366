/* C entry points for Concurrency Kit's MCS and CLH spinlocks (see
 * ck_queue_locks.c). Queues are one pointer; nodes are opaque blocks of
 * RWSTRESS_CK_NODE_BYTES. */
#ifndef RWSTRESS_CK_QUEUE_LOCKS_H
#define RWSTRESS_CK_QUEUE_LOCKS_H

#include <stdbool.h>

#define RWSTRESS_CK_NODE_BYTES 64

#ifdef __cplusplus
extern "C" {
#endif

void rwstress_ck_mcs_init(void *queue);
void rwstress_ck_mcs_lock(void *queue, void *node);
bool rwstress_ck_mcs_trylock(void *queue, void *node);
void rwstress_ck_mcs_unlock(void *queue, void *node);

void rwstress_ck_clh_init(void *queue, void *unowned);
void rwstress_ck_clh_lock(void *queue, void *node);
void *rwstress_ck_clh_unlock(void *node);

#ifdef __cplusplus
}
#endif

#endif
