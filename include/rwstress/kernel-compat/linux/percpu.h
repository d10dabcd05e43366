/* The kernel-compat layer's <linux/percpu.h>: per-CPU data: DEFINE_PER_CPU, per_cpu_ptr, this_cpu_*, alloc_percpu.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_LINUX_PERCPU_H
#define RWSTRESS_LAYER_LINUX_PERCPU_H

/* ---- Per-CPU data --------------------------------------------------------- */

/* Per-CPU variables live in one section; the first use lays out a copy of
 * it per slot (NR_CPUS copies, each 64-byte aligned), and per_cpu_ptr()
 * moves a pointer into the section to the same place in a slot's copy. */
#define __RWSK_PERCPU __attribute__((__section__("rwstress_percpu")))
#define DEFINE_PER_CPU(type, name) __RWSK_PERCPU __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name) __RWSK_PERCPU __attribute__((__aligned__(64))) __typeof__(type) name
#define DEFINE_PER_CPU_SHARED_ALIGNED(type, name) DEFINE_PER_CPU_ALIGNED(type, name)
#define DECLARE_PER_CPU(type, name) extern __typeof__(type) name
#define DECLARE_PER_CPU_ALIGNED(type, name) DECLARE_PER_CPU(type, name)

extern char __start_rwstress_percpu[] __attribute__((__weak__, __visibility__("hidden")));
extern char __stop_rwstress_percpu[] __attribute__((__weak__, __visibility__("hidden")));
__attribute__((__weak__, __visibility__("hidden"))) char *__rwsk_percpu_area;

static inline size_t __rwsk_percpu_stride(void) {
  return ((size_t)(__stop_rwstress_percpu - __start_rwstress_percpu) + 63) & ~(size_t)63;
}
static inline char *__rwsk_percpu_layout(void) {
  const size_t stride = __rwsk_percpu_stride();
  const size_t used = (size_t)(__stop_rwstress_percpu - __start_rwstress_percpu);
  char *area = (char *)aligned_alloc(64, stride * NR_CPUS);
  if (!area) {
    fprintf(stderr, "rwstress kernel layer: no memory for per-CPU data\n");
    abort();
  }
  for (size_t cpu = 0; cpu < NR_CPUS; ++cpu) {
    memcpy(area + cpu * stride, __start_rwstress_percpu, used);
    memset(area + cpu * stride + used, 0, stride - used);
  }
  char *none = NULL;
  if (!__atomic_compare_exchange_n(&__rwsk_percpu_area, &none, area, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    free(area);
    return none;
  }
  return area;
}
#ifdef RWSTRESS_KERNEL_EXPLORE
/* A controlled run's thread i runs on CPU i, and each schedule starts from
 * fresh per-CPU data: rwstress calls this for the slot before the thread
 * first uses it, so that what a schedule stopped by a deadlock left there
 * (a queued spinlock's node count) does not change the next one. Returns
 * the slot's copy of the static per-CPU data and its size (a trace names
 * the words in it), NULL when the plugin has none. */
__attribute__((__weak__, __visibility__("default"))) void *rwstress_kernel_fresh_cpu_v1(
    int cpu, size_t *size) {
  const size_t used = (size_t)(__stop_rwstress_percpu - __start_rwstress_percpu);
  *size = used;
  if (used == 0 || cpu < 0 || cpu >= NR_CPUS) return NULL;
  char *area = __atomic_load_n(&__rwsk_percpu_area, __ATOMIC_ACQUIRE);
  if (!area) area = __rwsk_percpu_layout(); /* fresh: laid out now */
  char *mine = area + (size_t)cpu * __rwsk_percpu_stride();
  memcpy(mine, __start_rwstress_percpu, used);
  return mine;
}
#endif
/* Dynamic per-CPU data (alloc_percpu): NR_CPUS copies `stride` bytes
 * apart, zeroed, after a 64-byte header that keeps the stride. */
struct __rwsk_percpu_header {
  void *raw;
  size_t stride;
};
static inline int __rwsk_static_percpu(const void *p) {
  return (const char *)p >= __start_rwstress_percpu && (const char *)p < __stop_rwstress_percpu;
}
static inline void *__alloc_percpu(size_t size, size_t align) {
  const size_t stride = (size + (align > 64 ? align : 64) - 1) & ~(size_t)63;
  char *raw = (char *)calloc(1, 128 + stride * NR_CPUS); /* untouched pages stay unmapped */
  if (!raw) return NULL;
  char *base = (char *)(((uintptr_t)raw + 64 + 63) & ~(uintptr_t)63);
  struct __rwsk_percpu_header *h = (struct __rwsk_percpu_header *)(base - 64);
  h->raw = raw;
  h->stride = stride;
  return base;
}
#define alloc_percpu(type) ((__typeof__(type) *)__alloc_percpu(sizeof(type), __alignof__(type)))
#define alloc_percpu_gfp(type, gfp) alloc_percpu(type)
static inline void free_percpu(void *p) {
  if (p) free(((struct __rwsk_percpu_header *)((uintptr_t)p - 64))->raw);
}
static inline void *__rwsk_per_cpu(const void *p, int cpu) {
  if (!__rwsk_static_percpu(p)) { /* (in integers: the compiler cannot follow the header) */
    const uintptr_t at = (uintptr_t)p;
    return (void *)(at + (size_t)cpu * ((const struct __rwsk_percpu_header *)(at - 64))->stride);
  }
  char *area = __atomic_load_n(&__rwsk_percpu_area, __ATOMIC_ACQUIRE);
  if (unlikely(!area)) area = __rwsk_percpu_layout();
  return area + (size_t)cpu * __rwsk_percpu_stride() + ((const char *)p - __start_rwstress_percpu);
}
#define per_cpu_ptr(ptr, cpu) ((__typeof__(ptr))__rwsk_per_cpu((ptr), (cpu)))
#define this_cpu_ptr(ptr) per_cpu_ptr(ptr, smp_processor_id())
#define raw_cpu_ptr(ptr) this_cpu_ptr(ptr)
#define per_cpu(var, cpu) (*per_cpu_ptr(&(var), cpu))
/* Plain accesses to this thread's copy (the kernel's are one instruction,
 * not atomic); scheduling points in the explore build. */
#define __rwsk_op_pcpu_add(P, v) __rwsk_MMVAL(P, LOCAL_RMW, __ATOMIC_RELAXED, (*(P) += (v)))
#define __rwsk_op_pcpu_sub(P, v) __rwsk_MMVAL(P, LOCAL_RMW, __ATOMIC_RELAXED, (*(P) -= (v)))
#define this_cpu_read(var) __rwsk_XP(this_cpu_ptr(&(var)), "this_cpu_read", __rwsk_op_vload)
#define this_cpu_write(var, v) __rwsk_XPV(this_cpu_ptr(&(var)), "this_cpu_write", __rwsk_op_vstore, (v))
#define this_cpu_add(var, v) __rwsk_XPV(this_cpu_ptr(&(var)), "this_cpu_add", __rwsk_op_pcpu_add, (v))
#define this_cpu_sub(var, v) __rwsk_XPV(this_cpu_ptr(&(var)), "this_cpu_sub", __rwsk_op_pcpu_sub, (v))
#define this_cpu_inc(var) this_cpu_add(var, 1)
#define this_cpu_dec(var) this_cpu_sub(var, 1)
/* The __this_cpu_*() and raw_cpu_*() forms are not interrupt-safe: the
 * kernel leaves them to the architecture, and where it has no single
 * instruction for a read-modify-write of this CPU's copy they are a load
 * and a store. In the explore build they are that, with an interrupt
 * offer between (<linux/preempt.h>, "Interrupts"); and after a read, as
 * a write may follow it. The this_cpu_*() forms above are one step. */
#ifdef RWSTRESS_KERNEL_EXPLORE
/* (one step, as this_cpu_*(), in a run that takes no interrupts: its
 * schedules are the ones made before interrupts were) */
#define __rwsk_this_cpu_rmw(var, op, v, what, one)                                   \
  do {                                                                               \
    if (!__rwsk_irqs_arrive()) {                                                     \
      one(var, v);                                                                   \
    } else {                                                                         \
      __typeof__(&(var)) __rwsk_pc = this_cpu_ptr(&(var));                           \
      const __typeof__(var) __rwsk_pv = __rwsk_XP(__rwsk_pc, what, __rwsk_op_vload); \
      __rwsk_irq_point();                                                            \
      __rwsk_XPV(__rwsk_pc, what, __rwsk_op_vstore, __rwsk_pv op(v));                \
    }                                                                                \
  } while (0)
#define __this_cpu_read(var)                                  \
  __extension__({                                             \
    const __typeof__(var) __rwsk_rv = this_cpu_read(var);     \
    __rwsk_irq_point();                                       \
    __rwsk_rv;                                                \
  })
#define __this_cpu_add(var, v) __rwsk_this_cpu_rmw(var, +, v, "__this_cpu_add", this_cpu_add)
#define __this_cpu_sub(var, v) __rwsk_this_cpu_rmw(var, -, v, "__this_cpu_sub", this_cpu_sub)
#else
#define __this_cpu_read this_cpu_read
#define __this_cpu_add this_cpu_add
#define __this_cpu_sub this_cpu_sub
#endif
#define __this_cpu_write this_cpu_write
#define __this_cpu_inc(var) __this_cpu_add(var, 1)
#define __this_cpu_dec(var) __this_cpu_sub(var, 1)
#define raw_cpu_read __this_cpu_read
#define raw_cpu_inc __this_cpu_inc
#define TYPEOF_UNQUAL(exp) __typeof__(({ exp; }))
#ifndef compiletime_assert_atomic_type
#define compiletime_assert_atomic_type(t) \
  _Static_assert(sizeof(t) <= sizeof(long long), "not an atomic type: " #t)
#endif

#endif /* RWSTRESS_LAYER_LINUX_PERCPU_H */
