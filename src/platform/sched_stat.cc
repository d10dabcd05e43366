#include "platform/sched_stat.h"

#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>

namespace rwstress {

namespace {

std::optional<SchedTimes> read_sched_times_at(const char* path) {
  // open/read rather than stdio: this runs on every worker at the start and
  // the end of its loop, and must not allocate.
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[128];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  SchedTimes t;
  if (std::sscanf(buf, "%" SCNu64 " %" SCNu64, &t.on_cpu_ns, &t.runq_wait_ns) != 2)
    return std::nullopt;
  return t;
}

}  // namespace

std::optional<SchedTimes> read_thread_sched_times() {
  return read_sched_times_at("/proc/thread-self/schedstat");
}

std::optional<SchedTimes> read_thread_sched_times(int tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
  return read_sched_times_at(path);
}

}  // namespace rwstress
