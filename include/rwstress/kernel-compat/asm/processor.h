/* The kernel-compat layer's <asm/processor.h>: cpu_relax(), the spin injection point.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_ASM_PROCESSOR_H
#define RWSTRESS_LAYER_ASM_PROCESSOR_H

/* ---- cpu_relax, the spin injection point -------------------------------- */

/* One turn of a busy-wait: the spin injection point, a pause, and every
 * 128th turn a sched_yield(), since a spinner here can outnumber the CPUs
 * and nothing stops the holder from being preempted. In a controlled run
 * (the explore build) the turn is the scheduler's spin turn instead. */
static __thread unsigned __rwsk_spins __attribute__((__unused__));
static inline void __rwsk_soft_lockup_check(const char *file, int line);  /* after the tasks */
#define cpu_relax() __rwsk_cpu_relax(__FILE__, __LINE__)
static inline void __rwsk_cpu_relax(const char *file, int line) {
#ifdef RWSTRESS_KERNEL_EXPLORE
  if (rwstress_explore_active()) {
    (void)file, (void)line;
    rwstress_explore_spin("cpu_relax");
    return;
  }
#endif
  __rwsk_host()->at(RWSTRESS_KPOINT_SPIN);
  __rwsk_soft_lockup_check(file, line);
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
  if ((++__rwsk_spins & 127) == 0) sched_yield();
  barrier();
}

#define smp_cond_load_relaxed(ptr, cond_expr)                   \
  ({                                                            \
    __typeof__(ptr) __PTR = (ptr);                              \
    __rwsk_unqual(*__PTR) VAL;                                  \
    for (;;) {                                                  \
      VAL = __rwsk_XP(__PTR, "smp_cond_load_relaxed", __rwsk_op_load, __ATOMIC_RELAXED); \
      if (cond_expr) break;                                     \
      cpu_relax();                                              \
    }                                                           \
    (__typeof__(*__PTR))VAL;                                    \
  })
#define smp_cond_load_acquire(ptr, cond_expr)                   \
  ({                                                            \
    __typeof__(ptr) __PTR = (ptr);                              \
    __rwsk_unqual(*__PTR) VAL;                                  \
    for (;;) {                                                  \
      VAL = __rwsk_XP(__PTR, "smp_cond_load_acquire", __rwsk_op_load, __ATOMIC_ACQUIRE); \
      if (cond_expr) break;                                     \
      cpu_relax();                                              \
    }                                                           \
    (__typeof__(*__PTR))VAL;                                    \
  })

#define prefetch(x) __builtin_prefetch(x)
#define prefetchw(x) __builtin_prefetch((x), 1)

#endif /* RWSTRESS_LAYER_ASM_PROCESSOR_H */
