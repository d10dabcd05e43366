// Where the calling thread's time went, as the scheduler accounts it:
// /proc/thread-self/schedstat (Linux 4.x+, CONFIG_SCHED_INFO) gives the
// nanoseconds it ran on a CPU and the nanoseconds it sat runnable in a run
// queue waiting for one. The rest of its wall time it was blocked (a futex
// sleep, nanosleep). The harness uses the run-queue share to tell a thread
// that a lock kept waiting from one that the OS never gave a CPU.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace rwstress {

struct SchedTimes {
  std::uint64_t on_cpu_ns = 0;
  std::uint64_t runq_wait_ns = 0;
};

// The calling thread's totals so far, or nothing where the kernel does not
// keep them.
std::optional<SchedTimes> read_thread_sched_times();

// The same for another thread of this process, by its kernel thread id.
// The run-queue time is added when the thread next gets a CPU: a thread
// waiting in a run queue now shows none of its current wait.
std::optional<SchedTimes> read_thread_sched_times(int tid);

// Another thread's scheduler state from /proc/self/task/TID/stat: 'R'
// (running or runnable), 'S' or 'D' (asleep), ...; '?' if unreadable.
char read_thread_state(int tid);

// The CPU another thread of this process last ran on (/proc/self/task/TID/
// stat's 39th field), or -1 where it cannot be read.
int read_thread_cpu(int tid);

// Whether thread `tid` sat runnable without a CPU since *last_on_cpu_ns was
// read: state R and no CPU time gained. Updates *last_on_cpu_ns; false where
// the kernel keeps no schedstat.
bool kept_off_cpu(int tid, std::uint64_t* last_on_cpu_ns);

}  // namespace rwstress

namespace rwstress {

// Seconds the given CPUs spent busy (any program, any mode: /proc/stat's
// columns but idle and iowait) since boot, at USER_HZ resolution (10 ms per
// CPU), or nothing where /proc/stat cannot be read. Two readings around a
// run, less the run's own CPU time, say how much of the run's CPUs other
// programs took.
std::optional<double> read_cpus_busy_s(const std::vector<int>& cpus);

}  // namespace rwstress
