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
 * no new grace period. The kernel's state machine (kernel/rcu/sync.c): an
 * exit while the callback of an earlier one is still queued asks it to
 * wait one more grace period (GP_REPLAY), so that idle is never declared
 * by a grace period that began before the last writer's section ended (a
 * reader that then saw it idle could miss that writer's data). */
enum {
  __RWSK_GP_IDLE = 0,
  __RWSK_GP_ENTER,
  __RWSK_GP_PASSED,
  __RWSK_GP_EXIT,
  __RWSK_GP_REPLAY
};
struct rcu_sync {
  int gp_state;
  int gp_count;
  wait_queue_head_t gp_wait;
  struct rcu_head cb_head;
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
/* A grace period after the state was last changed: writers inside are
 * past it (GP_PASSED, and wake); an exit came meanwhile: one more; else
 * idle. The callback, and rcu_sync_enter()'s own after its grace period. */
static inline void __rwsk_rcu_sync_func(struct rcu_head *head) {
  struct rcu_sync *rsp = container_of(head, struct rcu_sync, cb_head);
  bool passed = false;
  spin_lock_irq(&rsp->gp_wait.lock);
  if (rsp->gp_count) {
    WRITE_ONCE(rsp->gp_state, __RWSK_GP_PASSED);
    passed = true;
  } else if (rsp->gp_state == __RWSK_GP_REPLAY) {
    WRITE_ONCE(rsp->gp_state, __RWSK_GP_EXIT);
    call_rcu(&rsp->cb_head, __rwsk_rcu_sync_func);
  } else {
    WRITE_ONCE(rsp->gp_state, __RWSK_GP_IDLE);
  }
  spin_unlock_irq(&rsp->gp_wait.lock);
  if (passed) wake_up_all(&rsp->gp_wait);
}
static inline void rcu_sync_enter(struct rcu_sync *rsp) {
  spin_lock_irq(&rsp->gp_wait.lock);
  const int was = rsp->gp_state;
  if (was == __RWSK_GP_IDLE) WRITE_ONCE(rsp->gp_state, __RWSK_GP_ENTER);
  rsp->gp_count++;
  spin_unlock_irq(&rsp->gp_wait.lock);
  if (was == __RWSK_GP_IDLE) {
    synchronize_rcu();
    __rwsk_rcu_sync_func(&rsp->cb_head);
    return;
  }
  /* GP_EXIT and GP_REPLAY are past GP_PASSED: the readers never went idle. */
  wait_event(rsp->gp_wait, READ_ONCE(rsp->gp_state) >= __RWSK_GP_PASSED);
}
static inline void rcu_sync_exit(struct rcu_sync *rsp) {
  spin_lock_irq(&rsp->gp_wait.lock);
  WARN_ON_ONCE(rsp->gp_count <= 0);
  if (--rsp->gp_count == 0) {
    if (rsp->gp_state == __RWSK_GP_PASSED) {
      WRITE_ONCE(rsp->gp_state, __RWSK_GP_EXIT);
      call_rcu(&rsp->cb_head, __rwsk_rcu_sync_func);
    } else if (rsp->gp_state == __RWSK_GP_EXIT) {
      WRITE_ONCE(rsp->gp_state, __RWSK_GP_REPLAY);
    }
  }
  spin_unlock_irq(&rsp->gp_wait.lock);
}
/* The owner frees it: nobody may be inside, and no callback may be left. */
static inline void rcu_sync_dtor(struct rcu_sync *rsp) {
  spin_lock_irq(&rsp->gp_wait.lock);
  WARN_ON_ONCE(rsp->gp_count != 0);
  if (rsp->gp_state == __RWSK_GP_REPLAY) WRITE_ONCE(rsp->gp_state, __RWSK_GP_EXIT);
  spin_unlock_irq(&rsp->gp_wait.lock);
  if (READ_ONCE(rsp->gp_state) != __RWSK_GP_IDLE) rcu_barrier();
}

#endif /* RWSTRESS_LAYER_LINUX_RCU_SYNC_H */
