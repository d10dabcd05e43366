/* The kernel-compat layer's <linux/rcupdate.h>: RCU on the host's liburcu: read-side sections, grace periods, call_rcu.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_RCUPDATE_H
#define RWSTRESS_LAYER_LINUX_RCUPDATE_H

/* RCU on the host's liburcu (urcu-memb): read-side sections nest, and
 * synchronize_rcu() waits for every one begun before it. */
#define rcu_read_lock() ((__rwsk_host()->rcu_read_lock)())
#define rcu_read_unlock() ((__rwsk_host()->rcu_read_unlock)())
#define rcu_read_lock_sched() rcu_read_lock()
#define rcu_read_unlock_sched() rcu_read_unlock()
#define rcu_read_lock_bh() rcu_read_lock()
#define rcu_read_unlock_bh() rcu_read_unlock()
#define rcu_read_lock_held() ((__rwsk_host()->rcu_read_ongoing)())
#define rcu_read_lock_sched_held() rcu_read_lock_held()
#define rcu_read_lock_any_held() rcu_read_lock_held()
#define synchronize_rcu() ((__rwsk_host()->synchronize_rcu)())
#define synchronize_rcu_expedited() synchronize_rcu()
#define synchronize_rcu_sched() synchronize_rcu()
#define rcu_barrier() ((__rwsk_host()->rcu_barrier)())
#define callback_head rwstress_kernel_rcu_head
#define rcu_head rwstress_kernel_rcu_head
typedef void (*rcu_callback_t)(struct rcu_head *head);
static inline void call_rcu(struct rcu_head *head, rcu_callback_t func) {
  head->func = func;
  (__rwsk_host()->call_rcu)(head);
}
#define rcu_dereference(p) READ_ONCE(p)
#define rcu_dereference_raw(p) READ_ONCE(p)
#define rcu_dereference_sched(p) READ_ONCE(p)
#define rcu_dereference_protected(p, c) (p)
#define rcu_access_pointer(p) READ_ONCE(p)
#define rcu_assign_pointer(p, v) smp_store_release(&(p), (v))
#define RCU_INIT_POINTER(p, v) WRITE_ONCE(p, v)

#endif /* RWSTRESS_LAYER_LINUX_RCUPDATE_H */
