// The harness's own cost (docs/PERFORMANCE.md): the kit's measured ops/s on a lock
// against the bare loop of liburcu's test_rwlock (start flag, stop flag,
// per-thread counter) on the same lock, threads and CPUs; and what
// --lockstat adds per operation. "no-check" is the kit's measurement loop
// (--no-check), "checked" its torture loop (the default, every checker
// inside the hold). Runs alternate so that drift on a noisy machine hits
// all of them alike; the medians are printed. docs/PERFORMANCE.md records the numbers with the machine.
//
//   rwstress_harness_bench [--duration 1s] [--repeat 5] [--lock a,b,...]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/run_result.h"
#include "platform/duration.h"
#include "platform/topology.h"
#include "registry/registry.h"

using namespace rwstress;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Shape {
  int readers, writers;  // for one-mode locks: writers are the threads
};

}  // namespace

int main(int argc, char** argv) {
  std::string locks = "xadd,linux-rwsem,qrwlock,percpu-rwsem,pthread-rwlock,ticket,mcs,qspinlock,"
                      "pthread-mutex,kernel-sem,posix-sem";
  std::string duration_text = "1s";
  int repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--lock")
      locks = argv[i + 1];
    else if (a == "--duration")
      duration_text = argv[i + 1];
    else if (a == "--repeat")
      repeat = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "rwstress_harness_bench: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  std::string error;
  auto duration = parse_duration(duration_text, &error);
  auto selected = select_locks(locks, &error);
  if (!duration || selected.empty()) {
    std::fprintf(stderr, "rwstress_harness_bench: %s\n", error.c_str());
    return 2;
  }
  Topology topology = Topology::load_system();
  const std::vector<int> cpus = topology.placement_order(Placement::kCompact);
  const int ncpu = int(cpus.size());
  std::printf("%s; %s per run, median of %d alternating runs\n", topology.summary().c_str(),
              duration_text.c_str(), repeat);
  std::printf("%-16s %-7s %12s %12s %8s %12s %8s %14s %12s\n", "lock", "threads", "bare ops/s",
              "no-check", "/bare", "checked", "/bare", "+lockstat op/s", "lockstat/op");
  for (const LockMeta* meta : selected) {
    const LockEntry* e = &entry_of(*meta);
    std::vector<Shape> shapes;
    if (e->meta.family == Family::kRwlock)
      shapes = {{1, 0}, {0, 1}, {ncpu, 0}, {ncpu - 1 > 0 ? ncpu - 1 : 1, 1}};
    else
      shapes = {{0, 1}, {0, ncpu}};
    for (const Shape& shape : shapes) {
      Scenario sc;
      sc.family = e->meta.family;
      sc.readers = shape.readers;
      sc.writers = shape.writers;
      sc.count = 1;
      sc.duration = *duration;
      sc.seed = 1;
      sc.plan = topology.plan(sc.threads(), cpus);
      sc.topology = &topology;
      Scenario unchecked = sc;
      unchecked.check = false;
      Scenario measured = unchecked;
      measured.measure.lockstat = true;
      std::vector<double> bare, kit, checked, stat;
      for (int r = 0; r < repeat; ++r) {
        bare.push_back(e->bare(sc));
        kit.push_back(e->run(unchecked, e->meta).ops_per_s());
        checked.push_back(e->run(sc, e->meta).ops_per_s());
        stat.push_back(e->run_instrumented(measured, e->meta).ops_per_s());
      }
      const double b = median(bare), k = median(kit), c = median(checked), s = median(stat);
      // Per operation, per thread: the extra time each operation took.
      const double cost_ns = s > 0 && k > 0 ? (1e9 / s - 1e9 / k) * sc.threads() : 0;
      std::string label = e->meta.family == Family::kRwlock
                              ? fmt::format("{}R+{}W", shape.readers, shape.writers)
                              : fmt::format("{}T", shape.writers);
      std::printf("%-16s %-7s %12.0f %12.0f %8.3f %12.0f %8.3f %14.0f %10.1fns\n",
                  std::string(e->meta.name).c_str(), label.c_str(), b, k, b > 0 ? k / b : 0, c,
                  b > 0 ? c / b : 0, s, cost_ns);
      std::fflush(stdout);
    }
  }
  return 0;
}
