/*
 * A kernel-style counting semaphore, written against rwstress's kernel-compat
 * layer in the shape of the kernel's kernel/locking/semaphore.c: a raw
 * spinlock guards a count and a FIFO wait list; a waiter queues itself, sets
 * its task state, drops the lock and schedules; up() hands the count straight
 * to the first waiter and wakes it after dropping the lock (wake_q). The code
 * would port to the kernel as it is (docs/plugins.md).
 *
 *   kernel-semaphore  the semaphore (down, up, down_trylock)
 *
 * Built with -DRWSTRESS_EXAMPLE_BROKEN it is kernel-semaphore-broken: the
 * waiter drops the lock before it sets its task state, so an up() in
 * between wakes a task that is still running, and the waiter then sleeps
 * for good (the classic lost wake-up). rwstress validate catches it with
 * the after-enqueue delay.
 *
 *   cc -shared -fPIC -O2 $(pkg-config --cflags rwstress-kernel) kernel_semaphore.c -o ksem.so
 *   rwstress --plugin ./ksem.so validate --lock kernel-semaphore
 */
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/sched/wake_q.h>
#include <linux/spinlock.h>

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define EXAMPLE_NAME "kernel-semaphore-broken"
#else
#define EXAMPLE_NAME "kernel-semaphore"
#endif

struct ksem {
	raw_spinlock_t		lock;
	unsigned int		count;
	struct list_head	wait_list;
};

struct ksem_waiter {
	struct list_head	list;
	struct task_struct	*task;
	bool			granted;
};

static void ksem_init(struct ksem *sem, int count)
{
	raw_spin_lock_init(&sem->lock);
	sem->count = count;
	INIT_LIST_HEAD(&sem->wait_list);
}

/* Called with sem->lock held; returns with it held and the count ours. */
static noinline void __ksem_down(struct ksem *sem)
{
	struct ksem_waiter waiter;

	lockdep_assert_held(&sem->lock);
	list_add_tail(&waiter.list, &sem->wait_list);
	waiter.task = current;
	waiter.granted = false;

	for (;;) {
#ifdef RWSTRESS_EXAMPLE_BROKEN
		raw_spin_unlock_irq(&sem->lock);
		__set_current_state(TASK_UNINTERRUPTIBLE);
#else
		__set_current_state(TASK_UNINTERRUPTIBLE);
		raw_spin_unlock_irq(&sem->lock);
#endif
		schedule();
		raw_spin_lock_irq(&sem->lock);
		if (waiter.granted)
			return;
	}
}

static void ksem_down(struct ksem *sem)
{
	unsigned long flags;

	might_sleep();
	raw_spin_lock_irqsave(&sem->lock, flags);
	if (likely(sem->count > 0))
		sem->count--;
	else
		__ksem_down(sem);
	raw_spin_unlock_irqrestore(&sem->lock, flags);
}

/* The kernel's convention: 0 if acquired, 1 if not. */
static int ksem_down_trylock(struct ksem *sem)
{
	unsigned long flags;
	int count;

	raw_spin_lock_irqsave(&sem->lock, flags);
	count = sem->count - 1;
	if (likely(count >= 0))
		sem->count = count;
	raw_spin_unlock_irqrestore(&sem->lock, flags);

	return count < 0;
}

/* Hands the count to the first waiter instead of raising it. */
static noinline void __ksem_up(struct ksem *sem, struct wake_q_head *wake_q)
{
	struct ksem_waiter *waiter = list_first_entry(&sem->wait_list,
						      struct ksem_waiter, list);

	list_del(&waiter->list);
	waiter->granted = true;
	wake_q_add(wake_q, waiter->task);
}

static void ksem_up(struct ksem *sem)
{
	unsigned long flags;
	DEFINE_WAKE_Q(wake_q);

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (likely(list_empty(&sem->wait_list)))
		sem->count++;
	else
		__ksem_up(sem, &wake_q);
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	if (!wake_q_empty(&wake_q))
		wake_up_q(&wake_q);
}

RWSTRESS_KERNEL_SEMAPHORE_OPS(ksem_ops, EXAMPLE_NAME, struct ksem, ksem_init, ksem_down,
			      ksem_up, ksem_down_trylock);
RWSTRESS_KERNEL_PLUGIN(&ksem_ops)
