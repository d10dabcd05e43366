/* The kernel-compat layer's <linux/rcuwait.h>: rcuwait: one waiter, woken under RCU.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_RCUWAIT_H
#define RWSTRESS_LAYER_LINUX_RCUWAIT_H

/* ---- rcuwait (<linux/rcuwait.h>): one waiter, woken under RCU ------------- */

struct rcuwait {
  struct task_struct *task;
};
#define __RCUWAIT_INITIALIZER(name) {.task = NULL}
static inline void rcuwait_init(struct rcuwait *w) { w->task = NULL; }
static inline int rcuwait_active(struct rcuwait *w) { return READ_ONCE(w->task) != NULL; }
/* The waker has made the condition true; the barrier orders that before
 * its look at the waiter, which the waiter's set_current_state pairs with. */
static inline int rcuwait_wake_up(struct rcuwait *w) {
  int woken = 0;
  smp_mb();
  rcu_read_lock();
  struct task_struct *task = rcu_dereference(w->task);
  if (task) woken = wake_up_process(task);
  rcu_read_unlock();
  return woken;
}
static inline void prepare_to_rcuwait(struct rcuwait *w) { rcu_assign_pointer(w->task, current); }
static inline void finish_rcuwait(struct rcuwait *w) {
  rcu_assign_pointer(w->task, NULL);
  __set_current_state(TASK_RUNNING);
}
#define rcuwait_wait_event(w, condition, state)                 \
  ({                                                            \
    int __rwsk_ret = 0;                                         \
    prepare_to_rcuwait(w);                                      \
    for (;;) {                                                  \
      set_current_state(state);                                 \
      if (condition) break;                                     \
      if (signal_pending_state(state, current)) {               \
        __rwsk_ret = -EINTR;                                    \
        break;                                                  \
      }                                                         \
      schedule();                                               \
    }                                                           \
    finish_rcuwait(w);                                          \
    __rwsk_ret;                                                 \
  })

#endif /* RWSTRESS_LAYER_LINUX_RCUWAIT_H */
