/* The kernel-compat layer's <linux/wait.h>: wait queues: __wake_up with keys and custom wake functions, wait_event.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
/* The system has a header of this name too (its uapi one), which system
 * headers include: that comes first. */
#include_next <linux/wait.h>
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_WAIT_H
#define RWSTRESS_LAYER_LINUX_WAIT_H

/* ---- Wait queues (<linux/wait.h>) ----------------------------------------- */

struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry, unsigned int mode, int flags,
                                 void *key);
struct wait_queue_entry {
  unsigned int flags;
  void *private;
  wait_queue_func_t func;
  struct list_head entry;
};
typedef struct wait_queue_entry wait_queue_entry_t;
#define WQ_FLAG_EXCLUSIVE 0x01
#define WQ_FLAG_WOKEN 0x02
#define WQ_FLAG_CUSTOM 0x04
struct wait_queue_head {
  spinlock_t lock;
  struct list_head head;
};
typedef struct wait_queue_head wait_queue_head_t;
static inline void init_waitqueue_head(struct wait_queue_head *wq_head) {
  spin_lock_init(&wq_head->lock);
  INIT_LIST_HEAD(&wq_head->head);
}
/* Wakes the entry's task if its state matches `mode`. */
static inline int default_wake_function(struct wait_queue_entry *wq_entry, unsigned int mode,
                                        int flags, void *key) {
  (void)flags;
  (void)key;
  return try_to_wake_up((struct task_struct *)wq_entry->private, mode, flags);
}
#define DEFINE_WAIT_FUNC(name, function)                                          \
  struct wait_queue_entry name = {.private = current, .func = (function),         \
                                  .entry = LIST_HEAD_INIT((name).entry)}
#define DEFINE_WAIT(name) DEFINE_WAIT_FUNC(name, default_wake_function)
static inline void __add_wait_queue_entry_tail(struct wait_queue_head *wq_head,
                                               struct wait_queue_entry *wq_entry) {
  list_add_tail(&wq_entry->entry, &wq_head->head);
}
static inline void __add_wait_queue(struct wait_queue_head *wq_head,
                                    struct wait_queue_entry *wq_entry) {
  list_add(&wq_entry->entry, &wq_head->head);
}
static inline void __remove_wait_queue(struct wait_queue_head *wq_head,
                                       struct wait_queue_entry *wq_entry) {
  (void)wq_head;
  list_del(&wq_entry->entry);
}
static inline int waitqueue_active(struct wait_queue_head *wq_head) {
  return !list_empty(&wq_head->head);
}
static inline bool wq_has_sleeper(struct wait_queue_head *wq_head) {
  smp_mb(); /* the waker's condition before the look at the queue */
  return waitqueue_active(wq_head);
}
/* Calls each entry's function, under the queue's lock, until it has woken
 * nr_exclusive exclusive waiters (a function that returns non-zero for an
 * exclusive entry counts; one that returns less than zero stops the walk). */
static inline int __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr_exclusive,
                            void *key) {
  struct wait_queue_entry *curr, *next;
  unsigned long flags;
  int woken = 0;
  spin_lock_irqsave(&wq_head->lock, flags);
  list_for_each_entry_safe(curr, next, &wq_head->head, entry) {
    const unsigned int entry_flags = curr->flags;
    const int ret = curr->func(curr, mode, 0, key);
    if (ret < 0) break;
    woken += ret != 0;
    if (ret && (entry_flags & WQ_FLAG_EXCLUSIVE) && !--nr_exclusive) break;
  }
  spin_unlock_irqrestore(&wq_head->lock, flags);
  return woken;
}
#define wake_up(wq) __wake_up((wq), TASK_NORMAL, 1, NULL)
#define wake_up_all(wq) __wake_up((wq), TASK_NORMAL, 0, NULL)
/* Sleeps (uninterruptibly) until `condition`, queued on wq_head. */
#define wait_event(wq_head, condition)                                       \
  do {                                                                       \
    if (condition) break;                                                    \
    DEFINE_WAIT(__rwsk_wait);                                                \
    for (;;) {                                                               \
      spin_lock_irq(&(wq_head).lock);                                        \
      if (list_empty(&__rwsk_wait.entry))                                    \
        __add_wait_queue_entry_tail(&(wq_head), &__rwsk_wait);               \
      set_current_state(TASK_UNINTERRUPTIBLE);                               \
      spin_unlock_irq(&(wq_head).lock);                                      \
      if (condition) break;                                                  \
      schedule();                                                            \
    }                                                                        \
    spin_lock_irq(&(wq_head).lock);                                          \
    list_del_init(&__rwsk_wait.entry);                                       \
    spin_unlock_irq(&(wq_head).lock);                                        \
    __set_current_state(TASK_RUNNING);                                       \
  } while (0)

#endif /* RWSTRESS_LAYER_LINUX_WAIT_H */
