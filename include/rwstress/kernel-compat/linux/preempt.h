/* The kernel-compat layer's <linux/preempt.h>: preemption and interrupt state (preempt_disable() opens an RCU read-side section).
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_PREEMPT_H
#define RWSTRESS_LAYER_LINUX_PREEMPT_H

/* A preemption-disabled region is an RCU read-side section, as in a kernel
 * since 5.0: synchronize_rcu() waits for it (the host's urcu-memb). It
 * nests. Preemption itself is not disabled: the host's scheduler still
 * preempts the thread. */
#define preempt_disable() ((__rwsk_host()->rcu_read_lock)())
#define preempt_enable() ((__rwsk_host()->rcu_read_unlock)())
#define preempt_enable_no_resched() preempt_enable()
#define preempt_count() 0
#define preemptible() 1
#define migrate_disable() barrier()
#define migrate_enable() barrier()
#define in_interrupt() 0
#define in_irq() 0
#define in_nmi() 0
#define in_task() 1
#define in_atomic() (current->spin_depth != 0)
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

#endif /* RWSTRESS_LAYER_LINUX_PREEMPT_H */
