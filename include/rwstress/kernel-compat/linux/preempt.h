/* The kernel-compat layer's <linux/preempt.h>: preemption and interrupt state (preempt_disable() opens an RCU read-side section).
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_PREEMPT_H
#define RWSTRESS_LAYER_LINUX_PREEMPT_H

/* A preemption-disabled region is an RCU read-side section, as in a kernel
 * since 5.0: synchronize_rcu() waits for it (the host's urcu-memb). It
 * nests. Preemption itself is not disabled in a timed run: the host's
 * scheduler still preempts the thread. In the explore build the
 * scheduler hears of it (and of interrupts off, and of a spin lock's
 * hold, which disables preemption in the kernel): under explore
 * --virtual-cpus no other thread of the thread's virtual CPU runs
 * meanwhile (docs/explore.md, "Priorities"). */
#ifdef RWSTRESS_KERNEL_EXPLORE
#define __rwsk_preempt_hold(delta) rwstress_explore_preempt_hold(delta)
#else
#define __rwsk_preempt_hold(delta) ((void)0)
#endif
#define preempt_disable() ((__rwsk_host()->rcu_read_lock)(), __rwsk_preempt_hold(1))
#define preempt_enable() (__rwsk_preempt_hold(-1), (__rwsk_host()->rcu_read_unlock)())
#define preempt_enable_no_resched() preempt_enable()
#define preempt_count() 0
#define preemptible() 1
#define migrate_disable() barrier()
#define migrate_enable() barrier()
#define in_nmi() 0
#define in_atomic() (current->spin_depth != 0 || in_interrupt())

/* ---- Interrupts ----------------------------------------------------------
 * Each thread's CPU slot has an interrupt state: local_irq_disable() and
 * the spin_lock_irq*() forms turn interrupts off (they do not nest, as in
 * the kernel: local_irq_save() keeps the old state in its flags), and a
 * handler runs with in_interrupt() true and interrupts off. One state a
 * thread across the plugin's files (weak, hidden); the explore build's
 * only, since no interrupt arrives in the other.
 *
 * Interrupts arrive only in the explore build, under explore --interrupts
 * (docs/explore.md, "Interrupts"): what a glue gives an interrupt handler
 * (__rwsk_in_interrupt(): percpu-rwsem's read hold released by a
 * completion, as file_end_write() releases one from an AIO completion) is
 * queued, and runs as a handler on the CPU where the scheduler chooses
 * that an interrupt arrives: in the middle of a per-CPU read-modify-write
 * that is not interrupt-safe (__this_cpu_inc() and the rest, a load and a
 * store here as on the architectures without one instruction for it), or
 * on the posting CPU itself after a few of its turns. Everywhere else an
 * interrupt's handler is only another CPU's steps, which the schedules
 * already interleave. Outside a controlled run the work runs at once, in
 * task context. */
#ifdef RWSTRESS_KERNEL_EXPLORE
struct __rwsk_irq_state {
  int off;    /* local_irq_disable() */
  int in_irq; /* a handler runs */
};
__attribute__((__weak__, __visibility__("hidden"))) __thread struct __rwsk_irq_state __rwsk_irq;
#define in_interrupt() (__rwsk_irq.in_irq != 0)
#define in_irq() in_interrupt()
#define in_hardirq() in_interrupt()
#define in_task() (!in_interrupt())
#define irqs_disabled() (__rwsk_irq.off != 0 || in_interrupt())
/* Interrupts off hold the thread's virtual CPU (no preemption either). */
static inline void __rwsk_irqs_set(int off) {
  if (off != __rwsk_irq.off) __rwsk_preempt_hold(off ? 1 : -1);
  __rwsk_irq.off = off;
}
#define local_irq_disable() \
  do {                      \
    __rwsk_irqs_set(1);     \
    barrier();              \
  } while (0)
#define local_irq_enable() \
  do {                     \
    barrier();             \
    __rwsk_irqs_set(0);    \
  } while (0)
#define local_irq_save(flags)                 \
  do {                                        \
    (flags) = (unsigned long)__rwsk_irq.off;  \
    __rwsk_irqs_set(1);                       \
    barrier();                                \
  } while (0)
#define local_irq_restore(flags)    \
  do {                              \
    barrier();                      \
    __rwsk_irqs_set((int)(flags));  \
  } while (0)
#else
/* (the timed build: no interrupt ever arrives, and an irqsave in a fast
 * path, semaphore.c's down() and up(), pays nothing for the state) */
#define in_interrupt() 0
#define in_irq() 0
#define in_hardirq() 0
#define in_task() 1
#define irqs_disabled() 0
#define local_irq_disable() barrier()
#define local_irq_enable() barrier()
#define local_irq_save(flags) \
  do {                        \
    (flags) = 0;              \
    barrier();                \
  } while (0)
#define local_irq_restore(flags) \
  do {                           \
    (void)(flags);               \
    barrier();                   \
  } while (0)
#endif

/* Runs fn(arg) as an interrupt handler: on the CPU where an interrupt
 * arrives (explore --interrupts), at once in task context otherwise. */
typedef void (*__rwsk_irq_fn)(void *);
#ifdef RWSTRESS_KERNEL_EXPLORE
struct __rwsk_irq_work {
  __rwsk_irq_fn fn;
  void *arg;
  int posted; /* the poster's release: what it did before happens before the handler */
  int done;   /* the handler's release, which the poster waits for */
};
static inline void __rwsk_irq_handle(struct __rwsk_irq_work *w) {
  const struct __rwsk_irq_state was = __rwsk_irq;
  /* Sequentially consistent: the model lets it read only the latest store,
   * the poster's release. An interrupt is delivered after it is raised,
   * and its handler sees what the raiser did first; an acquire load could
   * read the work's initial 0 under --memory c11, and the handler would
   * then run without the poster's view (a read hold released in a handler
   * not ordered after the reader's section: a false ordering FAIL). */
  (void)__rwsk_XP(&w->posted, "interrupt: handler", __rwsk_op_load, __ATOMIC_SEQ_CST);
  __rwsk_preempt_hold(1); /* (a handler is never preempted) */
  __rwsk_irq.in_irq = 1;
  __rwsk_irq.off = 1;
  w->fn(w->arg);
  __rwsk_irq = was;
  __rwsk_preempt_hold(-1);
  __rwsk_XPV(&w->done, "interrupt: handler done", __rwsk_op_store, 1, __ATOMIC_RELEASE);
}
/* Whether this run takes interrupts (explore --interrupts). */
#define __rwsk_irqs_arrive() rwstress_explore_post_interrupt(NULL)
/* An interrupt may arrive here (the step just made), where this CPU
 * takes them: the queued work it runs, if the scheduler chose one. */
static inline void __rwsk_irq_point(void) {
  if (__rwsk_irq.off || __rwsk_irq.in_irq) return;
  struct __rwsk_irq_work *w = (struct __rwsk_irq_work *)rwstress_explore_interrupt(0);
  if (w) __rwsk_irq_handle(w);
}
/* The poster waits for its work's interrupt (so that it is delivered in
 * every schedule): two turns for another CPU's, then its own CPU takes
 * the oldest queued (no choice), until its own has run. */
static inline void __rwsk_in_interrupt(__rwsk_irq_fn fn, void *arg) {
  struct __rwsk_irq_work w = {fn, arg, 0, 0};
  if (__rwsk_irq.in_irq || !__rwsk_irqs_arrive()) {
    fn(arg);
    return;
  }
  __rwsk_XPV(&w.posted, "interrupt: work posted", __rwsk_op_store, 1, __ATOMIC_RELEASE);
  rwstress_explore_post_interrupt(&w);
  for (int turn = 0; !__rwsk_XP(&w.done, "interrupt: awaited", __rwsk_op_load, __ATOMIC_ACQUIRE);
       ++turn) {
    struct __rwsk_irq_work *next =
        turn >= 2 ? (struct __rwsk_irq_work *)rwstress_explore_interrupt(1) : NULL;
    if (next)
      __rwsk_irq_handle(next);
    else
      rwstress_explore_spin("interrupt: awaited");
  }
}
#else
#define __rwsk_irq_point() ((void)0)
#define __rwsk_irqs_arrive() 0
static inline void __rwsk_in_interrupt(__rwsk_irq_fn fn, void *arg) { fn(arg); }
#endif

#endif /* RWSTRESS_LAYER_LINUX_PREEMPT_H */
