/* What the glue files share.
 *
 * Lock names: "upstream-NAME" (scripts/kernel-upstream.sh), or PREFIX "-NAME"
 * when built with -DRWSTRESS_KERNEL_NAME_PREFIX='"k6.18"' (rwstress kernel
 * names each lock by its kernel: k6.18-rwsem). */
#ifndef RWSTRESS_KERNEL_GLUE_H
#define RWSTRESS_KERNEL_GLUE_H
#include <rwstress/kernel_plain.h> /* the explore build's plain stores */
#ifdef RWSTRESS_KERNEL_NAME_PREFIX
#define GLUE_NAME(name) RWSTRESS_KERNEL_NAME_PREFIX "-" name
#else
#define GLUE_NAME(name) "upstream-" name
#endif

/* What a killed task leaves behind: its kernel stack is reused. The frames
 * the bail-out path returned from (a waiter on the stack that a broken path
 * left linked, say) are overwritten with the slab poison byte, as the next
 * use of that stack would, instead of being found intact by the retry that
 * reuses the same addresses. */
static __attribute__((__noinline__, __unused__)) void glue_scribble_stack(void) {
  volatile char frame[8192];
  memset((char *)frame, 0x6b, sizeof frame);
  __asm__ __volatile__("" : : "r"(frame) : "memory");
}

/* A killable or interruptible acquisition, retried until it succeeds: a
 * signal (the signal injector) makes it bail out with -EINTR; the task goes
 * away as a killed one would, until the other threads have done an
 * operation without it (so a wake-up the bail-out path failed to make is
 * not made for it by its own retry), handles the signal, leaves its stack
 * as a killed task would and tries again from deeper down the stack (up to
 * 16 times 512 bytes), so that the retry's own on-stack waiter does not
 * land where the dead one was and hide it. Any other return is a lock
 * warning. */
#define GLUE_UNTIL_ACQUIRED(call)                                               \
  do {                                                                          \
    int ret, deeper = 0;                                                        \
    while ((ret = (call)) != 0) {                                               \
      if (ret != -EINTR) WARN(1, #call " returned %d, not 0 or -EINTR", ret);   \
      rwstress_kernel_killed();                                                 \
      glue_scribble_stack();                                                    \
      if (deeper++ < 16) {                                                      \
        volatile char *pad = (volatile char *)__builtin_alloca(512);            \
        pad[0] = 0;                                                             \
      }                                                                         \
    }                                                                           \
  } while (0)

/* One acquisition in --killable-every (4 by default; the host decides,
 * rwstress_kernel_host.acquire_kind) takes a killable or interruptible
 * entry point, by turns (the killable one twice where there is no
 * interruptible one): GLUE_ACQUIRE(plain, killable, interruptible). A lock
 * whose glue does this declares RWSTRESS_LOCK_KILLABLE. */
#define GLUE_ACQUIRE(plain, killable, interruptible)                            \
  do {                                                                          \
    switch (__rwsk_host()->acquire_kind()) {                                    \
      case 1: GLUE_UNTIL_ACQUIRED(killable); break;                             \
      case 2: GLUE_UNTIL_ACQUIRED(interruptible); break;                        \
      default: plain; break;                                                    \
    }                                                                           \
  } while (0)
/* A trylock whose hold keeps preemption off, as read_trylock() and
 * spin_trylock() do (explore --virtual-cpus hears of it, <linux/preempt.h>):
 * held from the try, given back where it failed; its value. */
#define GLUE_TRYLOCK_PREEMPT_HELD(call)                                         \
  __extension__({                                                               \
    __rwsk_preempt_hold(1);                                                     \
    const int glue_took = (call);                                               \
    if (!glue_took) __rwsk_preempt_hold(-1);                                    \
    glue_took;                                                                  \
  })
/* fn(arg), every second call of the calling thread (at this call site) in
 * an interrupt handler (__rwsk_in_interrupt, <linux/preempt.h>: under
 * explore --interrupts; elsewhere at once), the others in task context:
 * the work a glue gives interrupts (qrwlock's read lock, semaphore's up()). */
#define GLUE_EVERY_SECOND_IN_INTERRUPT(fn, arg)                                  \
  do {                                                                          \
    static __thread unsigned glue_calls;                                        \
    if (glue_calls++ % 2 == 1)                                                  \
      __rwsk_in_interrupt((fn), (arg));                                         \
    else                                                                        \
      (fn)(arg);                                                                \
  } while (0)
/* The idle check (plugin ABI 3, not_idle): a wait list the file may keep
 * as a list_head or as a first-waiter pointer (the layer has both fields;
 * one stays as the object's zeroed memory or its init left it). */
#define GLUE_NO_WAITERS(lock)                                                    \
  (((lock)->wait_list.next == NULL || list_empty(&(lock)->wait_list)) &&        \
   (lock)->first_waiter == NULL)
/* The waiter a hand-off lock owes the lock next (the plugin ABI's
 * handoff_waiter) is found through its first waiter. mutex.c's and
 * rwsem.c's waiters are their own files' types (kernel/locking/mutex.h,
 * rwsem.c), and begin { struct list_head list; struct task_struct *task; }
 * in every series 6.1 .. 7.2: the first is 7.2's first_waiter where set,
 * else the head of the wait list (NULL: none). Raw loads only: it runs
 * between two explore steps with every thread stopped, and must not reach
 * a scheduling point as the layer's atomics and READ_ONCE do. */
struct glue_waiter_start {
  struct list_head list;
  struct task_struct *task;
};
#define GLUE_RAW(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
static inline const struct glue_waiter_start *glue_first_waiter(const void *first_waiter,
                                                                struct list_head *head) {
  if (first_waiter) return (const struct glue_waiter_start *)first_waiter;
  struct list_head *next = GLUE_RAW(head->next);
  return next == NULL || next == head ? NULL : (const struct glue_waiter_start *)next;
}
#endif
