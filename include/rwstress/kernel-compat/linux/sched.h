/* The kernel-compat layer's <linux/sched.h>: tasks: current, sleeping and waking, need_resched(), signals, wake_q.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
/* The system has a header of this name too (its uapi one), which system
 * headers include: that comes first. */
#include_next <linux/sched.h>
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_SCHED_H
#define RWSTRESS_LAYER_LINUX_SCHED_H

/* ---- Tasks ------------------------------------------------------------------ */

#define task_struct rwstress_kernel_task

#define TASK_RUNNING 0x0000
#define TASK_INTERRUPTIBLE RWSTRESS_KERNEL_TASK_INTERRUPTIBLE
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_WAKEKILL RWSTRESS_KERNEL_TASK_WAKEKILL
#define TASK_NOLOAD 0x0400
#define TASK_FREEZABLE 0x2000 /* no freezer here: a freezable sleep is an ordinary one */
#define TASK_KILLABLE (TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#define TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_NORMAL (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)
#define MAX_SCHEDULE_TIMEOUT LONG_MAX

/* current: the host's task of this thread, cached per file and thread. */
static __thread struct task_struct *__rwsk_current __attribute__((__unused__));
static inline struct task_struct *__rwsk_get_current(void) {
  struct task_struct *t = __rwsk_current;
  if (unlikely(!t)) t = __rwsk_current = __rwsk_host()->current_task();
  return t;
}
#define current __rwsk_get_current()
#define get_current() __rwsk_get_current()

static inline struct task_struct *get_task_struct(struct task_struct *t) {
  __atomic_add_fetch(&t->usage, 1, __ATOMIC_RELAXED);
  return t;
}
static inline void put_task_struct(struct task_struct *t) {
  if (__atomic_sub_fetch(&t->usage, 1, __ATOMIC_ACQ_REL) == 0) __rwsk_host()->put_task(t);
}
#define task_pid_nr(t) ((t)->pid)
#define task_cpu(t) ((t)->cpu)

#define smp_processor_id() (current->cpu)
#define raw_smp_processor_id() smp_processor_id()
#define get_cpu() smp_processor_id()
#define put_cpu() ((void)0)
#define num_online_cpus() ((unsigned int)sysconf(_SC_NPROCESSORS_ONLN))
#define num_possible_cpus() nr_cpu_ids
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (unsigned int)(cpu) < nr_cpu_ids; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)
#define cpu_online(cpu) ((unsigned int)(cpu) < nr_cpu_ids)
#define cpu_possible(cpu) cpu_online(cpu)

#include <linux/preempt.h>

#define might_sleep()                                                                 \
  do {                                                                                \
    if (unlikely(current->spin_depth))                                                \
      __rwsk_warn(__FILE__, __LINE__, "might_sleep() with a spin lock held");         \
  } while (0)
#define might_sleep_if(cond) \
  do {                       \
    if (cond) might_sleep(); \
  } while (0)
#define might_resched() ((void)0)
/* Clocks and delays: CLOCK_MONOTONIC, and busy or sleeping waits. */
static inline u64 __rwsk_now_ns(void) {
#ifdef RWSTRESS_KERNEL_EXPLORE
  if (rwstress_explore_active()) return rwstress_explore_host_->now_ns(); /* the run's steps */
#endif
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* need_resched(): TIF_NEED_RESCHED, set when the host says so (a resched
 * injector, or a slice run while others wanted the CPU: kernel_host.h) and
 * kept until the task schedules: schedule(), cond_resched(), yield(), or the
 * end of the plugin operation (a return to user space). */
static inline int __rwsk_need_resched(void) {
  struct task_struct *t = current;
  if (!t->need_resched) {
    if (!__rwsk_host()->resched_check()) return 0;
    t->need_resched = 1;
  }
  if (!t->resched_seen_ns) t->resched_seen_ns = __rwsk_now_ns();
  return 1;
}
#define need_resched() __rwsk_need_resched()
static inline void __rwsk_rescheduled(struct task_struct *t) {
  t->need_resched = 0;
  t->resched_seen_ns = 0;
}
static inline int __rwsk_cond_resched(void) {
  if (!need_resched()) return 0;
  __rwsk_rescheduled(current);
  sched_yield();
  return 1;
}
#define cond_resched() __rwsk_cond_resched()
/* The soft-lockup watchdog, for spinners: a task still spinning a second
 * after need_resched() told it to stop (it asked, and spun on) is what the
 * kernel's watchdog reports. A spinner that never asks (a raw spin lock's
 * waiter) is not judged here. Reported once a second of spinning, where
 * it spins. */
#define RWSTRESS_SOFT_LOCKUP_NS 1000000000ULL
static inline void __rwsk_soft_lockup_check(const char *file, int line) {
  struct task_struct *t = current;
  if (likely(!t->resched_seen_ns)) return;
#ifdef RWSTRESS_KERNEL_EXPLORE
  /* A controlled run's clock is its steps: a spinner that never stops is
   * its livelock bound's to judge (--max-steps), not a second of steps. */
  if (rwstress_explore_active()) return;
#endif
  const u64 now = __rwsk_now_ns();
  if (now - t->resched_seen_ns < RWSTRESS_SOFT_LOCKUP_NS) return;
  char what[160];
  snprintf(what, sizeof what,
           "soft lockup: still spinning %llu ms after need_resched() said to stop",
           (unsigned long long)((now - t->resched_seen_ns) / 1000000ULL));
  t->resched_seen_ns = now;
  __rwsk_warn(file, line, what);
}
/* Signals: the signal injector (signal@before-sleep) makes a fatal signal
 * pending for a task about to sleep, as SIGKILL would; a killable or
 * interruptible sleep wakes for it and the lock's bail-out path runs. The
 * glue "returns to user space" after each operation, which handles it
 * (rwstress_kernel_signal_handled). */
#define signal_pending(p) (__atomic_load_n(&(p)->sigpending, __ATOMIC_ACQUIRE) != 0)
#define fatal_signal_pending(p) signal_pending(p)
#define __fatal_signal_pending(p) signal_pending(p)
static inline int __rwsk_signal_pending_state(unsigned int state, struct task_struct *p) {
  if (!(state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL))) return 0;
#ifdef RWSTRESS_KERNEL_EXPLORE
  /* explore --signals: the scheduler may choose that the signal arrives
   * just before this check (the timed runs' signal@after-enqueue). */
  if (p == current && rwstress_explore_signal_check("signal_pending_state"))
    __atomic_store_n(&p->sigpending, 1, __ATOMIC_RELEASE);
#endif
  if (!signal_pending(p)) return 0;
  return (state & TASK_INTERRUPTIBLE) || __fatal_signal_pending(p);
}
#define signal_pending_state(state, p) __rwsk_signal_pending_state((unsigned int)(state), (p))
static inline void rwstress_kernel_signal_handled(void) {
  __atomic_store_n(&current->sigpending, 0, __ATOMIC_RELAXED);
}
/* A killable or interruptible acquisition returned -EINTR: the task goes
 * away as a killed one would (rwstress_kernel_host.killed), then, its
 * signal handled, may try again. */
static inline void rwstress_kernel_killed(void) {
  __rwsk_host()->killed();
  rwstress_kernel_signal_handled();
}
/* The end of a plugin operation, as a return to user space: a pending
 * signal is handled and a pending reschedule taken. */
static inline void __rwsk_return_to_user(void) {
  struct task_struct *t = current;
  rwstress_kernel_signal_handled();
  if (t->need_resched) __rwsk_rescheduled(t);
#ifdef RWSTRESS_KERNEL_EXPLORE
  rwstress_explore_op_end(); /* RCU callbacks due in a controlled run */
#endif
}

/* Setting a sleeping state fires after-enqueue, just before the store: in
 * the kernel's pattern the waiter is queued and about to drop the lock and
 * schedule(), and a lock that sets its state too late (after dropping the
 * lock) has its lost wake-up window opened here. */
static inline void __rwsk_note_state(int state) {
  if (state != TASK_RUNNING) __rwsk_host()->at(RWSTRESS_KPOINT_AFTER_ENQUEUE);
}
#define __set_current_state(state)                   \
  do {                                               \
    __rwsk_note_state(state);                        \
    WRITE_ONCE(current->__state, (state));           \
  } while (0)
#define set_current_state(state)                     \
  do {                                               \
    __rwsk_note_state(state);                        \
    smp_store_mb(current->__state, (state));         \
  } while (0)
#define set_special_state(state) set_current_state(state)

/* A task's sleep and wake-up: the futex system call, or in a controlled run
 * (the explore build) the scheduler's model of one. */
static inline long __rwsk_futex(int *word, int op, int val, const struct timespec *timeout) {
#ifdef RWSTRESS_KERNEL_EXPLORE
  if (rwstress_explore_active()) {
    if (op == 1 /* FUTEX_WAKE */) return rwstress_explore_futex_wake((unsigned *)word, val);
    const unsigned long long ns =
        timeout ? (unsigned long long)timeout->tv_sec * 1000000000ULL + (unsigned long long)timeout->tv_nsec
                : 0;
    rwstress_explore_futex_wait((unsigned *)word, (unsigned)val, ns ? ns : (timeout ? 1 : 0),
                                "schedule(): asleep");
    return 0;
  }
#endif
  return syscall(SYS_futex, word, op | 128 /* FUTEX_PRIVATE_FLAG */, val, timeout, NULL, 0);
}

/* A read of the clock by the lock's logic (jiffies, sched_clock()): under
 * explore --time-jumps the scheduler may choose that time jumps just
 * before it (rwsem.c's HANDOFF after RWSEM_WAIT_TIMEOUT is reached so). */
static inline u64 __rwsk_clock_read_ns(void) {
#ifdef RWSTRESS_KERNEL_EXPLORE
  if (rwstress_explore_active() && rwstress_explore_host_->abi >= 6)
    return rwstress_explore_host_->clock_read();
#endif
  return __rwsk_now_ns();
}
static inline unsigned long __rwsk_jiffies(void) {
  return (unsigned long)(__rwsk_clock_read_ns() / (1000000000UL / HZ));
}
#define jiffies __rwsk_jiffies()
#define msecs_to_jiffies(m) ((unsigned long)(m) * HZ / 1000)
#define usecs_to_jiffies(u) DIV_ROUND_UP((unsigned long)(u) * HZ, 1000000UL)
#define jiffies_to_msecs(j) ((unsigned int)((j) * 1000 / HZ))
#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)

/* Parks until a wake_up_process() set this task TASK_RUNNING, or until
 * `deadline` (jiffies; 0 = none). Returns at once if the wake-up came
 * first. An injected spurious wake-up returns as a real one would. */
static inline void __rwsk_park(unsigned long deadline, const char *file, int line) {
  struct task_struct *t = current;
  const struct rwstress_kernel_host *h = __rwsk_host();
  if (unlikely(t->spin_depth)) __rwsk_warn(file, line, "schedule() with a spin lock held");
  if (unlikely((h->rcu_read_ongoing)()))
    __rwsk_warn(file, line,
                "schedule() with preemption disabled or inside an RCU read-side critical section");
  h->at(RWSTRESS_KPOINT_BEFORE_SLEEP);
  __rwsk_rescheduled(t);
  /* Off the CPU while parked: an optimistic spinner that watches this task
   * as a lock owner (owner_on_cpu) stops spinning and sleeps too. */
  __rwsk_XPV(&t->on_cpu, "schedule(): off the CPU", __rwsk_op_store, 0, __ATOMIC_RELAXED);
  for (;;) {
    int state = __rwsk_XP(&t->__state, "schedule(): my state", __rwsk_op_load, __ATOMIC_ACQUIRE);
    if (state == TASK_RUNNING) break;
    /* A pending signal wakes a killable or interruptible sleep. */
    if ((state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL)) && signal_pending(t)) break;
    if (h->spurious_wake()) break;
    struct timespec ts, *tsp = NULL;
    if (deadline) {
      unsigned long now = __rwsk_jiffies();
      if (!time_before(now, deadline)) break;
      unsigned long left = deadline - now;
      ts.tv_sec = (time_t)(left / HZ);
      ts.tv_nsec = (long)(left % HZ) * (1000000000L / HZ);
      tsp = &ts;
    }
    __rwsk_futex(&t->__state, 0 /* FUTEX_WAIT */, state, tsp);
  }
  __rwsk_XPV(&t->__state, "schedule(): running", __rwsk_op_store, TASK_RUNNING, __ATOMIC_RELAXED);
  __rwsk_XPV(&t->on_cpu, "schedule(): on the CPU", __rwsk_op_store, 1, __ATOMIC_RELAXED);
  h->at(RWSTRESS_KPOINT_AFTER_WAKE);
}

/* schedule() and the unlocks are macros so that a warning names the
 * caller's file and line. */
#define schedule() __rwsk_park(0, __FILE__, __LINE__)
#define schedule_preempt_disabled() \
  do {                              \
    preempt_enable();               \
    schedule();                     \
    preempt_disable();              \
  } while (0)
#define io_schedule() schedule()
static inline long __rwsk_schedule_timeout(long timeout, const char *file, int line) {
  if (timeout == MAX_SCHEDULE_TIMEOUT) {
    __rwsk_park(0, file, line);
    return timeout;
  }
  if (timeout <= 0) {
    __atomic_store_n(&current->__state, TASK_RUNNING, __ATOMIC_RELAXED);
    return 0;
  }
  unsigned long deadline = __rwsk_jiffies() + (unsigned long)timeout;
  if (deadline == 0) deadline = 1;
  __rwsk_park(deadline, file, line);
  long left = (long)(deadline - __rwsk_jiffies());
  return left < 0 ? 0 : left;
}
#define schedule_timeout(t) __rwsk_schedule_timeout((t), __FILE__, __LINE__)
#define schedule_timeout_uninterruptible(t) \
  ({ __set_current_state(TASK_UNINTERRUPTIBLE); schedule_timeout(t); })
#define yield() (__rwsk_rescheduled(current), (void)sched_yield())
#define task_is_running(t) (READ_ONCE((t)->__state) == TASK_RUNNING)
/* Real-time tasks and preempted CPUs: explore --rt-threads and
 * --virtual-cpus (docs/explore.md, "Priorities"); a task's slot is its
 * thread's index in a controlled run. In a timed run a task is real-time
 * where the harness made its thread SCHED_FIFO (--rt-threads,
 * --writer-fifo: task->rt_priority), and every CPU is a CPU of its own. */
#ifdef RWSTRESS_KERNEL_EXPLORE
#define rt_task(t) (rwstress_explore_rt_priority((t)->cpu) > 0)
#define vcpu_is_preempted(cpu) (rwstress_explore_preempted((int)(cpu)) != 0)
#else
#define rt_task(t) ((t)->rt_priority > 0)
#define vcpu_is_preempted(cpu) false
#endif
#define rt_or_dl_task(t) rt_task(t)
#define dl_task(t) 0
#define rt_or_dl_task_policy(t) rt_or_dl_task(t)
/* Whether a lock owner runs: false while it is parked in schedule(), and
 * (explore --virtual-cpus) while a thread of higher priority keeps it off
 * its CPU. A thread the host's scheduler preempted in a timed run still
 * counts as running (as a preempted task does in the kernel until it is
 * switched out). */
static inline bool owner_on_cpu(struct task_struct *owner) {
  return READ_ONCE(owner->on_cpu) && !vcpu_is_preempted(task_cpu(owner));
}
#include <linux/rcupdate.h>

#define local_clock() __rwsk_clock_read_ns()
#define sched_clock() __rwsk_clock_read_ns()
#define ktime_get_ns() __rwsk_clock_read_ns()
static inline void ndelay(unsigned long ns) {
  const u64 end = __rwsk_now_ns() + ns;
  while (__rwsk_now_ns() < end) cpu_relax();
}
#define udelay(us) ndelay((unsigned long)(us) * 1000UL)
#define mdelay(ms) ndelay((unsigned long)(ms) * 1000000UL)
static inline void msleep(unsigned int ms) {
#ifdef RWSTRESS_KERNEL_EXPLORE
  if (rwstress_explore_active()) { /* a timed sleep of the run's time */
    unsigned none = 0;
    rwstress_explore_futex_wait(&none, 0, (unsigned long long)ms * 1000000ULL + 1, "msleep");
    return;
  }
#endif
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* try_to_wake_up: wakes the task only if its state matches `state` (a
 * mismatched wake is a no-op, as in the kernel: wake_up_state(p,
 * TASK_INTERRUPTIBLE) leaves an uninterruptible sleeper asleep). 1 if it
 * woke the task. Fully ordered before it reads the state
 * (smp_mb__after_spinlock in the kernel). The kernel's try_to_wake_up()
 * takes p->pi_lock first, whatever the state: the lock-order checker hears
 * of it, with the caller's file and line (none: another task's wake-up,
 * not this one's). */
static inline int __rwsk_try_to_wake_up(struct task_struct *p, unsigned int state,
                                        const char *file, int line) {
  if (file && __rwsk_lock_order_on()) __rwsk_host()->lock_wakeup(file, line);
  __rwsk_host()->at(RWSTRESS_KPOINT_BEFORE_WAKE);
  __rwsk_MMFENCE(__ATOMIC_SEQ_CST);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  int cur = __rwsk_XP(&p->__state, "try_to_wake_up: its state", __rwsk_op_load, __ATOMIC_RELAXED);
  do {
    if (!((unsigned int)cur & state)) return 0;
  } while (!__rwsk_XP(&p->__state, "try_to_wake_up", __rwsk_op_cas, &cur, TASK_RUNNING,
                      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  __rwsk_futex(&p->__state, 1 /* FUTEX_WAKE */, 1, NULL);
  return 1;
}
#define wake_up_process(p) __rwsk_try_to_wake_up((p), TASK_NORMAL, __FILE__, __LINE__)
#define wake_up_state(p, state) \
  __rwsk_try_to_wake_up((p), (unsigned int)(state), __FILE__, __LINE__)
#define try_to_wake_up(p, state, flags) \
  __rwsk_try_to_wake_up((p), (unsigned int)(state), __FILE__, __LINE__)

/* wake_q: wake-ups collected under a lock and done after dropping it. */
struct wake_q_head {
  struct rwstress_kernel_wake_q_node *first;
  struct rwstress_kernel_wake_q_node **lastp;
};
#define WAKE_Q_TAIL ((struct rwstress_kernel_wake_q_node *)0x01)
#define WAKE_Q_HEAD_INITIALIZER(name) { WAKE_Q_TAIL, &name.first }
#define DEFINE_WAKE_Q(name) struct wake_q_head name = WAKE_Q_HEAD_INITIALIZER(name)
static inline void wake_q_init(struct wake_q_head *head) {
  head->first = WAKE_Q_TAIL;
  head->lastp = &head->first;
}
static inline bool wake_q_empty(struct wake_q_head *head) { return head->first == WAKE_Q_TAIL; }
static inline void wake_q_add(struct wake_q_head *head, struct task_struct *task) {
  __rwsk_host()->at(RWSTRESS_KPOINT_MID_RELEASE);
  struct rwstress_kernel_wake_q_node *none = NULL;
  /* Already on a wake_q: its owner wakes it. A full barrier first, as
   * the kernel's __wake_q_add() (smp_mb__before_atomic()): the cmpxchg
   * may fail, and the pending wake-up must still see what this waker did
   * before (and what it saw: a sleeper's state stored before the lock
   * this waker took), or the sleeper is never woken. */
  __rwsk_MMFENCE(__ATOMIC_SEQ_CST);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#ifdef RWSTRESS_KERNEL_EXPLORE
  /* The task may already be on another waker's wake_q (any waker of the
   * system that has not yet run its wake_up_q()): then this add fails
   * and that waker's wake-up may come at once, before the caller goes on
   * ("the wakeup can come instantly", kernel/sched/core.c). Under explore
   * a choice of the schedule (one of its spurious wake-ups): woken here,
   * after the barrier, as that waker would, and not queued. Code that
   * publishes what the woken task waits for only after the add loses
   * the wake-up (rwsem.c's reader wake-up before "locking/rwsem: Fix
   * (possible) missed wakeup", 2018). */
  if (rwstress_explore_foreign_wake()) {
    __rwsk_try_to_wake_up(task, TASK_NORMAL, NULL, 0); /* that waker's, under no lock of ours */
    return;
  }
#endif
  if (!__rwsk_XP(&task->wake_q.next, "wake_q_add", __rwsk_op_cas, &none, WAKE_Q_TAIL,
                 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
    return;
  get_task_struct(task);
  *head->lastp = &task->wake_q;
  head->lastp = &task->wake_q.next;
}
static inline void wake_q_add_safe(struct wake_q_head *head, struct task_struct *task) {
  wake_q_add(head, task);
  put_task_struct(task);
}
static inline void wake_up_q(struct wake_q_head *head) {
  struct rwstress_kernel_wake_q_node *node = head->first;
  while (node != WAKE_Q_TAIL) {
    struct task_struct *task = container_of(node, struct task_struct, wake_q);
    node = node->next;
    __rwsk_XPV(&task->wake_q.next, "wake_up_q", __rwsk_op_store, NULL, __ATOMIC_RELAXED);
    wake_up_process(task);
    put_task_struct(task);
  }
}

/* io_schedule() bookkeeping (iowait accounting): nothing to account. */
#define io_schedule_prepare() 0
#define io_schedule_finish(token) ((void)(token))
/* Proxy execution (CONFIG_SCHED_PROXY_EXEC) is off, as in a kernel built
 * without it: mutex.c keeps blocked_on (and its WARNs) but never donates. */
#define sched_proxy_exec() false

#endif /* RWSTRESS_LAYER_LINUX_SCHED_H */
