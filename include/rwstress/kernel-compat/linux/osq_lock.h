/* The kernel-compat layer's <linux/osq_lock.h>: the optimistic spin queue
 * that rwsem.c and mutex.c spin on with CONFIG_*_SPIN_ON_OWNER (the
 * kernel's osq_lock.c implements it; link that file). */
#ifndef RWSTRESS_LINUX_OSQ_LOCK_H
#define RWSTRESS_LINUX_OSQ_LOCK_H
#include <rwstress/kernel.h>
#include <linux/version.h>

struct optimistic_spin_queue {
  atomic_t tail; /* encoded CPU number of the queue's tail node; 0: empty */
};
/* The per-CPU queue node: declared here up to 6.7; osq_lock.c declares it
 * itself from 6.8 on. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 8, 0)
struct optimistic_spin_node {
  struct optimistic_spin_node *next, *prev;
  int locked; /* 1 if lock acquired */
  int cpu;    /* encoded CPU # + 1 value */
};
#endif
#define OSQ_UNLOCKED_VAL (0)
#define OSQ_LOCK_UNLOCKED { ATOMIC_INIT(OSQ_UNLOCKED_VAL) }
static inline void osq_lock_init(struct optimistic_spin_queue *lock) {
  atomic_set(&lock->tail, OSQ_UNLOCKED_VAL);
}
extern bool osq_lock(struct optimistic_spin_queue *lock);
extern void osq_unlock(struct optimistic_spin_queue *lock);
static inline bool osq_is_locked(struct optimistic_spin_queue *lock) {
  return atomic_read(&lock->tail) != OSQ_UNLOCKED_VAL;
}
#endif
