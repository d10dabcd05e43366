// Uncontended fast-path cost of every rwlock: one thread, a lock+unlock pair
// per iteration, shared and exclusive. Google Benchmark; the numbers go to
// docs/PERFORMANCE.md with the machine they were measured on.
#include <benchmark/benchmark.h>

#include <string>

#include "locks/rwlock/absl_rwmutex.h"
#include "locks/rwlock/pthread_rwlock.h"
#include "locks/rwlock/rwsem_aa.h"
#include "locks/rwlock/rwsem_spinlock.h"
#include "locks/rwlock/rwsem_xadd.h"
#include "locks/rwlock/std_shared_mutex.h"

namespace rwstress {
namespace {

template <class Lock>
void register_lock(const std::string& name) {
  benchmark::RegisterBenchmark((name + "/read").c_str(), [](benchmark::State& state) {
    Lock lock;
    for (auto _ : state) {
      lock.down_read();
      lock.up_read();
    }
  });
  benchmark::RegisterBenchmark((name + "/write").c_str(), [](benchmark::State& state) {
    Lock lock;
    for (auto _ : state) {
      lock.down_write();
      lock.up_write();
    }
  });
}

}  // namespace
}  // namespace rwstress

int main(int argc, char** argv) {
  using namespace rwstress;
  register_lock<RwsemAa<>>("aa-rwsem");
  register_lock<RwsemXadd<>>("xadd");
  register_lock<RwsemXaddUnfair<>>("xadd-unfair");
  register_lock<RwsemSpinlock<>>("generic-spin");
  register_lock<PthreadRwlock>("pthread-rwlock");
  register_lock<StdSharedMutex>("std-shared-mutex");
  register_lock<AbslRwMutex>("absl-mutex-rw");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
