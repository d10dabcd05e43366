/* The kernel-compat layer's <linux/rcu_sync.h>: rcu_sync, on the layer's RCU.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_RCU_SYNC_H
#define RWSTRESS_LAYER_LINUX_RCU_SYNC_H

/* ---- rcu_sync (<linux/rcu_sync.h>) ------------------------------------------
 * Readers test rcu_sync_is_idle() inside a read-side section and take their
 * fast path while it is; rcu_sync_enter() makes it false and waits a grace
 * period, so that every reader that saw it idle has left; rcu_sync_exit()
 * lets it become idle again after a grace period (call_rcu), so a writer
 * that comes back soon finds the readers still on their slow path and pays
 * no new grace period. */
enum { __RWSK_GP_IDLE = 0, __RWSK_GP_ENTER, __RWSK_GP_PASSED, __RWSK_GP_EXIT };
struct rcu_sync {
  int gp_state;
  int gp_count;
  wait_queue_head_t gp_wait;
  struct rcu_head cb_head;
  int cb_queued;
};
static inline void rcu_sync_init(struct rcu_sync *rsp) {
  memset(rsp, 0, sizeof(*rsp));
  init_waitqueue_head(&rsp->gp_wait);
}
static inline bool rcu_sync_is_idle(struct rcu_sync *rsp) {
  if (unlikely(!rcu_read_lock_any_held()))
    __rwsk_warn(__FILE__, __LINE__, "rcu_sync_is_idle() outside an RCU read-side section");
  return READ_ONCE(rsp->gp_state) == __RWSK_GP_IDLE;
}
static inline void __rwsk_rcu_sync_idle(struct rcu_head *head) {
  struct rcu_sync *rsp = container_of(head, struct rcu_sync, cb_head);
  spin_lock_irq(&rsp->gp_wait.lock);
  rsp->cb_queued = 0;
  if (rsp->gp_count == 0 && rsp->gp_state == __RWSK_GP_EXIT) WRITE_ONCE(rsp->gp_state, __RWSK_GP_IDLE);
  spin_unlock_irq(&rsp->gp_wait.lock);
}
static inline void rcu_sync_enter(struct rcu_sync *rsp) {
  spin_lock_irq(&rsp->gp_wait.lock);
  const int was = rsp->gp_state;
  if (was == __RWSK_GP_IDLE)
    WRITE_ONCE(rsp->gp_state, __RWSK_GP_ENTER);
  else if (was == __RWSK_GP_EXIT) /* never became idle: readers are still on their slow path */
    WRITE_ONCE(rsp->gp_state, __RWSK_GP_PASSED);
  rsp->gp_count++;
  spin_unlock_irq(&rsp->gp_wait.lock);
  if (was == __RWSK_GP_IDLE) {
    synchronize_rcu();
    spin_lock_irq(&rsp->gp_wait.lock);
    WRITE_ONCE(rsp->gp_state, __RWSK_GP_PASSED);
    spin_unlock_irq(&rsp->gp_wait.lock);
    wake_up_all(&rsp->gp_wait);
  } else {
    wait_event(rsp->gp_wait, READ_ONCE(rsp->gp_state) >= __RWSK_GP_PASSED);
  }
}
static inline void rcu_sync_exit(struct rcu_sync *rsp) {
  spin_lock_irq(&rsp->gp_wait.lock);
  WARN_ON_ONCE(rsp->gp_count <= 0);
  if (--rsp->gp_count == 0) {
    WRITE_ONCE(rsp->gp_state, __RWSK_GP_EXIT);
    if (!rsp->cb_queued) {
      rsp->cb_queued = 1;
      call_rcu(&rsp->cb_head, __rwsk_rcu_sync_idle);
    }
  }
  spin_unlock_irq(&rsp->gp_wait.lock);
}
/* The owner frees it: nobody may be inside, and no callback may be left. */
static inline void rcu_sync_dtor(struct rcu_sync *rsp) {
  WARN_ON_ONCE(READ_ONCE(rsp->gp_count) != 0);
  if (READ_ONCE(rsp->cb_queued)) rcu_barrier();
}

#endif /* RWSTRESS_LAYER_LINUX_RCU_SYNC_H */
