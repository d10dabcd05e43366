/* Locks for test_plugins that each break one rule the kernel-compat layer
 * checks, and nothing else (each excludes correctly): the run must FAIL with
 * a lock-warning naming this file and the line. Plus one that breaks no rule
 * and uses every check, which must PASS.
 *
 *   kcheck-sleep-in-spin      schedule() and might_sleep() with a spin lock held
 *   kcheck-lockdep            lockdep_assert_held on a spin lock it dropped
 *   kcheck-warn-on            WARN_ON on a condition that holds (once per op)
 *   kcheck-wrong-owner        unlocks a spin lock another thread holds
 *   kcheck-clean              the same mutex with every check, none firing
 *   kcheck-bitlock            a bit spinlock on test_and_set_bit_lock and
 *                             clear_bit_unlock, with a udelay in the wait:
 *                             the layer's bitops and clocks, which must PASS
 *   kcheck-wake-state         the scheduler semantics a slow path relies on,
 *                             asserted with WARN_ON before each lock: a wake
 *                             of the wrong state is a no-op, on_cpu, and
 *                             signal_pending_state() by state; must PASS
 *   kcheck-percpu             counts its acquisitions per CPU and checks under
 *                             the lock that the sum over for_each_possible_cpu
 *                             is the total, and that nr_cpu_ids is this run's
 *                             slots, not the layer's capacity; must PASS
 *   kcheck-soft-lockup        each thread's first lock spins 1.2 s asking
 *                             need_resched() and ignoring it: under
 *                             resched:p=1 the soft-lockup check fires
 *   kcheck-resched            the same spin, taking cond_resched() when told:
 *                             must PASS under resched:p=1
 *   kcheck-signal             sleeps killably before each lock; under the
 *                             signal injector asserts that the signal cut
 *                             that sleep short and does not cut short an
 *                             uninterruptible one; must PASS
 *   kcheck-rcu                before each lock, either reads the current
 *                             version of an RCU-published record inside a
 *                             preempt_disable() section, lingers, and
 *                             asserts it was not retired meanwhile; or (one
 *                             thread at a time) publishes a new version and
 *                             retires the old one after synchronize_rcu(),
 *                             or from a call_rcu() callback: a grace period
 *                             that did not wait for the reader fires the
 *                             WARN_ON; must PASS
 *   kcheck-sleep-in-rcu       schedule_timeout() inside preempt_disable():
 *                             the layer's schedule() warns
 *   kcheck-eintr              a FIFO sleeping mutex whose acquisitions are
 *                             killable as the run's --killable-every says: an
 *                             unlock wakes the first waiter, which takes the
 *                             lock itself; a newcomer that finds it free with
 *                             waiters wakes the first and queues; a waiter
 *                             killed on its way leaves, waking the first one
 *                             left if the lock is free; must PASS
 *   kcheck-eintr-nowake       the same, leaving without that wake-up (the
 *                             out_nolock class of bug): the wake the unlock
 *                             gave it is lost. Only a newcomer heals it, so
 *                             with the killed task away (the host's killed())
 *                             and the others asleep behind it: a HANG
 *   kcheck-rt                 sleeps half a millisecond, then asserts that
 *                             the layer's rt_task(current) says what the
 *                             thread's own scheduling policy does (SCHED_FIFO
 *                             under --rt-threads / --writer-fifo, never
 *                             otherwise), and sleeps while the lock is busy:
 *                             it takes too little CPU for the RT guard to
 *                             step in; must PASS */
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <sys/syscall.h>
#include <unistd.h>

struct kcheck {
	raw_spinlock_t	outer;	/* the mutex itself */
	raw_spinlock_t	inner;
	int		holders;
};

static void kcheck_init(struct kcheck *k)
{
	raw_spin_lock_init(&k->outer);
	raw_spin_lock_init(&k->inner);
	k->holders = 0;
}

static int kcheck_trylock(struct kcheck *k)
{
	return raw_spin_trylock(&k->outer);
}

static void kcheck_unlock(struct kcheck *k)
{
	raw_spin_unlock(&k->outer);
}

static void sleep_in_spin_lock(struct kcheck *k)
{
	raw_spin_lock(&k->outer);
	might_sleep();
	schedule(); /* TASK_RUNNING: returns at once, but it is under a spin lock */
}

static void lockdep_lock(struct kcheck *k)
{
	raw_spin_lock(&k->inner);
	raw_spin_unlock(&k->inner);
	lockdep_assert_held(&k->inner);
	raw_spin_lock(&k->outer);
}

static void warn_on_lock(struct kcheck *k)
{
	raw_spin_lock(&k->outer);
	WARN_ON(k->holders == 0);
}

/* The inner lock is handed between threads: taken in lock(), dropped in
 * the next lock() by whichever thread comes. */
static void wrong_owner_lock(struct kcheck *k)
{
	raw_spin_lock(&k->outer);
	if (k->holders++ > 0)
		raw_spin_unlock(&k->inner);
	raw_spin_lock(&k->inner);
}

static void clean_lock(struct kcheck *k)
{
	might_sleep();
	raw_spin_lock(&k->outer);
	lockdep_assert_held(&k->outer);
	lockdep_assert_not_held(&k->inner);
	WARN_ON(k->holders != 0);
	WARN_ON_ONCE(!raw_spin_is_locked(&k->outer));
	BUG_ON(k->holders < 0);
}

/* (It sleeps while the lock is busy, too: a real-time spinner would keep a
 * normal owner of its CPU off it, and the guard would step in.) */
static void rt_lock(struct kcheck *k)
{
	usleep(500);
	WARN_ON((syscall(SYS_sched_getscheduler, 0) == SCHED_FIFO) != rt_task(current));
	while (!raw_spin_trylock(&k->outer))
		usleep(50);
}

struct kbitlock {
	unsigned long	word;	/* bit 3 is the lock; the other bits are noise */
};

static void kbitlock_init(struct kbitlock *b)
{
	b->word = 0;
	__set_bit(0, &b->word);
	__set_bit(63, &b->word);
}

static void kbitlock_lock(struct kbitlock *b)
{
	unsigned int tries = 0;

	while (test_and_set_bit_lock(3, &b->word)) {
		while (test_bit(3, &b->word))
			cpu_relax();
		if (++tries % 8 == 0 || need_resched())
			udelay(1);
	}
	WARN_ON(!test_bit(0, &b->word) || !test_bit(63, &b->word));
}

static int kbitlock_trylock(struct kbitlock *b)
{
	return !test_and_set_bit_lock(3, &b->word);
}

static void kbitlock_unlock(struct kbitlock *b)
{
	clear_bit_unlock(3, &b->word);
}

static void wake_state_lock(struct kcheck *k)
{
	struct task_struct *me = current;

	WARN_ON(!owner_on_cpu(me));
	__set_current_state(TASK_UNINTERRUPTIBLE);
	WARN_ON(wake_up_state(me, TASK_INTERRUPTIBLE) != 0);	/* wrong state: a no-op */
	WARN_ON(READ_ONCE(me->__state) != TASK_UNINTERRUPTIBLE);
	WARN_ON(wake_up_process(me) != 1);
	WARN_ON(!task_is_running(me));
	WARN_ON(wake_up_process(me) != 0);			/* running already */
	WRITE_ONCE(me->sigpending, 1);
	WARN_ON(signal_pending_state(TASK_UNINTERRUPTIBLE, me));
	WARN_ON(!signal_pending_state(TASK_KILLABLE, me));
	WARN_ON(!signal_pending_state(TASK_INTERRUPTIBLE, me));
	rwstress_kernel_signal_handled();
	WARN_ON(signal_pending(me));
	raw_spin_lock(&k->outer);
}

/* Acquisitions by CPU; all of them changed and summed under a kcheck's
 * outer lock (one kcheck-percpu lock runs at a time). */
static DEFINE_PER_CPU(unsigned long, kcheck_acquired);
static unsigned long kcheck_total;

static void percpu_lock(struct kcheck *k)
{
	unsigned long sum = 0;
	int cpu;

	raw_spin_lock(&k->outer);
	WARN_ON((unsigned int)smp_processor_id() >= nr_cpu_ids);
	WARN_ON(nr_cpu_ids > 64);	/* the run's threads, not RWSTRESS_KERNEL_NR_CPUS */
	this_cpu_inc(kcheck_acquired);
	kcheck_total++;
	for_each_possible_cpu(cpu)
		sum += per_cpu(kcheck_acquired, cpu);
	WARN_ON(sum != kcheck_total);
}

static __thread int kcheck_spun;

static void spin_a_while(bool obey)
{
	const u64 end = local_clock() + 1200 * NSEC_PER_MSEC;

	/* Only a thread told to reschedule (a worker under resched:p=1; not
	 * the harness's semantics probe, which times its waiters). */
	if (kcheck_spun || !need_resched())
		return;
	kcheck_spun = 1;
	while (local_clock() < end) {
		if (need_resched() && obey)
			cond_resched();
		cpu_relax();
	}
}

static void soft_lockup_lock(struct kcheck *k)
{
	spin_a_while(false);
	raw_spin_lock(&k->outer);
}

static void resched_lock(struct kcheck *k)
{
	spin_a_while(true);
	raw_spin_lock(&k->outer);
}

static void signal_lock(struct kcheck *k)
{
	long left;

	set_current_state(TASK_KILLABLE);
	left = schedule_timeout(msecs_to_jiffies(20));
	if (signal_pending(current)) {
		WARN_ON(left == 0);	/* the signal cut the killable sleep short */
		set_current_state(TASK_UNINTERRUPTIBLE);
		WARN_ON(schedule_timeout(1) != 0);	/* and leaves an uninterruptible one be */
	}
	__set_current_state(TASK_RUNNING);
	raw_spin_lock(&k->outer);
}

/* RCU-published versions, from a pool: a version is reused only long after
 * its grace period, and never while its retiring callback is pending. */
struct kversion {
	int retired;
	int callback_pending;
	struct rcu_head rh;
};
static struct kversion kcheck_versions[64];
static struct kversion *kcheck_current = &kcheck_versions[0];
static unsigned kcheck_generation;
static int kcheck_updating;
static __thread unsigned kcheck_turn;

static void retire_version(struct rcu_head *rh)
{
	struct kversion *v = container_of(rh, struct kversion, rh);

	WRITE_ONCE(v->retired, 1);
	smp_store_release(&v->callback_pending, 0);
}

static void rcu_check(void)
{
	if (++kcheck_turn % 4 == 0 && !xchg(&kcheck_updating, 1)) {
		struct kversion *old = kcheck_current;
		struct kversion *next = &kcheck_versions[++kcheck_generation % 64];

		if (smp_load_acquire(&next->callback_pending))
			rcu_barrier();
		WRITE_ONCE(next->retired, 0);
		rcu_assign_pointer(kcheck_current, next);
		if (kcheck_generation % 2) {
			synchronize_rcu();
			WRITE_ONCE(old->retired, 1);
		} else {
			old->callback_pending = 1;
			call_rcu(&old->rh, retire_version);
		}
		smp_store_release(&kcheck_updating, 0);
		return;
	}
	preempt_disable();
	{
		struct kversion *v = rcu_dereference(kcheck_current);
		int i;

		for (i = 0; i < 2000; i++)
			cpu_relax();
		WARN_ON(READ_ONCE(v->retired));
	}
	preempt_enable();
}

static void rcu_lock(struct kcheck *k)
{
	rcu_check();
	raw_spin_lock(&k->outer);
}

static void sleep_in_rcu_lock(struct kcheck *k)
{
	preempt_disable();
	schedule_timeout_uninterruptible(1);
	preempt_enable();
	raw_spin_lock(&k->outer);
}

struct keintr {
	raw_spinlock_t		wait_lock;
	int			locked;
	struct list_head	waiters;
};

struct keintr_waiter {
	struct list_head	list;
	struct task_struct	*task;
};

static void keintr_init(struct keintr *m)
{
	raw_spin_lock_init(&m->wait_lock);
	m->locked = 0;
	INIT_LIST_HEAD(&m->waiters);
}

static void keintr_wake_first(struct keintr *m)
{
	lockdep_assert_held(&m->wait_lock);
	if (!list_empty(&m->waiters))
		wake_up_process(list_first_entry(&m->waiters, struct keintr_waiter, list)->task);
}

static int keintr_lock_state(struct keintr *m, unsigned int state, bool wake_on_bail)
{
	struct keintr_waiter w = { .task = current };

	raw_spin_lock(&m->wait_lock);
	if (!m->locked && list_empty(&m->waiters)) {
		m->locked = 1;
		raw_spin_unlock(&m->wait_lock);
		return 0;
	}
	if (!m->locked)
		keintr_wake_first(m);	/* free, and they sleep: wake the first */
	list_add_tail(&w.list, &m->waiters);
	for (;;) {
		set_current_state(state);
		raw_spin_unlock(&m->wait_lock);
		schedule();
		raw_spin_lock(&m->wait_lock);
		if (signal_pending_state(state, current)) {
			list_del(&w.list);
			if (wake_on_bail && !m->locked)
				keintr_wake_first(m);
			raw_spin_unlock(&m->wait_lock);
			__set_current_state(TASK_RUNNING);
			return -EINTR;
		}
		if (!m->locked && list_first_entry(&m->waiters, struct keintr_waiter, list) == &w) {
			m->locked = 1;
			list_del(&w.list);
			raw_spin_unlock(&m->wait_lock);
			__set_current_state(TASK_RUNNING);
			return 0;
		}
	}
}

static void keintr_acquire(struct keintr *m, bool wake_on_bail)
{
	unsigned int state = __rwsk_host()->acquire_kind() ? TASK_KILLABLE : TASK_UNINTERRUPTIBLE;

	while (keintr_lock_state(m, state, wake_on_bail) != 0)
		rwstress_kernel_killed();
}

static void keintr_lock(struct keintr *m)
{
	keintr_acquire(m, true);
}

static void keintr_lock_nowake(struct keintr *m)
{
	keintr_acquire(m, false);
}

static void keintr_unlock(struct keintr *m)
{
	raw_spin_lock(&m->wait_lock);
	m->locked = 0;
	keintr_wake_first(m);
	raw_spin_unlock(&m->wait_lock);
}

RWSTRESS_KERNEL_MUTEX_OPS(sleep_ops, "kcheck-sleep-in-spin", struct kcheck, kcheck_init,
			  sleep_in_spin_lock, kcheck_unlock, kcheck_trylock);
RWSTRESS_KERNEL_MUTEX_OPS(lockdep_ops, "kcheck-lockdep", struct kcheck, kcheck_init,
			  lockdep_lock, kcheck_unlock, kcheck_trylock);
RWSTRESS_KERNEL_MUTEX_OPS(warn_on_ops, "kcheck-warn-on", struct kcheck, kcheck_init,
			  warn_on_lock, kcheck_unlock, kcheck_trylock);
RWSTRESS_KERNEL_MUTEX_OPS(wrong_owner_ops, "kcheck-wrong-owner", struct kcheck, kcheck_init,
			  wrong_owner_lock, kcheck_unlock, kcheck_trylock);
RWSTRESS_KERNEL_MUTEX_OPS(clean_ops, "kcheck-clean", struct kcheck, kcheck_init, clean_lock,
			  kcheck_unlock, kcheck_trylock);
RWSTRESS_KERNEL_MUTEX_OPS(bitlock_ops, "kcheck-bitlock", struct kbitlock, kbitlock_init,
			  kbitlock_lock, kbitlock_unlock, kbitlock_trylock);
RWSTRESS_KERNEL_MUTEX_OPS(wake_state_ops, "kcheck-wake-state", struct kcheck, kcheck_init,
			  wake_state_lock, kcheck_unlock, kcheck_trylock);
RWSTRESS_KERNEL_MUTEX_OPS(percpu_ops, "kcheck-percpu", struct kcheck, kcheck_init, percpu_lock,
			  kcheck_unlock, NULL);
RWSTRESS_KERNEL_MUTEX_OPS(soft_lockup_ops, "kcheck-soft-lockup", struct kcheck, kcheck_init,
			  soft_lockup_lock, kcheck_unlock, NULL);
RWSTRESS_KERNEL_MUTEX_OPS(resched_ops, "kcheck-resched", struct kcheck, kcheck_init, resched_lock,
			  kcheck_unlock, NULL);
RWSTRESS_KERNEL_MUTEX_OPS(signal_ops, "kcheck-signal", struct kcheck, kcheck_init, signal_lock,
			  kcheck_unlock, NULL);
RWSTRESS_KERNEL_MUTEX_OPS(rcu_ops, "kcheck-rcu", struct kcheck, kcheck_init, rcu_lock,
			  kcheck_unlock, NULL);
RWSTRESS_KERNEL_MUTEX_OPS(sleep_in_rcu_ops, "kcheck-sleep-in-rcu", struct kcheck, kcheck_init,
			  sleep_in_rcu_lock, kcheck_unlock, NULL);
RWSTRESS_KERNEL_MUTEX_OPS(eintr_ops, "kcheck-eintr", struct keintr, keintr_init, keintr_lock,
			  keintr_unlock, NULL, .fairness = RWSTRESS_FAIRNESS_TASK_FAIR,
			  .flags = RWSTRESS_LOCK_KILLABLE);
RWSTRESS_KERNEL_MUTEX_OPS(eintr_nowake_ops, "kcheck-eintr-nowake", struct keintr, keintr_init,
			  keintr_lock_nowake, keintr_unlock, NULL,
			  .fairness = RWSTRESS_FAIRNESS_TASK_FAIR, .flags = RWSTRESS_LOCK_KILLABLE);
RWSTRESS_KERNEL_MUTEX_OPS(rt_ops, "kcheck-rt", struct kcheck, kcheck_init, rt_lock, kcheck_unlock,
			  NULL);
RWSTRESS_KERNEL_PLUGIN(&sleep_ops, &lockdep_ops, &warn_on_ops, &wrong_owner_ops, &clean_ops,
		       &bitlock_ops, &wake_state_ops, &percpu_ops, &soft_lockup_ops, &resched_ops,
		       &signal_ops, &rcu_ops, &sleep_in_rcu_ops, &eintr_ops, &eintr_nowake_ops,
		       &rt_ops)
