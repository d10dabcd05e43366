// The measuring clock of --lockstat and --hist: the CPU's time-stamp counter
// where it is invariant (constant_tsc and nonstop_tsc in /proc/cpuinfo), and
// CLOCK_MONOTONIC elsewhere. calibrate() is called once, before any worker
// starts: it measures ticks per nanosecond against CLOCK_MONOTONIC, and the
// cost of one reading, which every measured interval then has subtracted
// (the 1999 kernel_lock report's instrumentation added ~130 ticks to every hold and said so).
#pragma once

#include <time.h>

#include <cstdint>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace rwstress {

struct ClockCalibration {
  bool tsc = false;           // the TSC, not clock_gettime
  double ns_per_tick = 1.0;   // 1.0 for clock_gettime
  double overhead_ticks = 0;  // mean cost of one reading, back to back
  double step_ticks = 1;      // the smallest step readings advance by (26 under KVM here)
  double overhead_ns() const { return overhead_ticks * ns_per_tick; }
  std::string describe() const;  // "tsc 2.45 GHz (...), one reading 9 ns, subtracted"
};

class CycleClock {
 public:
  // Measures once per process (about 20 ms) and returns the same result
  // afterwards.
  static const ClockCalibration& calibrate();

  static std::uint64_t now() {
#if defined(__x86_64__) || defined(__i386__)
    if (use_tsc_) {
      _mm_lfence();  // earlier loads done before the counter is read
      std::uint64_t t = __rdtsc();
      _mm_lfence();  // and the counter read before later ones start
      return t;
    }
#endif
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
  }

 private:
  static inline bool use_tsc_ = false;
};

// The cost of one reading of the chosen clock, in ticks, from `pairs`
// back-to-back pairs: their mean (the top 1% left out) and the step the
// readings advance by (the gcd of the deltas). Exposed for the tests.
struct ReadCost {
  double mean_ticks = 0;
  double step_ticks = 1;
};
ReadCost measure_read_cost(int pairs);

}  // namespace rwstress
