/* What rwstress lends a plugin written against <rwstress/kernel.h>: its
 * tasks, its injection points and its violation channel (docs/plugins.md,
 * "The kernel-compat layer").
 *
 * A plugin that includes <rwstress/kernel.h> exports
 * rwstress_kernel_attach_v1; rwstress calls it once, right after loading the
 * plugin and before any of its ops, with the table below. Plain C, no macros
 * that could clash with kernel code, so that rwstress's own C++ includes it
 * too. A plugin author never calls any of this directly. */
#ifndef RWSTRESS_KERNEL_HOST_H
#define RWSTRESS_KERNEL_HOST_H

#ifdef __cplusplus
extern "C" {
#endif

/* 2: struct rwstress_kernel_task gained on_cpu, sigpending, need_resched,
 * resched_seen_ns, blocked_on, blocked_lock and blocked_donor, and the host
 * table cpus_in_use and resched_check. A plugin built for 1 reads a prefix
 * of each and keeps working; one built for 2 refuses an older host when it
 * is loaded: it says why in one line, and rwstress refuses the plugin.
 * 3: the host table gained RCU (rcu_read_lock ... rcu_barrier).
 * 4: the host table gained acquire_kind and killed (the run's share of
 * killable acquisitions, and a killed task that goes away).
 * 5: struct raw_spinlock gained lock_class, and the host table
 * lock_acquire, lock_release and lock_wakeup (the lock-order checker). A
 * task's blocked_lock grew with it: the fields after it moved, which a
 * plugin built for 4 never shares with the host (it reads and writes
 * them alone, within the task the host allocated for 5).
 * 6: the host table gained lock_irq_state (lockdep's interrupt-state rule,
 * in the explore build, where interrupts arrive).
 * 7: a task gained rt_priority (the layer's rt_task() in timed runs). */
#define RWSTRESS_KERNEL_HOST_ABI 7

/* The "CPUs" of the layer are thread slots: each thread that calls into
 * the layer gets the lowest free slot for as long as it lives, so that
 * smp_processor_id() and per-CPU data are private to one thread even when
 * threads outnumber processors (no preemption control in userspace). */
#define RWSTRESS_KERNEL_NR_CPUS 10240

/* The injection points the layer fires; the numbers are rwstress's. */
enum rwstress_kernel_point {
    RWSTRESS_KPOINT_AFTER_ENQUEUE = 0, /* set_current_state(sleeping state) */
    RWSTRESS_KPOINT_BEFORE_SLEEP  = 1, /* schedule(), before parking */
    RWSTRESS_KPOINT_AFTER_WAKE    = 2, /* schedule(), after it returns */
    RWSTRESS_KPOINT_BEFORE_WAKE   = 3, /* wake_up_process() */
    RWSTRESS_KPOINT_SPIN          = 4, /* cpu_relax(), spin-lock slow paths */
    RWSTRESS_KPOINT_MID_RELEASE   = 5, /* wake_q_add(): release decided, wake not done */
    RWSTRESS_KPOINT_WAIT_UNLOCK   = 6, /* raw_spin_unlock(): just dropped (ABI 4) */
    RWSTRESS_KPOINT_FAST_PATH     = 7  /* percpu_down_read(): idle seen, count not raised (4) */
};

struct rwstress_kernel_wake_q_node {
    struct rwstress_kernel_wake_q_node *next;
};

struct rwstress_kernel_task;
struct mutex;

/* The kernel's struct callback_head (rcu_head): call_rcu() runs func(head)
 * after a grace period. */
struct rwstress_kernel_rcu_head {
    struct rwstress_kernel_rcu_head *next;
    void (*func)(struct rwstress_kernel_rcu_head *head);
};

/* The layer's raw_spinlock_t (a test-and-set lock that records its owner),
 * here because a task holds one (blocked_lock). lock_class (ABI 5) names
 * the lock's class as lockdep keys it: "what@file:line" of the init site
 * (raw_spin_lock_init(&sem->wait_lock) in rwsem.c: every rwsem's
 * wait_lock), or of the static initializer; NULL for a lock that was
 * zeroed, not initialised (its class is its address, or, for a task's
 * blocked_lock, every task's blocked_lock). */
struct raw_spinlock {
    int locked;
    struct rwstress_kernel_task *owner;
    const char *lock_class;
};

/* The sleeping states of __state that a fatal signal ends (the layer's
 * <linux/sched.h> TASK_INTERRUPTIBLE and TASK_WAKEKILL are these): the
 * host reads them to tell a killable or interruptible sleeper from one
 * that does not leave its wait. */
#define RWSTRESS_KERNEL_TASK_INTERRUPTIBLE 0x0001
#define RWSTRESS_KERNEL_TASK_WAKEKILL 0x0100

/* One thread as the layer sees it. rwstress owns it: it is made on the
 * thread's first call to current, and freed when the thread has exited and
 * the last get_task_struct reference is put. */
struct rwstress_kernel_task {
    int __state;             /* TASK_*; the futex word schedule() parks on */
    int cpu;                 /* this thread's slot, 0 .. RWSTRESS_KERNEL_NR_CPUS-1 */
    int pid;                 /* kernel thread id */
    int usage;               /* get/put_task_struct references (atomic) */
    int spin_depth;          /* spin locks this thread holds (might_sleep, schedule) */
    struct rwstress_kernel_wake_q_node wake_q;
    /* ABI 2 */
    int on_cpu;              /* 1 unless parked in schedule(); rwstress starts it at 1 */
    int sigpending;          /* a fatal signal is pending (the signal injector sets it) */
    int need_resched;        /* TIF_NEED_RESCHED: set by need_resched(), cleared by schedule() */
    unsigned long long resched_seen_ns; /* when need_resched() first said so (soft-lockup check) */
    /* Proxy execution's fields (mutex.c from 6.18 on): the mutex the task
     * is blocked on, the lock that serialises it (7.x), the donor (7.x). */
    struct mutex *blocked_on;
    struct raw_spinlock blocked_lock;
    struct rwstress_kernel_task *blocked_donor;
    /* ABI 7: above 0 where the thread runs SCHED_FIFO at that priority in a
     * timed run (--rt-threads, --writer-fifo), as the harness made it; the
     * layer's rt_task() outside the explore build (which asks the
     * controlled scheduler instead). Its base policy: a while off it under
     * the run's RT guard does not change it, as the kernel's throttling
     * does not change a task's priority. */
    int rt_priority;
};

struct rwstress_kernel_host {
    unsigned abi; /* RWSTRESS_KERNEL_HOST_ABI */
    struct rwstress_kernel_task *(*current_task)(void);
    void (*put_task)(struct rwstress_kernel_task *task); /* the last reference frees it */
    void (*at)(enum rwstress_kernel_point point);
    int (*spurious_wake)(void); /* 1: let this schedule() return without a wake-up */
    /* A WARN_ON, BUG_ON or failed lockdep assertion: becomes a lock-warning
     * violation (FAIL) of the run, naming file and line. */
    void (*warn)(const char *file, int line, const char *what);
    /* ABI 2 */
    /* The slots taken so far in this process (one more than the highest):
     * the layer's nr_cpu_ids, so that per-CPU sums walk the CPUs a run of
     * N threads has, not all RWSTRESS_KERNEL_NR_CPUS. Read atomically. */
    const int *cpus_in_use;
    /* 1 when the calling thread should reschedule: a resched injector fired
     * at need-resched, or the thread has run a slice (3 ms) since it last
     * slept and the host scheduler preempted it meanwhile (others wanted
     * its CPU). The layer keeps the answer in task->need_resched. */
    int (*resched_check)(void);
    /* ABI 3: RCU, on liburcu's membarrier flavour (urcu-memb). A read-side
     * section nests, and the layer's preempt_disable() opens one too, as
     * in a kernel since 5.0 (a grace period waits for preemption-disabled
     * code). synchronize_rcu() waits for every section begun before it;
     * inside one it is a lock warning and returns at once. call_rcu() runs
     * head->func(head) on a host thread after a grace period; rcu_barrier()
     * waits for every callback queued before it. */
    void (*rcu_read_lock)(void);
    void (*rcu_read_unlock)(void);
    int (*rcu_read_ongoing)(void);
    void (*synchronize_rcu)(void);
    void (*call_rcu)(struct rwstress_kernel_rcu_head *head);
    void (*rcu_barrier)(void);
    /* ABI 4: signals. Which entry point the calling thread's next
     * acquisition takes: 0 the plain one, 1 the killable one, 2 the
     * interruptible one; one acquisition in --killable-every (default 4)
     * is killable or interruptible, by turns. */
    int (*acquire_kind)(void);
    /* The calling task's acquisition returned -EINTR: it goes away, as a
     * killed task would, instead of retrying at once (a retry would take
     * the lock the bail-out path may have left free and wake the waiters
     * it should have woken, healing a lost wake-up). Returns once the
     * other threads have completed an operation without it, when every
     * other thread is away too, or when the run stops. */
    void (*killed)(void);
    /* ABI 5: lock order (docs/checkers.md, "lock-order"). lock_acquire
     * before a spin lock is waited for (trylock 0), or once a trylock took
     * it (1: a trylock waits for nothing, so it orders nothing after what
     * is held; what is taken under it is ordered after it); subclass is
     * the _nested annotation's. lock_release when it is dropped.
     * lock_wakeup where the calling task wakes another: the scheduler
     * takes that task's pi_lock (and its run queue's lock under it). A
     * cycle among the classes, these included, is a lock-order violation,
     * raised where the order that closes it is first taken. file and line
     * are the call site's, kept as pointers: string literals. */
    void (*lock_acquire)(const void *lock, const char *lock_class, int subclass, int trylock,
                         const char *file, int line);
    void (*lock_release)(const void *lock);
    void (*lock_wakeup)(const char *file, int line);
    /* Nonzero while the checker is on (a checked run, every explore
     * schedule): the layer calls none of the three while it reads 0
     * (--no-check), so that an unchecked run pays a load for it. */
    const int *lock_order_on;
    /* A release op (unlock, up, up_read, up_write) returned with spin
     * locks still held (task->spin_depth): lockdep's "lock held when
     * returning to user space". A lock-warning violation naming the op,
     * the glue's file and line, and (lock order on) each lock held and
     * where it was taken. */
    void (*held_at_release)(const char *op, const char *file, int line);
    /* ABI 6: right after lock_acquire, in the explore build (where
     * interrupts arrive: explore --interrupts), the context the lock was
     * taken in: in an interrupt handler, or in task context with
     * interrupts on. A lock class taken both ways is a lock-order
     * violation (lockdep's "inconsistent lock state": an interrupt that
     * arrives while a task holds it spins on it for good on that CPU).
     * file and line as lock_acquire's. */
    void (*lock_irq_state)(const void *lock, int in_irq, int irqs_on, const char *file, int line);
};

#ifdef __cplusplus
}
#endif

#endif /* RWSTRESS_KERNEL_HOST_H */
