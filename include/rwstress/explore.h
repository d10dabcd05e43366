/* Scheduling points for a plugin's own code: what makes a plugin lock
 * explorable by `rwstress explore` (docs/explore.md, "Plugins").
 *
 * Under explore, the lock's threads run one at a time and give up the CPU
 * only at scheduling points. rwstress cannot stop inside a plugin's code
 * by itself, so a plugin that wants to be explored says where its shared
 * accesses, busy-wait turns and sleeps are, through the calls below, and
 * declares RWSTRESS_LOCK_CONTROLLED in its ops' flags. A lock that spins
 * or sleeps anywhere else would stop the whole controlled run: every
 * access another thread can see must go through RWSTRESS_ACCESS, every
 * busy-wait turn through rwstress_explore_spin(), every sleep through
 * rwstress_explore_futex_wait(). A spin that promises to end (after so
 * many turns, or by a deadline) says so and takes its turns through
 * rwstress_explore_spin_bounded() (<rwstress/spin_bound.h>): rwstress
 * judges the bound in every run, timed or explored.
 *
 *     #include <rwstress/explore.h>
 *
 *     while (RWSTRESS_ACCESS(&l->word, "xchg", __atomic_exchange_n(&l->word, 1, __ATOMIC_ACQUIRE)))
 *       rwstress_explore_spin("spin");
 *
 * Outside a controlled run (every ordinary rwstress run) each call costs one
 * thread-local test: RWSTRESS_ACCESS evaluates its expression, spin does
 * nothing, futex_wait and futex_wake are the futex system calls. The
 * kernel-compat layer (<rwstress/kernel.h>) built with
 * -DRWSTRESS_KERNEL_EXPLORE routes its atomics, barriers, spin turns and
 * schedule() through the same calls.
 *
 * The plugin exports rwstress_explore_attach_v1 (defined here); rwstress
 * calls it once when it loads the plugin. Plain C (GNU C: statement
 * expressions); usable from C++. */
#ifndef RWSTRESS_EXPLORE_H
#define RWSTRESS_EXPLORE_H

#include <stddef.h>
#include <string.h>

#include <rwstress/spin_bound.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1: the first table. 2: signal_check. 3: model. 4: model_load.
 * 5: plain_store. 6: spin_judge, clock_read. 7: foreign_wake.
 * 8: post_interrupt, interrupt, cpus. 9: preempt_hold, rt_priority, preempted. */
#define RWSTRESS_EXPLORE_HOST_ABI 9

/* What an access was, for the memory model (model() below). */
#define RWSTRESS_MODEL_LOAD 0
#define RWSTRESS_MODEL_STORE 1
#define RWSTRESS_MODEL_RMW 2
#define RWSTRESS_MODEL_FENCE 3          /* word: 0 */
#define RWSTRESS_MODEL_FENCE_EVERYONE 4 /* membarrier(), a grace period; word 0, order 0 */
#define RWSTRESS_MODEL_LOCAL_RMW 5      /* a non-atomic RMW of this CPU's copy (this_cpu_inc) */

struct rwstress_explore_host {
    unsigned abi; /* RWSTRESS_EXPLORE_HOST_ABI */
    /* 1 when the calling thread runs under the controlled scheduler. */
    int (*active)(void);
    /* An access to `word` is about to happen: a scheduling point (the
     * thread may be switched out here). Returns 1 when it was one; the
     * caller then reports the word's value before and after the access
     * with accessed(), once it is done: an access that changed the word
     * lets busy-waiters look again. */
    int (*access)(unsigned long word, const char *what); /* the word's address */
    void (*accessed)(unsigned long long before, unsigned long long after);
    /* A scheduling point that is not an access (a barrier, a hook). */
    void (*point)(const char *what);
    /* One busy-wait turn: the spinner runs again only when another thread
     * changed a word, or when nobody else can run. */
    void (*spin)(const char *what);
    /* Sleeps while *word == expected until futex_wake(word), or timeout_ns
     * of the run's time (0: none); may return spuriously. In a controlled
     * run the sleep is modelled (the thread is blocked on the word); else
     * it is the futex system call. */
    void (*futex_wait)(const unsigned *word, unsigned expected, unsigned long long timeout_ns,
                       const char *what);
    /* Wakes up to n threads asleep on word; returns how many. */
    int (*futex_wake)(const unsigned *word, int n);
    /* The run's clock in nanoseconds: a controlled run's steps (time
     * advances by --step-time per step), CLOCK_MONOTONIC otherwise. */
    unsigned long long (*now_ns)(void);
    /* The end of one lock operation (the kernel layer's return to user
     * space): work the host deferred to it runs here. */
    void (*op_end)(void);
    /* ABI 2. A killable or interruptible sleep checks for a signal (the
     * kernel layer's signal_pending_state()): under explore --signals a
     * scheduling point where the scheduler may choose that a fatal signal
     * arrives now; returns 1 then. 0, and no point, otherwise. */
    int (*signal_check)(const char *what);
    /* ABI 3. Under explore --memory c11, the memory model follows every
     * access and fence (docs/explore.md, "Memory models"): what the access
     * to `size` bytes at `word` just done was (RWSTRESS_MODEL_*) and its
     * order, numbered as GCC's __ATOMIC_* (0 relaxed .. 5 seq_cst).
     * Nothing otherwise. */
    void (*model)(unsigned long word, unsigned size, int kind, int order);
    /* ABI 4. A load of `size` bytes (at most 8) at `word` just done, whose
     * value is at `value`: under explore --memory c11 or tso the model may
     * replace it with an older value the model lets the load read (a
     * choice of the schedule); the model's LOAD event otherwise. */
    void (*model_load)(unsigned long word, unsigned size, int order, void *value);
    /* ABI 5. A plain (non-atomic) store of `size` bytes at `word` is about
     * to be made (the kernel layer's explore build sees them through the
     * compiler's instrumentation: rwstress/kernel_plain.h). Under explore
     * --memory c11 or tso, where the model already follows the word, it
     * takes the store as a relaxed one once made. Not a scheduling point. */
    void (*plain_store)(unsigned long word, unsigned size);
    /* ABI 5. A plain load of `size` bytes at `word` is about to be made:
     * under --memory c11 or tso, where the model follows the word, it is a
     * relaxed load, which may read an older store the model allows (a
     * choice of the schedule): the host then puts that value in memory
     * for this one load, and the latest back before the thread's next
     * call. Not a scheduling point. */
    void (*plain_load)(unsigned long word, unsigned size);
    /* ABI 6. One busy-wait turn of a spin whose bound `b` states
     * (<rwstress/spin_bound.h>), judged on the run's clock (now_ns): a
     * turn past the bound is the run's spin-bound violation. In every
     * run, controlled or not; not a scheduling point. */
    void (*spin_judge)(struct rwstress_spin_bound *b);
    /* ABI 6. A read of the clock by the lock's logic (jiffies,
     * sched_clock(): the kernel layer's explore build): now_ns(), after
     * the scheduler chose whether time jumps just before it (explore
     * --time-jumps, a choice of the schedule, replayed). Not a scheduling
     * point. */
    unsigned long long (*clock_read)(void);
    /* ABI 7. A wake-up about to be queued for later (the kernel layer's
     * wake_q_add()): 1 when the scheduler chose that the task is already
     * on another waker's queue, whose owner wakes it now, before the
     * caller goes on (explore's spurious wake-ups: a choice of the
     * schedule, replayed); the caller then wakes it at once and does not
     * queue it. 0 outside a controlled run. Not a scheduling point. */
    int (*foreign_wake)(void);
    /* ABI 8. Work for an interrupt handler (the kernel layer's, opaque
     * here): 1 when the run takes interrupts (explore --interrupts) and
     * the work is queued, to run on the CPU where an interrupt arrives;
     * 0 otherwise: the caller runs it now. NULL: only whether the run
     * takes interrupts. Not a scheduling point. */
    int (*post_interrupt)(void *work);
    /* ABI 8. An interrupt offer at the caller's step: the oldest queued
     * work when the scheduler chose that an interrupt arrives now (a
     * choice of the schedule, replayed), or with `force` (no choice);
     * NULL otherwise. The caller runs it as the handler. Not a
     * scheduling point. */
    void *(*interrupt)(int force);
    /* ABI 8. The controlled run's threads (the kernel layer's nr_cpu_ids
     * there: the same in every schedule of a shape, in any process); 0
     * outside one. */
    int (*cpus)(void);
    /* ABI 9 (explore --virtual-cpus, --rt-threads). The calling thread
     * turned preemption or interrupts off (+1) or back on (-1), nesting:
     * meanwhile no other thread of its virtual CPU runs. Not a scheduling
     * point. */
    void (*preempt_hold)(int delta);
    /* ABI 9. Thread `thread`'s real-time priority (0: a normal task; 0
     * outside a controlled run). */
    int (*rt_priority)(int thread);
    /* ABI 9. Whether thread `thread` is runnable but kept off its virtual
     * CPU by a thread of higher priority (or one that holds the CPU): not
     * on a CPU, as the kernel sees a preempted task. */
    int (*preempted)(int thread);
};

/* Set by rwstress_explore_attach_v1; one definition across the plugin's
 * files (weak, hidden). NULL until rwstress attaches the plugin. */
__attribute__((__weak__, __visibility__("hidden"))) const struct rwstress_explore_host
    *rwstress_explore_host_;

__attribute__((__weak__, __visibility__("default"))) void rwstress_explore_attach_v1(
    const struct rwstress_explore_host *host) {
    if (host->abi >= 1) rwstress_explore_host_ = host; /* older hosts: the calls they have */
}

/* Exported by every plugin built on this header (ABI 3): its accesses
 * tell the memory model what they are (RWSTRESS_ACCESS below), so
 * `explore --memory c11` may run it. A plugin built on an older header
 * does not have it and is explored without the model. */
__attribute__((__weak__, __visibility__("default"))) int rwstress_explore_model_v1(void) {
    return 1;
}

static inline int rwstress_explore_active(void) {
    return rwstress_explore_host_ && rwstress_explore_host_->active();
}
static inline int rwstress_explore_access(const volatile void *word, const char *what) {
    /* The word's address only (the host never reads through it): passed as
     * an integer, so that a compiler does not take the call for a read of
     * memory not yet written (INIT_LIST_HEAD's first WRITE_ONCE). */
    const unsigned long address = (unsigned long)word;
    return rwstress_explore_host_ ? rwstress_explore_host_->access(address, what) : 0;
}
static inline void rwstress_explore_accessed(unsigned long long before, unsigned long long after) {
    rwstress_explore_host_->accessed(before, after);
}
static inline void rwstress_explore_point(const char *what) {
    if (rwstress_explore_host_) rwstress_explore_host_->point(what);
}
static inline void rwstress_explore_spin(const char *what) {
    if (rwstress_explore_host_) rwstress_explore_host_->spin(what);
}
/* One busy-wait turn of a spin with a bound (<rwstress/spin_bound.h>):
 * judged against it (ABI 6 hosts), then rwstress_explore_spin(what). */
static inline void rwstress_explore_spin_bounded(struct rwstress_spin_bound *b, const char *what) {
    if (rwstress_explore_host_ && rwstress_explore_host_->abi >= 6 &&
        b->kind != RWSTRESS_SPIN_BOUND_NONE)
        rwstress_explore_host_->spin_judge(b);
    rwstress_explore_spin(what);
}
/* The run's clock in nanoseconds, the one a deadline of a spin bound is
 * on: the controlled run's steps under explore, CLOCK_MONOTONIC in any
 * other rwstress run; 0 outside rwstress (where nothing judges a bound). */
static inline unsigned long long rwstress_explore_now_ns(void) {
    return rwstress_explore_host_ ? rwstress_explore_host_->now_ns() : 0;
}
/* Whether a wake-up the caller means to queue comes now instead, from
 * another waker that queued the task first (ABI 7 hosts; 0 otherwise). */
static inline int rwstress_explore_foreign_wake(void) {
    return rwstress_explore_host_ && rwstress_explore_host_->abi >= 7
               ? rwstress_explore_host_->foreign_wake()
               : 0;
}
/* Work for an interrupt handler queued (ABI 8 hosts, under explore
 * --interrupts): 1; 0 when the caller is to run it now. */
static inline int rwstress_explore_post_interrupt(void *work) {
    return rwstress_explore_host_ && rwstress_explore_host_->abi >= 8
               ? rwstress_explore_host_->post_interrupt(work)
               : 0;
}
/* The work an interrupt arriving here runs, or NULL (ABI 8 hosts). */
static inline void *rwstress_explore_interrupt(int force) {
    return rwstress_explore_host_ && rwstress_explore_host_->abi >= 8
               ? rwstress_explore_host_->interrupt(force)
               : NULL;
}
/* The controlled run's threads (ABI 8 hosts), 0 outside one. */
static inline int rwstress_explore_cpus(void) {
    return rwstress_explore_host_ && rwstress_explore_host_->abi >= 8
               ? rwstress_explore_host_->cpus()
               : 0;
}
/* ABI 9 hosts; outside a controlled run: nothing, 0, 0. */
static inline void rwstress_explore_preempt_hold(int delta) {
    if (rwstress_explore_host_ && rwstress_explore_host_->abi >= 9)
        rwstress_explore_host_->preempt_hold(delta);
}
static inline int rwstress_explore_rt_priority(int thread) {
    return rwstress_explore_host_ && rwstress_explore_host_->abi >= 9
               ? rwstress_explore_host_->rt_priority(thread)
               : 0;
}
static inline int rwstress_explore_preempted(int thread) {
    return rwstress_explore_host_ && rwstress_explore_host_->abi >= 9
               ? rwstress_explore_host_->preempted(thread)
               : 0;
}
/* Outside rwstress (the plugin's own tests) these two are no-ops: a
 * plugin that sleeps must be run by rwstress. */
static inline void rwstress_explore_futex_wait(const volatile unsigned *word, unsigned expected,
                                               unsigned long long timeout_ns, const char *what) {
    if (rwstress_explore_host_)
        rwstress_explore_host_->futex_wait((const unsigned *)word, expected, timeout_ns, what);
}
static inline int rwstress_explore_futex_wake(const volatile unsigned *word, int n) {
    return rwstress_explore_host_ ? rwstress_explore_host_->futex_wake((const unsigned *)word, n)
                                  : 0;
}
static inline int rwstress_explore_signal_check(const char *what) {
    return rwstress_explore_host_ && rwstress_explore_host_->abi >= 2
               ? rwstress_explore_host_->signal_check(what)
               : 0;
}
/* A memory-model event (ABI 3 hosts; nothing for older ones). */
static inline void rwstress_explore_model(const volatile void *word, unsigned size, int kind,
                                          int order) {
    if (rwstress_explore_host_ && rwstress_explore_host_->abi >= 3)
        rwstress_explore_host_->model((unsigned long)word, size, kind, order);
}
/* A load's memory-model event, with its value: the host may replace it
 * (ABI 4); an ABI 3 host takes it as a load of the latest store. */
static inline void rwstress_explore_model_load(const volatile void *word, unsigned size, int order,
                                               void *value) {
    if (rwstress_explore_host_ && rwstress_explore_host_->abi >= 4)
        rwstress_explore_host_->model_load((unsigned long)word, size, order, value);
    else
        rwstress_explore_model(word, size, RWSTRESS_MODEL_LOAD, order);
}
static inline void rwstress_explore_op_end(void) {
    if (rwstress_explore_host_) rwstress_explore_host_->op_end();
}

/* The first 8 bytes of an object (the value a trace shows). */
static inline unsigned long long rwstress_explore_bits_(const volatile void *p, size_t size) {
    unsigned long long v = 0;
    memcpy(&v, (const void *)p, size < sizeof v ? size : sizeof v);
    return v;
}

#ifdef __cplusplus
#define RWSTRESS_EXPLORE_AUTO_ auto
#else
#define RWSTRESS_EXPLORE_AUTO_ __auto_type
#endif

/* EXPR, an access to the object PTR points to, made a scheduling point;
 * its value. PTR (no side effects) is evaluated besides EXPR. Under
 * explore --memory c11 the memory model takes it for a seq_cst
 * read-modify-write: it orders everything, so the model reports nothing
 * about the plugin's own orders (and nothing false); RWSTRESS_ACCESS_ORDERED
 * says what the access is, and the model checks it. */
#define RWSTRESS_ACCESS(ptr, what, expr) \
    RWSTRESS_ACCESS_ORDERED(ptr, what, RWSTRESS_MODEL_RMW, 5 /* seq_cst */, expr)
/* The same, for the memory model a KIND (RWSTRESS_MODEL_LOAD, _STORE,
 * _RMW) with an ORDER numbered as __ATOMIC_* (0 relaxed, 2 acquire,
 * 3 release, 4 acq_rel, 5 seq_cst): a load that should have been an
 * acquire then fails explore --memory c11's ordering check. */
#define RWSTRESS_ACCESS_ORDERED(ptr, what, kind, order, expr)                              \
    __extension__({                                                                        \
        RWSTRESS_EXPLORE_AUTO_ rwstress_o_ = RWSTRESS_ACCESS_UNMODELLED(ptr, what, expr);  \
        rwstress_explore_model((ptr), sizeof(*(ptr)), (kind), (order));                    \
        rwstress_o_;                                                                       \
    })
/* A load of the scalar (at most 8 bytes) PTR points to, with ORDER (as
 * __ATOMIC_*), made a scheduling point; its value. Under explore --memory
 * c11 or tso it may be an older value the model lets the load read (a
 * choice of the schedule, replayed), as weaker hardware may show it. */
#define RWSTRESS_LOAD(ptr, what, order)                                                     \
    __extension__({                                                                        \
        RWSTRESS_EXPLORE_AUTO_ rwstress_l_ =                                               \
            RWSTRESS_ACCESS_UNMODELLED(ptr, what, __atomic_load_n((ptr), (order)));        \
        rwstress_explore_model_load((ptr), (unsigned)sizeof rwstress_l_, (order), &rwstress_l_); \
        rwstress_l_;                                                                       \
    })
/* For code that makes its own rwstress_explore_model() calls (the
 * kernel-compat layer's explore build): a point, not told to the model. */
#define RWSTRESS_ACCESS_UNMODELLED(ptr, what, expr)                                           \
    __extension__({                                                                           \
        const volatile void *const rwstress_w_ = (ptr);                                      \
        const int rwstress_on_ = rwstress_explore_access(rwstress_w_, (what));               \
        const unsigned long long rwstress_b_ =                                                \
            rwstress_on_ ? rwstress_explore_bits_(rwstress_w_, sizeof(*(ptr))) : 0;           \
        RWSTRESS_EXPLORE_AUTO_ rwstress_r_ = (expr);                                          \
        if (rwstress_on_)                                                                     \
            rwstress_explore_accessed(rwstress_b_,                                            \
                                      rwstress_explore_bits_(rwstress_w_, sizeof(*(ptr))));   \
        rwstress_r_;                                                                          \
    })
/* The same for an access whose expression has no value (a store); no value. */
#define RWSTRESS_ACCESS_VOID(ptr, what, expr) \
    ((void)RWSTRESS_ACCESS(ptr, what, ((void)(expr), 0)))
#define RWSTRESS_ACCESS_ORDERED_VOID(ptr, what, kind, order, expr) \
    ((void)RWSTRESS_ACCESS_ORDERED(ptr, what, kind, order, ((void)(expr), 0)))
#define RWSTRESS_ACCESS_UNMODELLED_VOID(ptr, what, expr) \
    ((void)RWSTRESS_ACCESS_UNMODELLED(ptr, what, ((void)(expr), 0)))

#ifdef __cplusplus
}
#endif

#endif /* RWSTRESS_EXPLORE_H */
