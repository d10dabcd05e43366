// What a plugin's own scheduling points call (include/rwstress/explore.h):
// the controlled scheduler inside a controlled run, the futex system call
// and the steady clock outside one.
#include "registry/explore_host.h"

#include <atomic>
#include <chrono>
#include <cstdint>

#include "locks/futex.h"
#include "explore/controlled.h"
#include "platform/lock_warnings.h"

namespace rwstress {

namespace {

namespace ctl = controlled;

int active() { return ctl::active() ? 1 : 0; }

int access(unsigned long word, const char* what) {
  if (!ctl::active()) return 0;
  ctl::access(reinterpret_cast<const void*>(word), what);
  return 1;
}

void accessed(unsigned long long before, unsigned long long after) { ctl::accessed(before, after); }

void point(const char* what) { ctl::point(what); }

void spin(const char* what) { ctl::spin(what); }

// A 32-bit futex word as the project's futex wrapper (locks/futex.h) and
// the controlled scheduler take it. The object is the plugin's plain
// unsigned: std::atomic<std::uint32_t> has its layout (futex.h asserts it),
// and a wait or a wake does not write it.
std::atomic<std::uint32_t>& as_word(const unsigned* word) {
  return *reinterpret_cast<std::atomic<std::uint32_t>*>(const_cast<unsigned*>(word));
}

void host_futex_wait(const unsigned* word, unsigned expected, unsigned long long timeout_ns,
                     const char* what) {
  std::atomic<std::uint32_t>& w = as_word(word);
  if (ctl::active()) {
    if (timeout_ns == 0)
      ctl::futex_wait(&w, expected, what);
    else
      ctl::futex_wait_for(&w, expected, timeout_ns, what);
    if (ctl::woke_spuriously()) kernel_woken_spuriously();
  } else if (timeout_ns == 0) {
    futex_wait(w, expected);
  } else {
    futex_wait_for(w, expected, std::chrono::nanoseconds(timeout_ns));
  }
}

int host_futex_wake(const unsigned* word, int n) {
  if (ctl::active()) return ctl::futex_wake(word, n);
  return futex_wake(as_word(word), n);
}

unsigned long long now_ns() { return ctl::now_ns(); }

void op_end() {
  if (ctl::active()) kernel_op_end();
}

// Only a run with --signals makes the check a point: without it the
// schedules are what they were before the check existed.
int signal_check(const char* what) {
  if (!ctl::active() || !ctl::signals()) return 0;
  return ctl::signal_check(what) ? 1 : 0;
}

void model(unsigned long word, unsigned size, int kind, int order) {
  const void* w = reinterpret_cast<const void*>(word);
  switch (kind) {
    case RWSTRESS_MODEL_LOAD: ctl::model_access(w, size, ctl::AccessKind::kLoad, order); break;
    case RWSTRESS_MODEL_STORE: ctl::model_access(w, size, ctl::AccessKind::kStore, order); break;
    case RWSTRESS_MODEL_RMW: ctl::model_access(w, size, ctl::AccessKind::kRmw, order); break;
    case RWSTRESS_MODEL_LOCAL_RMW:
      ctl::model_access(w, size, ctl::AccessKind::kLocalRmw, order);
      break;
    case RWSTRESS_MODEL_FENCE: ctl::model_fence(order); break;
    case RWSTRESS_MODEL_FENCE_EVERYONE: ctl::model_fence_everyone(); break;
    default: break;
  }
}

void model_load(unsigned long word, unsigned size, int order, void* value) {
  ctl::model_load(reinterpret_cast<const void*>(word), size, order, value);
}

void plain_store(unsigned long word, unsigned size) {
  ctl::model_plain_store(reinterpret_cast<const void*>(word), size);
}

void plain_load(unsigned long word, unsigned size) {
  ctl::model_plain_load(reinterpret_cast<const void*>(word), size);
}

// The same judge as the in-tree locks' SpinBound, on the run's clock.
void spin_judge(rwstress_spin_bound* b) { judge_spin_turn(*b, ctl::now_ns()); }

unsigned long long clock_read() { return ctl::read_clock(); }

int foreign_wake() { return ctl::foreign_wake() ? 1 : 0; }

int post_interrupt(void* work) { return ctl::post_interrupt(work) ? 1 : 0; }

void* interrupt(int force) { return ctl::interrupt(force != 0); }

int cpus() { return ctl::thread_count(); }

void preempt_hold(int delta) { ctl::preempt_hold(delta); }

int rt_priority(int thread) { return ctl::rt_priority(thread); }

int preempted(int thread) { return ctl::preempted(thread) ? 1 : 0; }

const rwstress_explore_host kHost = {
    RWSTRESS_EXPLORE_HOST_ABI, active, access, accessed, point, spin, host_futex_wait,
    host_futex_wake, now_ns, op_end, signal_check, model, model_load, plain_store, plain_load,
    spin_judge, clock_read, foreign_wake, post_interrupt, interrupt, cpus, preempt_hold,
    rt_priority, preempted,
};

}  // namespace

const rwstress_explore_host& explore_host() { return kHost; }

}  // namespace rwstress
