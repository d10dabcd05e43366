// The lock-order checker (docs/checkers.md, "lock-order"): lockdep's
// dependency graph for the kernel-compat layer's spin locks. Each
// acquisition made while other locks are held orders the held locks'
// classes before the new one's; a cycle among the classes is a deadlock
// waiting to happen, reported (as a lock-order violation, through
// LockWarnings) where the order that closes it is first taken, before any
// thread waits on it. A class is what lockdep keys a lock by: its init
// site (every rwsem's wait_lock is one class), with a _nested subclass
// apart. A trylock waits for nothing: it orders nothing after what is held.
//
// The scheduler's locks are in the graph as the layer stands for them: a
// wake-up takes the woken task's pi_lock, try_to_wake_up() takes the run
// queue's lock under it, and the kernel's printk() takes console_sem's lock
// (a semaphore's) under a run queue's lock. Those two orders are facts of
// the kernel outside the code under test, there from the start.
//
// The interrupt-state rule (lockdep's "inconsistent lock state", hardirq
// only): a class taken in an interrupt handler and, anywhere in the run,
// in task context with interrupts on, can deadlock on one CPU: the
// handler spins on the lock the task it interrupted holds. And lockdep's
// indirect rule: a class taken in a handler ordered, directly or through
// others, before a class taken in task context with interrupts on (the
// handler spins on the first while its holder waits for the second, which
// the interrupted task holds). Hardirq only; no softirq contexts.
//
// One graph per run (reset() where a run or an explore schedule begins,
// beside LockWarnings::clear()); the locks a thread holds are its own
// (thread-local), so any thread may call in at once.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace rwstress {

class LockOrder {
 public:
  static LockOrder& instance();

  // A new run or schedule: no order known but the scheduler's; `on`
  // false (--no-check) and the layer leaves the checker alone until the
  // next reset.
  void reset(bool on = true);
  // What the layer reads before it calls in (kernel host ABI 5).
  static const int* on_flag();

  // Before `lock` is waited for, or (trylock) once a trylock took it.
  // lock_class is the layer's "what@file:line" key, or null for a lock
  // that was zeroed rather than initialised; file and line are the
  // caller's (string literals: kept as pointers).
  void acquire(const void* lock, const char* lock_class, int subclass, bool trylock,
               const char* file, int line);
  void release(const void* lock);
  // Right after acquire() of `lock`, the context it was taken in (the
  // explore build, where interrupts arrive): in an interrupt handler, or
  // in task context with interrupts on. A class taken both ways, in any
  // threads of the run, is lockdep's inconsistent lock state, reported
  // once a run as a lock-order violation naming both sites.
  void irq_state(const void* lock, bool in_irq, bool irqs_on, const char* file, int line);
  // The calling thread wakes a task: try_to_wake_up() takes its pi_lock.
  void wakeup(const char* file, int line);

  // The locks the calling thread holds, each with where it was taken
  // ("&sem->wait_lock (rwsem.c:341), taken at rwsem.c:1200"), or "" when
  // the checker is off or the thread holds none it heard of.
  std::string held_here();

  // --nested-locks (family_run.h): the memory of each nested instance of
  // the lock under test, at most kNestedInstances. Its locks are classes of
  // their own ("&k->outer in nested lock 2 (file.c:75)"), as locktorture
  // gives each of its nested locks a lock_class_key of its own: taking
  // nested instances in ascending order and then the lock is no recursion.
  // Given after reset(), before the workers start; reset() forgets them.
  static constexpr int kNestedInstances = 8;
  void nest_instances(const std::vector<std::pair<const void*, std::size_t>>& objects);
  // Whether the `depth` spin locks the calling thread holds are all known
  // to the checker and all in nested instances: a release of the lock under
  // test that returns holding them returns to the harness's outer locks,
  // not to user space (kernel_host.cc, held_at_release).
  bool holds_only_nested(int depth);

  // A zeroed lock that belongs to a class all the same (a task's
  // blocked_lock: the kernel's fork initialises every one at one site).
  void name_zeroed(const void* lock, const char* lock_class);
  void forget_zeroed(const void* lock);

 private:
  LockOrder() = default;
};

}  // namespace rwstress
