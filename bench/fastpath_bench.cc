// Uncontended fast-path cost of every lock in the registry: one thread, an
// acquire+release pair per item, shared and exclusive for rwlocks. Google
// Benchmark with manual timing: each benchmark iteration times a batch of
// kBatch pairs inside the lock's own templated loop (src/run/fastpath.h), so
// no indirect call sits between two pairs. The "ns/pair" column is the
// number to read; docs/PERFORMANCE.md records it with the machine.
#include <benchmark/benchmark.h>

#include <string>

#include "platform/lock_order.h"
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

// What the lock-order checker adds to each spin-lock acquisition of a
// kernel-style plugin (the layer's call into the host before the wait, and
// at the unlock): a pair with `held` other locks already held, their orders
// known (the steady state: a new order costs a lock and a graph search once).
void lock_order_pair(benchmark::State& state) {
  rwstress::LockOrder& order = rwstress::LockOrder::instance();
  order.reset();
  static const char* const kHeld[] = {"&outer->lock@bench.c:1", "&mid->lock@bench.c:2"};
  static int outer_lock, mid_lock, inner_lock;
  const void* held_locks[] = {&outer_lock, &mid_lock};
  const int held = int(state.range(0));
  for (int i = 0; i < held; ++i) order.acquire(held_locks[i], kHeld[i], 0, false, "bench.c", 10);
  for (auto _ : state) {
    order.acquire(&inner_lock, "&inner->lock@bench.c:3", 0, false, "bench.c", 20);
    order.release(&inner_lock);
  }
  for (int i = held - 1; i >= 0; --i) order.release(held_locks[i]);
  state.counters["ns/pair"] = benchmark::Counter(
      double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("lock-order/spin-lock-pair", lock_order_pair)->Arg(0)->Arg(1)->Arg(2);
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
