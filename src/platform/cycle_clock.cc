#include "platform/cycle_clock.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <mutex>
#include <numeric>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace rwstress {

namespace {

// The TSC is a usable clock only when it ticks at one rate whatever the
// CPU's frequency and sleep state, and is the same on every CPU.
bool invariant_tsc() {
#if defined(__x86_64__) || defined(__i386__)
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    bool constant = false, nonstop = false;
    for (std::string w; words >> w;) {
      constant |= w == "constant_tsc";
      nonstop |= w == "nonstop_tsc";
    }
    return constant && nonstop;
  }
#endif
  return false;
}

std::uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
}

// Ticks per ns over `span`, from the median of five windows (one window
// can be stretched by a preemption between its two readings).
double ns_per_tick_over(std::chrono::milliseconds span) {
  std::vector<double> ratios;
  for (int i = 0; i < 5; ++i) {
    std::uint64_t ns0 = monotonic_ns(), t0 = CycleClock::now();
    const std::uint64_t until = ns0 + std::uint64_t(span.count()) * 1000000u / 5;
    while (monotonic_ns() < until) {
    }
    std::uint64_t t1 = CycleClock::now(), ns1 = monotonic_ns();
    if (t1 > t0) ratios.push_back(double(ns1 - ns0) / double(t1 - t0));
  }
  if (ratios.empty()) return 1.0;
  std::sort(ratios.begin(), ratios.end());
  return ratios[ratios.size() / 2];
}

}  // namespace

ReadCost measure_read_cost(int pairs) {
  std::vector<std::uint64_t> deltas;
  deltas.reserve(std::size_t(pairs));
  for (int i = 0; i < pairs; ++i) {
    std::uint64_t a = CycleClock::now();
    std::uint64_t b = CycleClock::now();
    deltas.push_back(b - a);
  }
  std::sort(deltas.begin(), deltas.end());
  ReadCost cost;
  // The mean, not the median: where the counter advances in coarse steps
  // (26 ticks under KVM on the development VM) each delta is one step or
  // the next, and only the mean is the expected cost an interval carries.
  // The top 1% (interrupts, preemption) is left out.
  const std::size_t kept = std::max<std::size_t>(1, deltas.size() * 99 / 100);
  double sum = 0;
  for (std::size_t i = 0; i < kept; ++i) sum += double(deltas[i]);
  cost.mean_ticks = sum / double(kept);
  std::uint64_t step = 0;
  for (std::uint64_t d : deltas) step = std::gcd(step, d);
  cost.step_ticks = step ? double(step) : 1.0;
  return cost;
}

const ClockCalibration& CycleClock::calibrate() {
  static ClockCalibration cal;
  static std::once_flag once;
  std::call_once(once, [] {
    use_tsc_ = invariant_tsc();
    cal.tsc = use_tsc_;
    cal.ns_per_tick = use_tsc_ ? ns_per_tick_over(std::chrono::milliseconds(20)) : 1.0;
    const ReadCost cost = measure_read_cost(20001);
    cal.overhead_ticks = cost.mean_ticks;
    cal.step_ticks = cost.step_ticks;
  });
  return cal;
}

std::string ClockCalibration::describe() const {
  std::string steps = step_ticks > 1 ? fmt::format(" (readings advance in steps of {:.1f} ns here)",
                                                   step_ticks * ns_per_tick)
                                      : std::string();
  if (tsc)
    return fmt::format("TSC at {:.3f} GHz (calibrated against CLOCK_MONOTONIC); one reading costs "
                       "{:.1f} ns on average, subtracted from every interval{}",
                       1.0 / ns_per_tick, overhead_ns(), steps);
  return fmt::format("CLOCK_MONOTONIC (no invariant TSC); one reading costs {:.1f} ns on average, "
                     "subtracted from every interval{}",
                     overhead_ns(), steps);
}

}  // namespace rwstress
