/* The kernel-compat layer's <linux/semaphore.h>: struct semaphore.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_SEMAPHORE_H
#define RWSTRESS_LAYER_LINUX_SEMAPHORE_H

/* ---- struct semaphore (include/linux/semaphore.h) ----------------------- */

/* The fields of every recent kernel's semaphore.c at once: the wait list
 * (up to 6.x), the first waiter (the list's replacement on linux-next) and
 * the last holder (CONFIG_DETECT_HUNG_TASK_BLOCKER); a file uses its own
 * and leaves the others as initialised. */
struct semaphore {
  raw_spinlock_t lock;
  unsigned int count;
  struct list_head wait_list;
  struct semaphore_waiter *first_waiter;
  unsigned long last_holder;
};
/* Every semaphore's lock is of one class, "semaphore->lock", as sema_init()
 * keys it in the kernel; console_sem, whose lock the kernel's printk takes
 * under the scheduler's run-queue lock (a modelled order, docs/checkers.md
 * "lock-order"), is one of them. */
#define __rwsk_semaphore_lock_class "semaphore->lock"
#define __SEMAPHORE_INITIALIZER(name, n)                                                    \
  {                                                                                         \
    .lock = __rwsk_raw_spin_unlocked_as(__rwsk_semaphore_lock_class), .count = (n),         \
    .wait_list = LIST_HEAD_INIT((name).wait_list), .first_waiter = NULL, .last_holder = 0UL \
  }
/* DEFINE_SEMAPHORE(name) (count 1, before 6.4) and DEFINE_SEMAPHORE(name, n). */
#define __rwsk_defsem1(name) struct semaphore name = __SEMAPHORE_INITIALIZER(name, 1)
#define __rwsk_defsem2(name, n) struct semaphore name = __SEMAPHORE_INITIALIZER(name, n)
#define __rwsk_pick3(a, b, which, ...) which
#define DEFINE_SEMAPHORE(...) __rwsk_pick3(__VA_ARGS__, __rwsk_defsem2, __rwsk_defsem1, 0)(__VA_ARGS__)
static inline void sema_init(struct semaphore *sem, int val) {
  *sem = (struct semaphore)__SEMAPHORE_INITIALIZER(*sem, (unsigned int)val);
}
extern void down(struct semaphore *sem);
extern int __must_check down_interruptible(struct semaphore *sem);
extern int __must_check down_killable(struct semaphore *sem);
extern int __must_check down_trylock(struct semaphore *sem);
extern int __must_check down_timeout(struct semaphore *sem, long timeout);
extern void up(struct semaphore *sem);

#endif /* RWSTRESS_LAYER_LINUX_SEMAPHORE_H */
