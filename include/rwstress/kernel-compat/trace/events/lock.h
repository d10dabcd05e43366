/* The kernel-compat layer's <trace/events/lock.h>: the lock tracepoints, which trace nothing.
 * Part of <rwstress/kernel.h>, which includes it where it belongs: the
 * layer first, then this part. */
#include <rwstress/kernel.h>
#ifndef RWSTRESS_LAYER_TRACE_EVENTS_LOCK_H
#define RWSTRESS_LAYER_TRACE_EVENTS_LOCK_H

/* ---- Tracing: nothing ------------------------------------------------------ */

#define LCB_F_SPIN (1U << 0)
#define LCB_F_READ (1U << 1)
#define LCB_F_WRITE (1U << 2)
#define LCB_F_RT (1U << 3)
#define LCB_F_PERCPU (1U << 4)
#define LCB_F_MUTEX (1U << 5)
#define trace_contention_begin(lock, flags) ((void)(lock), (void)(flags))
#define trace_contention_end(lock, ret) ((void)(lock), (void)(ret))
#define trace_contended_release(lock) ((void)(lock))
#define BLOCKER_TYPE_MUTEX 0x00UL
#define BLOCKER_TYPE_SEM 0x01UL
#define BLOCKER_TYPE_RWSEM_READER 0x02UL
#define BLOCKER_TYPE_RWSEM_WRITER 0x03UL
#define hung_task_set_blocker(lock, type) ((void)(lock), (void)(type))
#define hung_task_clear_blocker() ((void)0)
#define trace_lock_acquire(...) ((void)0)
#define trace_lock_release(...) ((void)0)
/* lockevent_*: the kernel's own kernel/locking/lock_events.h defines them
 * (empty without CONFIG_LOCK_EVENT_COUNTS); it declares its debugfs reader
 * with a struct file. */
struct file;
/* 7.x: the contended_release tracepoint, off. */
#define trace_contended_release_enabled() false
#define trace_call__contended_release(lock) ((void)(lock))

#endif /* RWSTRESS_LAYER_TRACE_EVENTS_LOCK_H */
