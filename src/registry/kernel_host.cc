// What rwstress lends a plugin built on the kernel-compat layer
// (include/rwstress/kernel_host.h, include/rwstress/kernel.h): a task per
// thread, the thread slots that stand in for CPUs, the injection points and
// the lock-warning channel.
#include "registry/kernel_host.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <urcu/urcu-memb.h>

#include <fmt/format.h>

#include "injectors/injection.h"
#include "locks/hooks.h"
#include "locks/urcu_thread.h"
#include "platform/lock_order.h"
#include "explore/controlled.h"
#include "registry/explore_host.h"
#include "run/checkers.h"
#include "run/run_driver.h"

namespace rwstress {

namespace {

// Lowest free slot first, so that a run's threads use slots 0..N-1 and a
// queued lock's tail encodes small numbers, as on a machine with N CPUs.
//
// A controlled run's thread i takes slot i (explore: a schedule's choices
// alone decide a run, CPU numbers included), even from a thread a
// deadlocked schedule left parked for good (it never runs again); once a
// controlled run has taken slots, other threads take theirs above the
// slots a controlled run may use.
class CpuSlots {
 public:
  int take(int want = -1) {
    std::lock_guard guard(mutex_);
    if (want >= 0) {
      controlled_seen_ = true;
      used_[std::size_t(want)] = true;
      publish(want);
      return want;
    }
    for (int cpu = controlled_seen_ ? kControlledSlots : 0; cpu < RWSTRESS_KERNEL_NR_CPUS; ++cpu)
      if (!used_[std::size_t(cpu)]) {
        used_[std::size_t(cpu)] = true;
        publish(cpu);
        return cpu;
      }
    std::fprintf(stderr, "rwstress: more than %d threads use the kernel-compat layer at once\n",
                 RWSTRESS_KERNEL_NR_CPUS);
    std::_Exit(2);
  }
  void give(int cpu) {
    std::lock_guard guard(mutex_);
    used_[std::size_t(cpu)] = false;
  }

 private:
  static constexpr int kControlledSlots = 64;  // explore's most threads

  // Before the thread can write per-CPU data in its slot (it learns the
  // slot from take()): a sum that sees that data sees the slot.
  void publish(int cpu) {
    if (cpu + 1 > __atomic_load_n(&in_use, __ATOMIC_RELAXED))
      __atomic_store_n(&in_use, cpu + 1, __ATOMIC_RELEASE);
  }

  std::mutex mutex_;
  std::vector<bool> used_ = std::vector<bool>(RWSTRESS_KERNEL_NR_CPUS, false);
  bool controlled_seen_ = false;

 public:
  int in_use = 0;  // one more than the highest slot ever taken: the layer's nr_cpu_ids
};

// Never destroyed: threads may still exit after main returns.
CpuSlots& cpu_slots() {
  static CpuSlots* slots = new CpuSlots;
  return *slots;
}

// A task's blocked_lock is zeroed, not initialised: of one class all the
// same, as the kernel's fork initialises every task's at one site.
constexpr const char* kBlockedLockClass = "&p->blocked_lock";

void delete_task(rwstress_kernel_task* task) {
  LockOrder::instance().forget_zeroed(&task->blocked_lock);
  delete task;
}

void put_task(rwstress_kernel_task* task) {
  if (__atomic_sub_fetch(&task->usage, 1, __ATOMIC_ACQ_REL) == 0) delete_task(task);
}

// The thread's own reference to its task, and its slot, until it exits.
struct ThreadTask {
  rwstress_kernel_task* task = nullptr;
  ~ThreadTask() {
    if (!task) return;
    cpu_slots().give(task->cpu);
    put_task(task);
  }
};
thread_local ThreadTask tl_task;

// The explore builds' rwstress_kernel_fresh_cpu_v1, one per plugin that
// has it: a controlled thread's slot starts from fresh per-CPU data.
std::vector<KernelFreshCpuFn>& fresh_cpu_hooks() {
  static auto* hooks = new std::vector<KernelFreshCpuFn>;
  return *hooks;
}

rwstress_kernel_task* current_task() {
  if (!tl_task.task) {
    auto* t = new rwstress_kernel_task{};
    const int index = controlled::thread_index();  // -1 outside a controlled run
    t->cpu = cpu_slots().take(index);
    if (index >= 0)
      for (KernelFreshCpuFn fresh : fresh_cpu_hooks()) {
        std::size_t size = 0;
        if (void* area = fresh(t->cpu, &size)) controlled::name_object(area, size, "per-CPU");
      }
    t->pid = controlled::thread_tid();
    t->rt_priority = tl_rt_priority;  // (a controlled thread's is explore's: the layer asks it)
    t->usage = 1;
    t->on_cpu = 1;  // running: the layer clears it while the task is parked in schedule()
    LockOrder::instance().name_zeroed(&t->blocked_lock, kBlockedLockClass);
    tl_task.task = t;
    // Named in explore's traces (the innermost name wins).
    controlled::name_object(t, sizeof *t, "task");
    controlled::name_object(&t->__state, sizeof t->__state, "task.__state");
    controlled::name_object(&t->on_cpu, sizeof t->on_cpu, "task.on_cpu");
    controlled::name_object(&t->wake_q, sizeof t->wake_q, "task.wake_q");
  }
  return tl_task.task;
}

// The plugin's put_task_struct dropped the last reference.
void free_task(rwstress_kernel_task* task) { delete_task(task); }

// need_resched(): an injector asked, or the thread has run a slice since it
// last slept (or was last told) and the host scheduler preempted it in that
// slice, so others wanted its CPU. Cheap between slices: a clock read.
constexpr std::int64_t kSliceNs = 3'000'000;
thread_local std::int64_t tl_slice_start = 0;
thread_local long tl_preempted = -1;  // ru_nivcsw at the slice's start

std::int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Under control there is no clock and no host scheduler: a thread is told
// to reschedule once every runnable thread has spun this many steps in a
// row (optimistic spinners on owners that spin themselves would otherwise
// spin for good, where a kernel's tick would end it).
constexpr std::uint64_t kControlledReschedAfter = 64;

int resched_check() {
  if (controlled::active())  // (a tick is a choice of the schedule as well)
    return controlled::all_spinning_for() >= kControlledReschedAfter || controlled::tick() ? 1 : 0;
  if (InjectHooks::resched_now()) return 1;
  const std::int64_t now = now_ns();
  if (tl_slice_start == 0) tl_slice_start = now;
  if (now - tl_slice_start < kSliceNs) return 0;
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  const bool preempted = tl_preempted >= 0 && ru.ru_nivcsw > tl_preempted;
  tl_preempted = ru.ru_nivcsw;
  tl_slice_start = now;
  return preempted ? 1 : 0;
}

// A signal injector that fired here makes a fatal signal pending for the
// thread's task: signal_pending_state() sees it, and a killable or
// interruptible sleep wakes for it (include/rwstress/kernel.h).
void at(rwstress_kernel_point point) {
  if (controlled::active()) {  // a scheduling point; the explore build's cpu_relax is the spin turn
    if (point != RWSTRESS_KPOINT_SPIN) controlled::point(hook_point_name(HookPoint(int(point))));
    return;
  }
  InjectHooks::at(HookPoint(int(point)));
  if (point == RWSTRESS_KPOINT_BEFORE_SLEEP) tl_slice_start = 0;  // a new slice after the sleep
  if (tl_signal_raised) {
    tl_signal_raised = false;
    __atomic_store_n(&current_task()->sigpending, 1, __ATOMIC_RELEASE);
  }
}

int spurious_wake() {
  if (controlled::active()) return 0;  // the scheduler's own choice there
  return InjectHooks::spurious_futex_return() ? 1 : 0;
}


void warn(const char* file, int line, const char* what) {
  LockWarnings::instance().raise(tl_worker_index, fmt::format("{}:{}: {}", file, line, what));
}

// Signals: which entry point an acquisition takes (one in the run's
// --killable-every on a worker thread, none elsewhere: the semantics
// probe), and a killed task.
thread_local unsigned tl_acquisitions = 0;

// Under explore: one acquisition in two is killable or interruptible, by
// turns, so that every entry point the lock has runs (with --signals a
// spurious wake-up of such a sleep is a fatal signal: woken_spuriously
// below; without, no signal comes and the entry point takes its sleeping
// path to the end).
thread_local unsigned tl_controlled_acquisitions = 0;

int acquire_kind() {
  if (controlled::active()) {
    if (++tl_controlled_acquisitions % 2 == 0) return 0;
    return (tl_controlled_acquisitions / 2) % 2 == 0 ? 1 : 2;
  }
  const unsigned every = tl_run ? unsigned(tl_run->scenario.killable_every) : 0;
  if (every == 0 || ++tl_acquisitions % every != 0) return 0;
  return (tl_acquisitions / every) % 2 == 1 ? 1 : 2;
}

void model_killed();
void killed() {
  if (controlled::active()) return model_killed();
  stay_away_killed();
}

// What the layer keeps per controlled run (rwstress explore).
//
// RCU in a controlled run: modelled, since a real grace
// period would wait, outside the scheduler's sight, for a thread the
// scheduler has stopped. Each thread's read-side nesting and the number of
// outermost sections it has left; synchronize_rcu() spins (a scheduling
// turn) until every thread that was inside a section when it began has
// left it; call_rcu() callbacks wait for a grace period and run at the end
// of the calling thread's lock operation (rwstress_explore_host.op_end),
// where it holds nothing. One thread runs at a time: no locking.
struct RunModel {
  static constexpr int kThreads = 64;  // explore's most
  std::uint64_t run = 0;
  std::array<int, kThreads> nesting{};
  std::array<std::uint64_t, kThreads> exits{};
  std::array<std::vector<rwstress_kernel_rcu_head*>, kThreads> pending{};
  int synchronizing = 0;  // threads inside synchronize_rcu: an exit is then a point
  std::array<std::uint64_t, kThreads> ops{};  // lock operations each thread completed
};

// The calling thread's run's model (a new run starts from nothing).
RunModel& run_model() {
  static RunModel* model = new RunModel;  // never destroyed: parked threads may hold it
  if (model->run != controlled::run_id()) {
    *model = RunModel{};
    model->run = controlled::run_id();
  }
  return *model;
}

void model_read_lock() {
  controlled::shared_state();  // (the layer's RCU model: every thread's)
  ++run_model().nesting[std::size_t(controlled::thread_index())];
}

void model_read_unlock() {
  controlled::shared_state();
  RunModel& m = run_model();
  const auto me = std::size_t(controlled::thread_index());
  if (m.nesting[me] == 0) {
    warn("rcu", 0, "rcu_read_unlock() outside an RCU read-side critical section");
    return;
  }
  if (--m.nesting[me] > 0) return;
  ++m.exits[me];
  if (m.synchronizing > 0) controlled::point("rcu_read_unlock: a grace period may end");
}

void model_synchronize() {
  controlled::shared_state();
  RunModel& m = run_model();
  const int me = controlled::thread_index();
  if (m.nesting[std::size_t(me)] > 0) {
    warn("rcu", 0, "synchronize_rcu() inside an RCU read-side critical section");
    return;
  }
  ++m.synchronizing;
  controlled::point("synchronize_rcu");
  controlled::shared_state();
  // The grace period starts here, once the point is passed: the sections
  // to wait for are those open now (one the others began while this
  // thread stood at the point began before the grace period, and may
  // have read what the updater stored as not yet there).
  std::array<std::uint64_t, RunModel::kThreads> seen = m.exits;
  std::array<bool, RunModel::kThreads> inside{};
  for (int i = 0; i < RunModel::kThreads; ++i) inside[std::size_t(i)] = m.nesting[std::size_t(i)] > 0;
  auto waiting = [&] {
    controlled::shared_state();
    for (std::size_t i = 0; i < inside.size(); ++i)
      if (inside[i] && m.exits[i] == seen[i]) return true;
    return false;
  };
  // A grace period is a full barrier on every CPU (to --memory c11 and
  // tso), at its start as at its end: a read-side section begun after the
  // start sees what the updater stored before it (rcu_sync's gp_state,
  // which a reader that begins during the grace period must not read as
  // idle), and the updater after the end sees every section that was
  // inside.
  controlled::model_fence_everyone();
  while (waiting()) controlled::harness_wait("synchronize_rcu: waiting for a grace period");
  --m.synchronizing;
  controlled::model_fence_everyone();
}

// RCU for the layer: read-side sections, grace periods and callbacks on
// liburcu's membarrier flavour (a thread is registered at its first
// read-side section); modelled in a controlled run (above).
void rcu_read_lock() {
  if (controlled::active()) return model_read_lock();
  urcu_register_this_thread();
  urcu_memb_read_lock();
}
void rcu_read_unlock() {
  if (controlled::active()) return model_read_unlock();
  urcu_memb_read_unlock();
}
int rcu_read_ongoing() {
  if (controlled::active()) return run_model().nesting[std::size_t(controlled::thread_index())] > 0;
  urcu_register_this_thread();
  return urcu_memb_read_ongoing() ? 1 : 0;
}

void synchronize_rcu() {
  if (controlled::active()) return model_synchronize();
  urcu_register_this_thread();
  if (urcu_memb_read_ongoing()) {  // it would wait for itself
    warn("rcu", 0, "synchronize_rcu() inside an RCU read-side critical section");
    return;
  }
  urcu_memb_synchronize_rcu();
}

// call_rcu's callbacks: queued, then run in batches by one thread of this
// process after a grace period that began after they were queued. The
// thread is started by the first call_rcu of a process, and again in a
// child that forked after it (fork copies the queue, not the thread).
class Deferred {
 public:
  void add(rwstress_kernel_rcu_head* head) {
    std::unique_lock guard(mutex_);
    ensure_thread();
    queue_.push_back(head);
    ++queued_;
    work_.notify_one();
  }
  // Every callback queued before the call has run.
  void barrier() {
    std::unique_lock guard(mutex_);
    if (queued_ == ran_) return;
    ensure_thread();
    const std::uint64_t target = queued_;
    done_.wait(guard, [&] { return ran_ >= target; });
  }

 private:
  void ensure_thread() {  // under mutex_
    if (owner_ == getpid()) return;
    owner_ = getpid();
    ran_ = queued_ - queue_.size();  // a batch the parent's thread had taken is gone
    std::thread([this] { run(); }).detach();
  }

  void run() {
    std::unique_lock guard(mutex_);
    const pid_t mine = getpid();
    while (owner_ == mine) {
      work_.wait(guard, [&] { return !queue_.empty(); });
      std::deque<rwstress_kernel_rcu_head*> batch;
      batch.swap(queue_);
      guard.unlock();
      urcu_memb_synchronize_rcu();
      for (rwstress_kernel_rcu_head* h : batch) h->func(h);
      guard.lock();
      ran_ += batch.size();
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_, done_;
  std::deque<rwstress_kernel_rcu_head*> queue_;
  std::uint64_t queued_ = 0, ran_ = 0;
  pid_t owner_ = 0;
};

// Never destroyed: its thread outlives main.
Deferred& deferred() {
  static Deferred* d = new Deferred;
  return *d;
}

// A killed task (an acquisition returned -EINTR) goes away as a killed task
// would: until another thread completes a lock operation, or every other
// one has finished or is away too (run_driver.cc's stay_away_killed, the
// same rule). If the others all sleep and nobody wakes them, it spins on
// alone until the scheduler calls it a livelock: the HANG its bail-out
// path left (a retry at once would take the lock and heal it).
void model_killed() {
  RunModel& m = run_model();
  const int me = controlled::thread_index();
  const std::array<std::uint64_t, RunModel::kThreads> seen = m.ops;
  auto moved_on = [&] {
    bool all_gone = true;
    for (int i = 0; i < controlled::thread_count(); ++i) {
      if (i == me) continue;
      if (m.ops[std::size_t(i)] != seen[std::size_t(i)]) return true;
      all_gone = all_gone && (controlled::finished(i) || controlled::away(i));
    }
    return all_gone;
  };
  controlled::set_away(true);
  controlled::point("killed: away");  // the others may look at who is away
  while (!moved_on())
    controlled::harness_wait("killed: away until another thread completes an operation");
  controlled::set_away(false);
}

// Runs the calling thread's queued callbacks after a grace period (a
// callback may queue another: run too).
void model_run_callbacks() {
  for (int round = 0; round < 16; ++round) {
    std::vector<rwstress_kernel_rcu_head*> batch;
    batch.swap(run_model().pending[std::size_t(controlled::thread_index())]);
    if (batch.empty()) return;
    model_synchronize();
    for (rwstress_kernel_rcu_head* h : batch) h->func(h);
  }
  warn("rcu", 0, "call_rcu() callbacks kept queueing callbacks (16 rounds)");
}

void call_rcu(rwstress_kernel_rcu_head* head) {
  if (controlled::active())
    return run_model().pending[std::size_t(controlled::thread_index())].push_back(head);
  deferred().add(head);
}
void rcu_barrier() {
  if (controlled::active()) return model_run_callbacks();
  deferred().barrier();
}

// Lock order (platform/lock_order.h): the layer's spin locks and wake-ups.
void lock_acquire(const void* lock, const char* lock_class, int subclass, int trylock,
                  const char* file, int line) {
  LockOrder::instance().acquire(lock, lock_class, subclass, trylock != 0, file, line);
}
void lock_release(const void* lock) { LockOrder::instance().release(lock); }
void lock_wakeup(const char* file, int line) { LockOrder::instance().wakeup(file, line); }
void lock_irq_state(const void* lock, int in_irq, int irqs_on, const char* file, int line) {
  LockOrder::instance().irq_state(lock, in_irq != 0, irqs_on != 0, file, line);
}
void held_at_release(const char* op, const char* file, int line) {
  const int depth = current_task()->spin_depth;
  // --nested-locks: the harness's outer instances, held on purpose.
  if (LockOrder::instance().holds_only_nested(depth)) return;
  const std::string held = LockOrder::instance().held_here();
  warn(file, line,
       fmt::format("{}() returned with {} spin lock{} held{}{}", op, depth, depth == 1 ? "" : "s",
                   held.empty() ? "" : ": ", held)
           .c_str());
}

static_assert(int(RWSTRESS_KPOINT_AFTER_ENQUEUE) == int(HookPoint::kAfterEnqueue));
static_assert(int(RWSTRESS_KPOINT_BEFORE_SLEEP) == int(HookPoint::kBeforeSleep));
static_assert(int(RWSTRESS_KPOINT_AFTER_WAKE) == int(HookPoint::kAfterWake));
static_assert(int(RWSTRESS_KPOINT_BEFORE_WAKE) == int(HookPoint::kBeforeWake));
static_assert(int(RWSTRESS_KPOINT_SPIN) == int(HookPoint::kSpinIteration));
static_assert(int(RWSTRESS_KPOINT_MID_RELEASE) == int(HookPoint::kMidRelease));
static_assert(int(RWSTRESS_KPOINT_WAIT_UNLOCK) == int(HookPoint::kWaitUnlock));
static_assert(int(RWSTRESS_KPOINT_FAST_PATH) == int(HookPoint::kFastPath));

const rwstress_kernel_host kHost = {
    RWSTRESS_KERNEL_HOST_ABI, current_task, free_task, at, spurious_wake, warn,
    &cpu_slots().in_use, resched_check, rcu_read_lock, rcu_read_unlock, rcu_read_ongoing,
    synchronize_rcu, call_rcu, rcu_barrier, acquire_kind, killed, lock_acquire, lock_release,
    lock_wakeup, LockOrder::on_flag(), held_at_release, lock_irq_state,
};

}  // namespace

const rwstress_kernel_host& kernel_host() { return kHost; }

void kernel_op_end() {
  controlled::shared_state();
  model_run_callbacks();
  ++run_model().ops[std::size_t(controlled::thread_index())];
  controlled::point("operation done");  // a killed thread away may look again
}

void kernel_woken_spuriously() {
  if (controlled::signals() && tl_task.task) {  // a fatal signal, as the signal injector sends
    __atomic_store_n(&tl_task.task->sigpending, 1, __ATOMIC_RELEASE);
    // A killable or interruptible sleeper (its state not yet set back to
    // running) sees it and leaves the queue from here: not waited for.
    if (__atomic_load_n(&tl_task.task->__state, __ATOMIC_RELAXED) &
        (RWSTRESS_KERNEL_TASK_INTERRUPTIBLE | RWSTRESS_KERNEL_TASK_WAKEKILL))
      controlled::signalled();
  }
}

void add_kernel_fresh_cpu_hook(KernelFreshCpuFn fresh) { fresh_cpu_hooks().push_back(fresh); }

}  // namespace rwstress
