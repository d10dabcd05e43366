#include "platform/sched_stat.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>

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

namespace {

// /proc/self/task/TID/stat's fields after the comm ("tid (comm) S ...":
// the comm may hold spaces and parentheses, so they start after the last
// ')'), into buf; nullptr where it cannot be read.
const char* thread_stat_fields(int tid, char (&buf)[1024]) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return nullptr;
  buf[n] = '\0';
  const char* paren = std::strrchr(buf, ')');
  return paren && paren[1] == ' ' && paren[2] ? paren + 2 : nullptr;
}

}  // namespace

char read_thread_state(int tid) {
  char buf[1024];
  const char* fields = thread_stat_fields(tid, buf);
  return fields ? fields[0] : '?';
}

int read_thread_cpu(int tid) {
  char buf[1024];
  const char* p = thread_stat_fields(tid, buf);
  // The state is field 3; the CPU field 39: 36 fields further on.
  for (int field = 3; p && field < 39; ++field) {
    p = std::strchr(p, ' ');
    if (p) ++p;
  }
  int cpu = -1;
  return p && std::sscanf(p, "%d", &cpu) == 1 ? cpu : -1;
}

bool kept_off_cpu(int tid, std::uint64_t* last_on_cpu_ns) {
  const std::optional<SchedTimes> t = read_thread_sched_times(tid);
  if (!t) return false;
  const bool kept = t->on_cpu_ns == *last_on_cpu_ns && read_thread_state(tid) == 'R';
  *last_on_cpu_ns = t->on_cpu_ns;
  return kept;
}

}  // namespace rwstress

namespace rwstress {

std::optional<double> read_cpus_busy_s(const std::vector<int>& cpus) {
  std::FILE* f = std::fopen("/proc/stat", "re");
  if (!f) return std::nullopt;
  const long hz = sysconf(_SC_CLK_TCK);
  std::uint64_t busy_ticks = 0;
  std::size_t found = 0;
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    // cpuN user nice system idle iowait irq softirq steal ... (not the
    // "cpu " line of totals: %d would skip its blanks and read a count)
    if (std::strncmp(line, "cpu", 3) != 0 || !std::isdigit(static_cast<unsigned char>(line[3])))
      continue;
    int cpu;
    std::uint64_t v[8] = {};
    if (std::sscanf(line, "cpu%d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                          " %" SCNu64 " %" SCNu64 " %" SCNu64,
                    &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9)
      continue;  // the "cpu " total line, or something else
    bool wanted = false;
    for (int c : cpus) wanted |= c == cpu;
    if (!wanted) continue;
    ++found;
    busy_ticks += v[0] + v[1] + v[2] + v[5] + v[6] + v[7];  // not idle (v[3]) or iowait (v[4])
  }
  std::fclose(f);
  if (hz <= 0 || found == 0) return std::nullopt;
  return double(busy_ticks) / double(hz);
}

}  // namespace rwstress
