/* Kernel-style locks for test_plugins whose bugs need an event the
 * schedule chooses: time passing, as rwsem.c's HANDOFF waits for
 * RWSEM_WAIT_TIMEOUT (reachable under explore only with --time-jumps),
 * a wake-up that comes from another waker's wake_q, and an interrupt
 * (explore --interrupts). Built with
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
 * jiffies read shows two holders.
 *
 *   kwake       a mutex handed straight to its first waiter, who waits
 *               for the grant without the lock, as rwsem.c's readers wait
 *               for waiter.task to be cleared: the unlock publishes the
 *               grant, then queues the wake-up (wake_q), as rwsem.c does
 *               since 2018: must PASS.
 *
 * Built broken it is kwake-broken: the unlock queues the wake-up first and
 * publishes the grant after (rwsem.c's reader wake-up before "locking/
 * rwsem: Fix (possible) missed wakeup"). Correct as long as the wake-up
 * waits for the unlock's wake_up_q(); but wake_q_add() of a task already on
 * another waker's wake_q fails, and that waker may wake it at once: the
 * waiter finds no grant, sleeps again, and nobody wakes it.
 *
 *   korder      a mutex of three spin locks: an outer one that serialises,
 *               then two inner ones, always in one order: must PASS.
 *
 * Built broken it is korder-broken: threads on odd CPUs take the inner two
 * in the other order. The outer lock keeps it from ever deadlocking, yet
 * the two orders are a cycle of lock classes (lockdep reports it; so must
 * the lock-order checker, in the first schedule and the first run that
 * take both).
 *
 *   ksema       a counting semaphore on the layer's struct semaphore (its
 *               lock of the class every semaphore's is) that hands the
 *               count to the first waiter and wakes it after dropping the
 *               lock (wake_q), as semaphore.c does since 2025: must PASS.
 *
 * Built broken it is ksema-broken: the wake-up is made under sem->lock, as
 * semaphore.c's was before "locking/semaphore: Use wake_q to wake up
 * processes outside lock critical section". Nothing goes wrong in the run;
 * the order is a cycle with the scheduler's locks (a semaphore's lock, the
 * woken task's pi_lock, a run-queue lock, console_sem's lock under it).
 *
 *   kleak       a spinning mutex whose unlock also counts the thread's releases
 *               under a statistics spin lock of the thread's own: must PASS.
 *
 * Built broken it is kleak-broken: the thread's first release returns with
 * that lock still held (and its later ones leave it alone, so nothing ever
 * waits on it): lockdep's "lock held when returning to user space".
 *
 *   kirq        a reader-writer lock over per-CPU reader counts, as
 *               percpu-rwsem's (spinning where it sleeps), whose read
 *               holds are released by a completion interrupt, as
 *               file_end_write() releases sb_start_write()'s: a reader
 *               counts itself in with this_cpu_inc(), which an interrupt
 *               cannot split: must PASS, with or without interrupts.
 *
 * Built broken it is kirq-broken: the reader counts itself in with
 * __this_cpu_inc() (percpu-rwsem.c's before "locking/percpu-rwsem: Use
 * this_cpu_{inc,dec}() for read_count"). A load and a store: an interrupt
 * that arrives between them and drops another reader's hold on this CPU's
 * count is undone by the store, the counts never sum to zero again, and
 * the writer waits for good. Nothing shows it without interrupts.
 *
 *   kreadrel    a spinning reader-writer lock on one count (readers add
 *               one with an acquiring cmpxchg, a writer swaps 0 for -1):
 *               a reader leaves with a releasing decrement. Must PASS
 *               under --memory c11.
 *
 * Built broken it is kreadrel-broken: the reader leaves with a relaxed
 * decrement. The writer that reads it takes nothing from the reader's
 * hold: its stores may be what the reader read. A reader always sees the
 * last writer's data (the writer releases, a reader acquires), so only
 * explore's check that a writer has every earlier read hold in view
 * (--memory c11) shows it.
 *
 *   ksemirq     a spinning counting semaphore on a raw spinlock, whose
 *               up() is made from an interrupt (a driver's completion):
 *               the count is taken and given back with the spinlock
 *               taken with interrupts off (raw_spin_lock_irqsave), as
 *               semaphore.c takes sem->lock. Must PASS.
 *
 * Built broken it is ksemirq-broken: down() takes the spinlock with
 * interrupts on (raw_spin_lock). An interrupt whose handler makes up() on
 * the CPU of a task inside down()'s section spins for good; lockdep calls
 * the class's two uses an inconsistent lock state, and so does explore's
 * lock-order checker once a handler has taken it (--interrupts).
 *
 *   kirqorder   ksemirq with a statistics spinlock: down() counts its
 *               acquisitions under it, taken inside the semaphore's
 *               spinlock, and reads the count under it afterwards, with
 *               interrupts off both times. Must PASS.
 *
 * Built broken it is kirqorder-broken: the read afterwards takes the
 * statistics lock with interrupts on. Neither lock is ever taken both in
 * a handler and with interrupts on, but the semaphore's spinlock, taken in
 * the handler of up(), is ordered before the statistics lock, taken with
 * interrupts on: lockdep's "HARDIRQ-safe -> HARDIRQ-unsafe lock order".
 * A task holding the statistics lock with interrupts on, interrupted by
 * up()'s handler spinning on the semaphore's lock, whose holder waits for
 * the statistics lock, deadlocks.
 *
 * The broken build also has kcrash-contended: a spinning mutex whose
 * first contended acquisition writes through NULL (explore's crash
 * handler and its count, in one process or split among several). */
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/wake_q.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>

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

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define KWAKE_NAME "kwake-broken"
#else
#define KWAKE_NAME "kwake"
#endif

struct kwake {
	raw_spinlock_t		lock;
	bool			held;
	struct list_head	wait_list;
};

struct kwake_waiter {
	struct list_head	list;
	struct task_struct	*task;
	int			granted;
};

static void kwake_init(struct kwake *l)
{
	raw_spin_lock_init(&l->lock);
	l->held = false;
	INIT_LIST_HEAD(&l->wait_list);
}

static void kwake_lock(struct kwake *l)
{
	struct kwake_waiter waiter;

	raw_spin_lock_irq(&l->lock);
	if (!l->held) {
		l->held = true;
		raw_spin_unlock_irq(&l->lock);
		return;
	}
	waiter.task = current;
	waiter.granted = 0;
	list_add_tail(&waiter.list, &l->wait_list);
	raw_spin_unlock_irq(&l->lock);

	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (smp_load_acquire(&waiter.granted))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static void kwake_unlock(struct kwake *l)
{
	DEFINE_WAKE_Q(wake_q);

	raw_spin_lock_irq(&l->lock);
	if (list_empty(&l->wait_list)) {
		l->held = false;
	} else {
		struct kwake_waiter *waiter =
			list_first_entry(&l->wait_list, struct kwake_waiter, list);
		struct task_struct *task = waiter->task;

		list_del(&waiter->list);
#ifdef RWSTRESS_EXAMPLE_BROKEN
		wake_q_add(&wake_q, task);
		smp_store_release(&waiter->granted, 1);
#else
		/* The waiter may leave (its stack with it) once granted. */
		get_task_struct(task);
		smp_store_release(&waiter->granted, 1);
		wake_q_add_safe(&wake_q, task);
#endif
	}
	raw_spin_unlock_irq(&l->lock);
	wake_up_q(&wake_q);
}

static int kwake_trylock(struct kwake *l)
{
	int got = 0;

	raw_spin_lock_irq(&l->lock);
	if (!l->held) {
		l->held = true;
		got = 1;
	}
	raw_spin_unlock_irq(&l->lock);
	return got;
}

RWSTRESS_KERNEL_MUTEX_OPS(kwake_ops, KWAKE_NAME, struct kwake, kwake_init, kwake_lock,
			  kwake_unlock, kwake_trylock);

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define KORDER_NAME "korder-broken"
#else
#define KORDER_NAME "korder"
#endif

struct korder {
	raw_spinlock_t	outer;
	raw_spinlock_t	a;
	raw_spinlock_t	b;
};

static void korder_init(struct korder *l)
{
	raw_spin_lock_init(&l->outer);
	raw_spin_lock_init(&l->a);
	raw_spin_lock_init(&l->b);
}

static void korder_lock(struct korder *l)
{
	raw_spin_lock(&l->outer);
#ifdef RWSTRESS_EXAMPLE_BROKEN
	if (raw_smp_processor_id() & 1) {
		raw_spin_lock(&l->b);
		raw_spin_lock(&l->a);
		return;
	}
#endif
	raw_spin_lock(&l->a);
	raw_spin_lock(&l->b);
}

static void korder_unlock(struct korder *l)
{
	raw_spin_unlock(&l->b);
	raw_spin_unlock(&l->a);
	raw_spin_unlock(&l->outer);
}

static int korder_trylock(struct korder *l)
{
	if (!raw_spin_trylock(&l->outer))
		return 0;
	raw_spin_lock(&l->a);
	raw_spin_lock(&l->b);
	return 1;
}

RWSTRESS_KERNEL_MUTEX_OPS(korder_ops, KORDER_NAME, struct korder, korder_init, korder_lock,
			  korder_unlock, korder_trylock);

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define KSEMA_NAME "ksema-broken"
#else
#define KSEMA_NAME "ksema"
#endif

struct ksema_waiter {
	struct list_head	list;
	struct task_struct	*task;
	bool			up;
};

static void ksema_init(struct semaphore *sem, int count)
{
	sema_init(sem, count);
}

static void ksema_down(struct semaphore *sem)
{
	unsigned long flags;
	struct ksema_waiter waiter;

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (likely(sem->count > 0)) {
		sem->count--;
		raw_spin_unlock_irqrestore(&sem->lock, flags);
		return;
	}
	list_add_tail(&waiter.list, &sem->wait_list);
	waiter.task = current;
	waiter.up = false;
	for (;;) {
		__set_current_state(TASK_UNINTERRUPTIBLE);
		raw_spin_unlock_irq(&sem->lock);
		schedule();
		raw_spin_lock_irq(&sem->lock);
		if (waiter.up)
			break;
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);
}

/* 0 when it took a unit, as down_trylock() answers. */
static int ksema_down_trylock(struct semaphore *sem)
{
	unsigned long flags;
	int busy;

	raw_spin_lock_irqsave(&sem->lock, flags);
	busy = sem->count == 0;
	if (!busy)
		sem->count--;
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	return busy;
}

static void ksema_up(struct semaphore *sem)
{
	unsigned long flags;
	DEFINE_WAKE_Q(wake_q);

	raw_spin_lock_irqsave(&sem->lock, flags);
	if (likely(list_empty(&sem->wait_list))) {
		sem->count++;
	} else {
		struct ksema_waiter *waiter =
			list_first_entry(&sem->wait_list, struct ksema_waiter, list);

		list_del(&waiter->list);
		waiter->up = true;
#ifdef RWSTRESS_EXAMPLE_BROKEN
		wake_up_process(waiter->task);
#else
		wake_q_add(&wake_q, waiter->task);
#endif
	}
	raw_spin_unlock_irqrestore(&sem->lock, flags);
	wake_up_q(&wake_q);
}

RWSTRESS_KERNEL_SEMAPHORE_OPS(ksema_ops, KSEMA_NAME, struct semaphore, ksema_init, ksema_down,
			      ksema_up, ksema_down_trylock);

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define KLEAK_NAME "kleak-broken"
#else
#define KLEAK_NAME "kleak"
#endif

static __thread raw_spinlock_t kleak_stats;
static __thread unsigned long kleak_releases;
static __thread bool kleak_leaked;

static void kleak_lock(struct ktime_spin *l)
{
	while (atomic_cmpxchg_acquire(&l->locked, 0, 1) != 0)
		cpu_relax();
}

static void kleak_unlock(struct ktime_spin *l)
{
	if (!kleak_leaked) {
		if (!kleak_releases)
			raw_spin_lock_init(&kleak_stats);
		raw_spin_lock(&kleak_stats);
		kleak_releases++;
#ifdef RWSTRESS_EXAMPLE_BROKEN
		kleak_leaked = true;
#else
		raw_spin_unlock(&kleak_stats);
#endif
	}
	ktime_unlock(l);
}

RWSTRESS_KERNEL_MUTEX_OPS(kleak_ops, KLEAK_NAME, struct ktime_spin, ktime_init, kleak_lock,
			  kleak_unlock, ktime_trylock);

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define KIRQ_NAME "kirq-broken"
#define kirq_count_in(l) __this_cpu_inc(*(l)->count)
#else
#define KIRQ_NAME "kirq"
#define kirq_count_in(l) this_cpu_inc(*(l)->count)
#endif

struct kirq {
	int __percpu *count;
	int block;
};

static void kirq_init(struct kirq *l)
{
	l->count = alloc_percpu(int);
	l->block = 0;
}

static void kirq_destroy(void *l)
{
	free_percpu(((struct kirq *)l)->count);
}

static void kirq_read_lock(struct kirq *l)
{
	for (;;) {
		kirq_count_in(l);
		smp_mb(); /* the count before the block's read; pairs with the writer's */
		if (likely(!smp_load_acquire(&l->block))) /* the last writer's section before mine */
			return;
		this_cpu_dec(*l->count);
		while (READ_ONCE(l->block))
			cpu_relax();
	}
}

static void kirq_read_release(void *l)
{
	smp_mb(); /* the read section before the count drops */
	this_cpu_dec(*((struct kirq *)l)->count);
}

static void kirq_read_unlock(struct kirq *l)
{
	__rwsk_in_interrupt(kirq_read_release, l);
}

static int kirq_readers(struct kirq *l)
{
	int sum = 0, cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(l->count, cpu));
	return sum;
}

static void kirq_write_lock(struct kirq *l)
{
	while (xchg(&l->block, 1) != 0)
		cpu_relax();
	smp_mb(); /* the block before the counts' reads */
	while (kirq_readers(l) != 0)
		cpu_relax();
	smp_mb(); /* the readers' sections, seen ended, before this one (percpu-rwsem's C) */
}

static void kirq_write_unlock(struct kirq *l)
{
	smp_store_release(&l->block, 0);
}

RWSTRESS_KERNEL_RWSEM_OPS(kirq_ops, KIRQ_NAME, struct kirq, kirq_init, kirq_read_lock,
			  kirq_read_unlock, kirq_write_lock, kirq_write_unlock, NULL, NULL, NULL,
			  .destroy = kirq_destroy);

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define KREADREL_NAME "kreadrel-broken"
#define kreadrel_leave(l) atomic_dec(&(l)->count)
#else
#define KREADREL_NAME "kreadrel"
#define kreadrel_leave(l) atomic_dec_return_release(&(l)->count)
#endif

struct kreadrel {
	atomic_t count; /* readers in; -1: a writer */
};

static void kreadrel_init(struct kreadrel *l)
{
	atomic_set(&l->count, 0);
}

static int kreadrel_read_trylock(struct kreadrel *l)
{
	int c = atomic_read(&l->count);

	return c >= 0 && atomic_try_cmpxchg_acquire(&l->count, &c, c + 1);
}

static void kreadrel_read_lock(struct kreadrel *l)
{
	while (!kreadrel_read_trylock(l))
		cpu_relax();
}

static void kreadrel_read_unlock(struct kreadrel *l)
{
	kreadrel_leave(l);
}

static int kreadrel_write_trylock(struct kreadrel *l)
{
	return atomic_cmpxchg_acquire(&l->count, 0, -1) == 0;
}

static void kreadrel_write_lock(struct kreadrel *l)
{
	while (!kreadrel_write_trylock(l))
		cpu_relax();
}

static void kreadrel_write_unlock(struct kreadrel *l)
{
	atomic_set_release(&l->count, 0);
}

RWSTRESS_KERNEL_RWSEM_OPS(kreadrel_ops, KREADREL_NAME, struct kreadrel, kreadrel_init,
			  kreadrel_read_lock, kreadrel_read_unlock, kreadrel_write_lock,
			  kreadrel_write_unlock, kreadrel_read_trylock, kreadrel_write_trylock, NULL);

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define KSEMIRQ_NAME "ksemirq-broken"
#define ksemirq_lock(l, flags) \
	do { \
		(void)(flags); \
		raw_spin_lock(&(l)->lock); \
	} while (0)
#define ksemirq_unlock(l, flags) raw_spin_unlock(&(l)->lock)
#else
#define KSEMIRQ_NAME "ksemirq"
#define ksemirq_lock(l, flags) raw_spin_lock_irqsave(&(l)->lock, flags)
#define ksemirq_unlock(l, flags) raw_spin_unlock_irqrestore(&(l)->lock, flags)
#endif

struct ksemirq {
	raw_spinlock_t lock;
	int count;
};

static void ksemirq_init(struct ksemirq *l, int count)
{
	raw_spin_lock_init(&l->lock);
	l->count = count;
}

/* 0 when it took a unit, as down_trylock() */
static int ksemirq_trylock(struct ksemirq *l)
{
	unsigned long flags = 0;
	int took;

	ksemirq_lock(l, flags);
	took = l->count > 0;
	if (took)
		l->count--;
	ksemirq_unlock(l, flags);
	return !took;
}

static void ksemirq_down(struct ksemirq *l)
{
	while (ksemirq_trylock(l))
		cpu_relax();
}

static void ksemirq_release(void *p)
{
	struct ksemirq *l = p;
	unsigned long flags;

	raw_spin_lock_irqsave(&l->lock, flags);
	l->count++;
	raw_spin_unlock_irqrestore(&l->lock, flags);
}

static void ksemirq_up(struct ksemirq *l)
{
	__rwsk_in_interrupt(ksemirq_release, l);
}

RWSTRESS_KERNEL_SEMAPHORE_OPS(ksemirq_ops, KSEMIRQ_NAME, struct ksemirq, ksemirq_init,
			      ksemirq_down, ksemirq_up, ksemirq_trylock);

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define KIRQORDER_NAME "kirqorder-broken"
#define kirqorder_read_lock(l, flags) \
	do { \
		(void)(flags); \
		raw_spin_lock(&(l)->stats); \
	} while (0)
#define kirqorder_read_unlock(l, flags) raw_spin_unlock(&(l)->stats)
#else
#define KIRQORDER_NAME "kirqorder"
#define kirqorder_read_lock(l, flags) raw_spin_lock_irqsave(&(l)->stats, flags)
#define kirqorder_read_unlock(l, flags) raw_spin_unlock_irqrestore(&(l)->stats, flags)
#endif

struct kirqorder {
	struct ksemirq sem;
	raw_spinlock_t stats;
	unsigned long taken;
};

static void kirqorder_init(struct kirqorder *l, int count)
{
	ksemirq_init(&l->sem, count);
	raw_spin_lock_init(&l->stats);
	l->taken = 0;
}

/* 0 when it took a unit, as down_trylock() */
static int kirqorder_trylock(struct kirqorder *l)
{
	unsigned long flags, stats_flags = 0;
	unsigned long taken;
	int took;

	raw_spin_lock_irqsave(&l->sem.lock, flags);
	took = l->sem.count > 0;
	if (took) {
		l->sem.count--;
		raw_spin_lock(&l->stats);
		l->taken++;
		raw_spin_unlock(&l->stats);
	}
	raw_spin_unlock_irqrestore(&l->sem.lock, flags);
	if (took) {
		kirqorder_read_lock(l, stats_flags);
		taken = l->taken;
		kirqorder_read_unlock(l, stats_flags);
		WARN_ON(taken == 0);
	}
	return !took;
}

static void kirqorder_down(struct kirqorder *l)
{
	while (kirqorder_trylock(l))
		cpu_relax();
}

static void kirqorder_up(struct kirqorder *l)
{
	__rwsk_in_interrupt(ksemirq_release, &l->sem);
}

RWSTRESS_KERNEL_SEMAPHORE_OPS(kirqorder_ops, KIRQORDER_NAME, struct kirqorder, kirqorder_init,
			      kirqorder_down, kirqorder_up, kirqorder_trylock);

#ifdef RWSTRESS_EXAMPLE_BROKEN
static void kcrash_lock(struct ktime_spin *l)
{
	if (atomic_xchg_acquire(&l->locked, 1) != 0)
		*(volatile int *)0 = 0;
}

RWSTRESS_KERNEL_MUTEX_OPS(kcrash_ops, "kcrash-contended", struct ktime_spin, ktime_init,
			  kcrash_lock, ktime_unlock, ktime_trylock);
RWSTRESS_KERNEL_PLUGIN(&ktime_ops, &kwake_ops, &korder_ops, &ksema_ops, &kleak_ops,
		       &kirq_ops, &kreadrel_ops, &ksemirq_ops, &kirqorder_ops, &kcrash_ops)
#else
RWSTRESS_KERNEL_PLUGIN(&ktime_ops, &kwake_ops, &korder_ops, &ksema_ops, &kleak_ops,
		       &kirq_ops, &kreadrel_ops, &ksemirq_ops, &kirqorder_ops)
#endif
