/*
 * A kernel-style queued rwlock over a queued (MCS) spinlock, written against
 * rwstress's kernel-compat layer in the shape of the kernel's qrwlock.c and
 * qspinlock.c. The layer gives the lock word layouts and the inline fast
 * paths (queued_read_lock, queued_write_lock, queued_spin_lock, ... as in
 * asm-generic); this file is the slow paths:
 *
 *   queued_spin_lock_slowpath   waiters queue on per-CPU MCS nodes; the tail
 *                               of the queue lives in the lock word, the head
 *                               spins on the lock byte, the others on their
 *                               own node (no pending bit: a simplification)
 *   queued_read_lock_slowpath   a reader that met a writer queues on the
 *                               wait_lock, then waits for the writer to go
 *   queued_write_lock_slowpath  a writer queues on the wait_lock, announces
 *                               itself (_QW_WAITING) and waits for the
 *                               readers to drain
 *
 *   kernel-qrwlock     the queued rwlock (read/write trylocks)
 *   kernel-qspinlock   the queued spinlock alone, as a mutex (trylock)
 *
 * Built with -DRWSTRESS_EXAMPLE_BROKEN it is kernel-qrwlock-broken alone: the
 * writer's slow path takes the lock as soon as no other writer holds it,
 * without waiting for the readers to drain: readers and a writer inside
 * together, which rwstress's exclusion checker reports.
 *
 *   cc -shared -fPIC -O2 $(pkg-config --cflags rwstress-kernel) kernel_qrwlock.c -o kqrw.so
 *   rwstress --plugin ./kqrw.so validate --lock kernel-qrwlock
 */
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#ifdef RWSTRESS_EXAMPLE_BROKEN
#define EXAMPLE_NAME(n) n "-broken"
#else
#define EXAMPLE_NAME(n) n
#endif

/* ---- The queued spinlock's slow path ---------------------------------- */

#define MAX_NODES	4	/* nesting depth per CPU, as in the kernel */

struct mcs_node {
	struct mcs_node	*next;
	int		locked;	/* 1: the lock is handed to us */
	int		count;	/* nesting, in the node of index 0 */
};

static DEFINE_PER_CPU_ALIGNED(struct mcs_node, mcs_nodes[MAX_NODES]);

static inline u32 encode_tail(int cpu, int idx)
{
	return ((u32)(cpu + 1) << _Q_TAIL_CPU_OFFSET) | ((u32)idx << _Q_TAIL_IDX_OFFSET);
}

static inline struct mcs_node *decode_tail(u32 tail)
{
	int cpu = (int)(tail >> _Q_TAIL_CPU_OFFSET) - 1;
	int idx = (tail & _Q_TAIL_IDX_MASK) >> _Q_TAIL_IDX_OFFSET;

	return per_cpu_ptr(&mcs_nodes[idx], cpu);
}

void queued_spin_lock_slowpath(struct qspinlock *lock, u32 val)
{
	struct mcs_node *node, *prev, *next;
	u32 old, tail;
	int idx;

	(void)val;
	node = this_cpu_ptr(&mcs_nodes[0]);
	idx = node->count++;
	tail = encode_tail(smp_processor_id(), idx);
	if (unlikely(idx >= MAX_NODES)) {
		while (!queued_spin_trylock(lock))
			cpu_relax();
		goto release;
	}
	node += idx;
	barrier();
	node->locked = 0;
	node->next = NULL;

	if (queued_spin_trylock(lock))
		goto release;

	/* The node's fields are visible before the tail names it. */
	smp_wmb();
	old = (u32)xchg_relaxed(&lock->tail, (u16)(tail >> _Q_TAIL_OFFSET)) << _Q_TAIL_OFFSET;
	next = NULL;
	if (old & _Q_TAIL_MASK) {
		prev = decode_tail(old);
		WRITE_ONCE(prev->next, node);
		smp_cond_load_acquire(&node->locked, VAL);
		next = READ_ONCE(node->next);
	}

	/* Head of the queue: wait for the owner to go. */
	val = atomic_cond_read_acquire(&lock->val, !(VAL & _Q_LOCKED_MASK));

	/* The last in the queue takes the lock and empties the tail at once. */
	if ((val & _Q_TAIL_MASK) == tail &&
	    atomic_try_cmpxchg_relaxed(&lock->val, &val, _Q_LOCKED_VAL))
		goto release;

	/* Someone queued behind us: take the lock byte, hand them the head. */
	WRITE_ONCE(lock->locked, _Q_LOCKED_VAL);
	if (!next)
		next = smp_cond_load_relaxed(&node->next, (VAL));
	smp_store_release(&next->locked, 1);
release:
	__this_cpu_dec(mcs_nodes[0].count);
}

/* ---- The queued rwlock's slow paths ------------------------------------ */

void queued_read_lock_slowpath(struct qrwlock *lock)
{
	/* Give the reader bias back while queued, so that a writer can drain. */
	atomic_sub(_QR_BIAS, &lock->cnts);

	arch_spin_lock(&lock->wait_lock);
	atomic_add(_QR_BIAS, &lock->cnts);

	/* Readers wait only for a writer that holds the lock, not one waiting. */
	atomic_cond_read_acquire(&lock->cnts, !(VAL & _QW_LOCKED));

	arch_spin_unlock(&lock->wait_lock);
}

void queued_write_lock_slowpath(struct qrwlock *lock)
{
	int cnts;

	arch_spin_lock(&lock->wait_lock);

	cnts = atomic_read(&lock->cnts);
	if (!cnts && atomic_try_cmpxchg_acquire(&lock->cnts, &cnts, _QW_LOCKED))
		goto unlock;

	atomic_or(_QW_WAITING, &lock->cnts);
#ifdef RWSTRESS_EXAMPLE_BROKEN
	/* The bug: only the writer bits are waited for, not the readers. */
	do {
		cnts = atomic_cond_read_relaxed(&lock->cnts, (VAL & _QW_WMASK) == _QW_WAITING);
	} while (!atomic_try_cmpxchg_acquire(&lock->cnts, &cnts,
					     (cnts & ~_QW_WMASK) | _QW_LOCKED));
#else
	do {
		cnts = atomic_cond_read_relaxed(&lock->cnts, VAL == _QW_WAITING);
	} while (!atomic_try_cmpxchg_acquire(&lock->cnts, &cnts, _QW_LOCKED));
#endif
unlock:
	arch_spin_unlock(&lock->wait_lock);
}

/* ---- As rwstress locks ------------------------------------------------- */

static void kqrwlock_init(struct qrwlock *lock)
{
	*lock = (struct qrwlock)__ARCH_RW_LOCK_UNLOCKED;
}

static __maybe_unused void kqspinlock_init(struct qspinlock *lock)
{
	*lock = (struct qspinlock)__ARCH_SPIN_LOCK_UNLOCKED;
}

RWSTRESS_KERNEL_RWSEM_OPS(kqrwlock_ops, EXAMPLE_NAME("kernel-qrwlock"), struct qrwlock,
			  kqrwlock_init, queued_read_lock, queued_read_unlock, queued_write_lock,
			  queued_write_unlock, queued_read_trylock, queued_write_trylock, NULL);
#ifdef RWSTRESS_EXAMPLE_BROKEN
RWSTRESS_KERNEL_PLUGIN(&kqrwlock_ops)
#else
RWSTRESS_KERNEL_MUTEX_OPS(kqspinlock_ops, "kernel-qspinlock", struct qspinlock, kqspinlock_init,
			  queued_spin_lock, queued_spin_unlock, queued_spin_trylock);
RWSTRESS_KERNEL_PLUGIN(&kqrwlock_ops, &kqspinlock_ops)
#endif
