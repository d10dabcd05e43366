#include "platform/sched_stat.h"

#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>

namespace rwstress {

std::optional<SchedTimes> read_thread_sched_times() {
  // open/read rather than stdio: this runs on every worker at the start and
  // the end of its loop, and must not allocate.
  int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
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

}  // namespace rwstress
