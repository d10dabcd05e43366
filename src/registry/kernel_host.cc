// What rwstress lends a plugin built on the kernel-compat layer
// (include/rwstress/kernel_host.h, include/rwstress/kernel.h): a task per
// thread, the thread slots that stand in for CPUs, the injection points and
// the lock-warning channel.
#include "registry/kernel_host.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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
#include "locks/urcu_thread.h"
#include "run/checkers.h"
#include "run/run_driver.h"

namespace rwstress {

namespace {

// Lowest free slot first, so that a run's threads use slots 0..N-1 and a
// queued lock's tail encodes small numbers, as on a machine with N CPUs.
class CpuSlots {
 public:
  int take() {
    std::lock_guard guard(mutex_);
    for (int cpu = 0; cpu < RWSTRESS_KERNEL_NR_CPUS; ++cpu)
      if (!used_[std::size_t(cpu)]) {
        used_[std::size_t(cpu)] = true;
        // Before the thread can write per-CPU data in its slot (it learns
        // the slot from this call): a sum that sees that data sees the slot.
        if (cpu + 1 > __atomic_load_n(&in_use, __ATOMIC_RELAXED))
          __atomic_store_n(&in_use, cpu + 1, __ATOMIC_RELEASE);
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
  std::mutex mutex_;
  std::vector<bool> used_ = std::vector<bool>(RWSTRESS_KERNEL_NR_CPUS, false);

 public:
  int in_use = 0;  // one more than the highest slot ever taken: the layer's nr_cpu_ids
};

// Never destroyed: threads may still exit after main returns.
CpuSlots& cpu_slots() {
  static CpuSlots* slots = new CpuSlots;
  return *slots;
}

void put_task(rwstress_kernel_task* task) {
  if (__atomic_sub_fetch(&task->usage, 1, __ATOMIC_ACQ_REL) == 0) delete task;
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

rwstress_kernel_task* current_task() {
  if (!tl_task.task) {
    auto* t = new rwstress_kernel_task{};
    t->cpu = cpu_slots().take();
    t->pid = int(gettid());
    t->usage = 1;
    t->on_cpu = 1;  // running: the layer clears it while the task is parked in schedule()
    tl_task.task = t;
  }
  return tl_task.task;
}

// The plugin's put_task_struct dropped the last reference.
void free_task(rwstress_kernel_task* task) { delete task; }

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

int resched_check() {
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
  InjectHooks::at(HookPoint(int(point)));
  if (point == RWSTRESS_KPOINT_BEFORE_SLEEP) tl_slice_start = 0;  // a new slice after the sleep
  if (tl_signal_raised) {
    tl_signal_raised = false;
    __atomic_store_n(&current_task()->sigpending, 1, __ATOMIC_RELEASE);
  }
}

int spurious_wake() { return InjectHooks::spurious_futex_return() ? 1 : 0; }


void warn(const char* file, int line, const char* what) {
  LockWarnings::instance().raise(tl_worker_index, fmt::format("{}:{}: {}", file, line, what));
}

// Signals: which entry point an acquisition takes (one in the run's
// --killable-every on a worker thread, none elsewhere: the semantics
// probe), and a killed task.
thread_local unsigned tl_acquisitions = 0;

int acquire_kind() {
  const unsigned every = tl_run ? unsigned(tl_run->scenario.killable_every) : 0;
  if (every == 0 || ++tl_acquisitions % every != 0) return 0;
  return (tl_acquisitions / every) % 2 == 1 ? 1 : 2;
}

void killed() { stay_away_killed(); }

// RCU for the layer: read-side sections, grace periods and callbacks on
// liburcu's membarrier flavour. A thread is registered at its first
// read-side section.
void rcu_read_lock() {
  urcu_register_this_thread();
  urcu_memb_read_lock();
}
void rcu_read_unlock() { urcu_memb_read_unlock(); }
int rcu_read_ongoing() {
  urcu_register_this_thread();
  return urcu_memb_read_ongoing() ? 1 : 0;
}

void synchronize_rcu() {
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

void call_rcu(rwstress_kernel_rcu_head* head) { deferred().add(head); }
void rcu_barrier() { deferred().barrier(); }

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
    synchronize_rcu, call_rcu, rcu_barrier, acquire_kind, killed,
};

}  // namespace

const rwstress_kernel_host& kernel_host() { return kHost; }

}  // namespace rwstress
