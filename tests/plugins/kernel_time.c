/* A kernel-style lock for test_plugins whose bug waits for time, as
 * rwsem.c's HANDOFF waits for RWSEM_WAIT_TIMEOUT: reachable under explore
 * only when time is a choice (--time-jumps). Built with
 * -DRWSTRESS_KERNEL_EXPLORE.
 *
 *   ktime-spin  a spinning mutex whose waiter, once it has spun for
 *               KTIME_WAIT jiffies, sleeps a jiffy between its tries
 *               (schedule_timeout): must PASS, with or without jumps.
 *
 * Built with -DRWSTRESS_EXAMPLE_BROKEN it is ktime-spin-broken: the waiter
 * that has waited that long takes the lock whether or not it is free. Its
 * steps of a microsecond never reach 4 jiffies (4,000 steps), so explore
 * passes it at any number of schedules; one jump of the clock at its
 * jiffies read shows two holders. */
#include <linux/sched.h>

#define KTIME_WAIT 4 /* jiffies: rwsem.c's RWSEM_WAIT_TIMEOUT at HZ 1000 */

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define KTIME_NAME "ktime-spin-broken"
#else
#define KTIME_NAME "ktime-spin"
#endif

struct ktime_spin {
	atomic_t locked;
};

static void ktime_init(struct ktime_spin *l)
{
	atomic_set(&l->locked, 0);
}

static void ktime_lock(struct ktime_spin *l)
{
	const unsigned long timeout = jiffies + KTIME_WAIT;

	while (atomic_cmpxchg_acquire(&l->locked, 0, 1) != 0) {
		if (time_after(jiffies, timeout)) {
#ifdef RWSTRESS_EXAMPLE_BROKEN
			atomic_set(&l->locked, 1); /* waited long enough: takes it anyway */
			return;
#else
			schedule_timeout_uninterruptible(1);
			continue;
#endif
		}
		cpu_relax();
	}
}

static void ktime_unlock(struct ktime_spin *l)
{
	atomic_set_release(&l->locked, 0);
}

static int ktime_trylock(struct ktime_spin *l)
{
	return atomic_cmpxchg_acquire(&l->locked, 0, 1) == 0;
}

RWSTRESS_KERNEL_MUTEX_OPS(ktime_ops, KTIME_NAME, struct ktime_spin, ktime_init, ktime_lock,
			  ktime_unlock, ktime_trylock);
RWSTRESS_KERNEL_PLUGIN(&ktime_ops)
