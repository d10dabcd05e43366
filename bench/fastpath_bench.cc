// Uncontended fast-path cost of every lock in the registry: one thread, an
// acquire+release pair per item, shared and exclusive for rwlocks. Google
// Benchmark with manual timing: each benchmark iteration times a batch of
// kBatch pairs inside the lock's own templated loop (src/run/fastpath.h), so
// no indirect call sits between two pairs. The "ns/pair" column is the
// number to read; docs/PERFORMANCE.md records it with the machine.
#include <benchmark/benchmark.h>

#include <string>

#include "registry/registry.h"

namespace {

constexpr std::uint64_t kBatch = 10000;

void register_mode(const rwstress::LockEntry& e, bool shared, const char* mode) {
  std::string name = std::string(rwstress::family_name(e.meta.family)) + "/" +
                     std::string(e.meta.name) + mode;
  benchmark::RegisterBenchmark(name.c_str(),
                               [fn = e.fastpath, shared](benchmark::State& state) {
                                 std::uint64_t pairs = 0;
                                 for (auto _ : state) {
                                   state.SetIterationTime(fn(kBatch, shared) * 1e-9);
                                   pairs += kBatch;
                                 }
                                 state.counters["ns/pair"] = benchmark::Counter(
                                     double(pairs),
                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
                               })
      ->UseManualTime();
}

}  // namespace

int main(int argc, char** argv) {
  for (const auto& e : rwstress::lock_registry()) {
    if (e.meta.busted) continue;
    if (e.meta.family == rwstress::Family::kRwlock) {
      register_mode(e, true, "/read");
      register_mode(e, false, "/write");
    } else {
      register_mode(e, false, "");
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
