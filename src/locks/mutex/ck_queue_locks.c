/* Concurrency Kit's MCS and CLH spinlocks, wrapped in C: their headers do
 * not compile as C++ (void* conversions). ck_spinlocks.h adapts these
 * functions to the mutex contract. */
#include <stdbool.h>
#include <stdlib.h>

#include <spinlock/clh.h>
#include <spinlock/mcs.h>

#include "locks/mutex/ck_queue_locks.h"

_Static_assert(sizeof(struct ck_spinlock_mcs) <= RWSTRESS_CK_NODE_BYTES, "mcs node too big");
_Static_assert(sizeof(struct ck_spinlock_clh) <= RWSTRESS_CK_NODE_BYTES, "clh node too big");

void rwstress_ck_mcs_init(void *queue) { ck_spinlock_mcs_init((struct ck_spinlock_mcs **)queue); }

void rwstress_ck_mcs_lock(void *queue, void *node) {
  ck_spinlock_mcs_lock((struct ck_spinlock_mcs **)queue, (struct ck_spinlock_mcs *)node);
}

bool rwstress_ck_mcs_trylock(void *queue, void *node) {
  return ck_spinlock_mcs_trylock((struct ck_spinlock_mcs **)queue, (struct ck_spinlock_mcs *)node);
}

void rwstress_ck_mcs_unlock(void *queue, void *node) {
  ck_spinlock_mcs_unlock((struct ck_spinlock_mcs **)queue, (struct ck_spinlock_mcs *)node);
}

void rwstress_ck_clh_init(void *queue, void *unowned) {
  ck_spinlock_clh_init((struct ck_spinlock_clh **)queue, (struct ck_spinlock_clh *)unowned);
}

void rwstress_ck_clh_lock(void *queue, void *node) {
  ck_spinlock_clh_lock((struct ck_spinlock_clh **)queue, (struct ck_spinlock_clh *)node);
}

void *rwstress_ck_clh_unlock(void *node) {
  struct ck_spinlock_clh *n = (struct ck_spinlock_clh *)node;
  ck_spinlock_clh_unlock(&n);
  return n; /* the predecessor's node, now the caller's */
}
