// --lockstat and --hist: per-role acquisition statistics (the 2002 lockmeter report's
// lockmeter columns, /proc/lock_stat's min/avg/max) and hold/wait-time
// histograms (the 1999 kernel_lock report), recorded by each worker into its own LockStat and
// merged after join.
//
// Only the instrumented instantiation of a lock's run records, and only when
// the run asks (Scenario::measure): the plain instantiation never reads the
// clock. Every interval has the clock's reading cost subtracted
// (platform/cycle_clock.h).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>


namespace rwstress {

// How a histogram is bucketed. kLog2: bucket 0 holds 0 ns, bucket i >= 1
// holds [2^(i-1), 2^i) ns. kLinear: bucket i holds [i*width, (i+1)*width)
// ns, and anything past the last bucket counts as overflow.
struct HistSpec {
  enum class Mode : std::uint8_t { kLog2, kLinear };
  Mode mode = Mode::kLog2;
  std::uint64_t width_ns = 0;  // kLinear only
  int buckets = 64;            // kLinear: buckets before overflow
  std::string describe() const;
};

struct Histogram {
  HistSpec spec;
  std::vector<std::uint64_t> counts;
  std::uint64_t overflow = 0;
  std::uint64_t samples = 0;  // counts + overflow
  std::uint64_t sum_ns = 0;   // of every sample, overflow included

  // The buckets are allocated by the first add(): every run carries these
  // in every thread and role, --hist or not (allocated up front they cost
  // about 9 KB a run). `counts` is empty while `samples` is 0.
  Histogram() = default;
  explicit Histogram(const HistSpec& s) : spec(s) {}
  std::size_t bucket_count() const {
    return spec.mode == HistSpec::Mode::kLog2 ? 65 : std::size_t(spec.buckets);
  }
  void add(std::uint64_t ns) {
    if (counts.empty()) [[unlikely]]
      counts.assign(bucket_count(), 0);
    ++samples;
    sum_ns += ns;
    std::size_t i = bucket_of(ns);
    if (i < counts.size())
      ++counts[i];
    else
      ++overflow;
  }
  std::size_t bucket_of(std::uint64_t ns) const {
    if (spec.mode == HistSpec::Mode::kLinear) return std::size_t(ns / spec.width_ns);
    return ns == 0 ? 0 : std::size_t(64 - __builtin_clzll(ns));
  }
  std::uint64_t lower_ns(std::size_t i) const;  // first value of bucket i
  std::uint64_t upper_ns(std::size_t i) const;  // first value past bucket i
  void merge(const Histogram& o);
  // The upper bound of the bucket holding the q-th quantile (0..1) of the
  // samples; UINT64_MAX when it is in the overflow.
  std::uint64_t quantile_upper_ns(double q) const;
};

// Count, sum, min and max of a set of durations, in ns.
struct TimeStat {
  std::uint64_t count = 0;
  std::uint64_t sum_ns = 0;
  std::uint64_t min_ns = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t max_ns = 0;
  void add(std::uint64_t ns) {
    ++count;
    sum_ns += ns;
    if (ns < min_ns) min_ns = ns;
    if (ns > max_ns) max_ns = ns;
  }
  void merge(const TimeStat& o);
  double mean_ns() const { return count ? double(sum_ns) / double(count) : 0; }
  std::uint64_t min_or_zero() const { return count ? min_ns : 0; }
};

// One kind of acquisition (read, or write/exclusive) over a thread or a run.
struct RoleStat {
  std::uint64_t requests = 0;  // acquisitions plus failed trylocks
  std::uint64_t acquired = 0;
  std::uint64_t nowait = 0;    // acquired at once
  std::uint64_t waited = 0;    // spun or slept first (see docs/reports.md)
  std::uint64_t rejected = 0;  // failed trylocks
  // --acq-writer-lim: write acquisitions whose wait passed the limit, and
  // the longest of them.
  std::uint64_t over_limit = 0;
  std::uint64_t over_limit_max_ns = 0;
  TimeStat hold, wait;
  Histogram hold_hist, wait_hist;  // empty unless --hist

  void merge(const RoleStat& o);
  bool empty() const { return requests == 0; }
};

// What --lockstat/--hist recorded in one run, or one thread.
struct LockStat {
  RoleStat read, write;  // exclusive families record on the write side
  void merge(const LockStat& o);
};

// What a run measures, chosen on the command line.
struct MeasureSpec {
  bool lockstat = false;
  bool hist_hold = false;
  bool hist_wait = false;
  HistSpec hist;
  // --acq-writer-lim: a write acquisition (an rwlock's writer, any thread
  // of an exclusive lock) that waited longer is a violation
  // (acquire-limit), as locktorture's acq_writer_lim is an error. 0: none.
  std::uint64_t acq_writer_limit_ns = 0;
  bool any() const { return lockstat || hist_hold || hist_wait || acq_writer_limit_ns > 0; }
};

// Acquisitions taking longer than this (after the clock's cost is taken
// off) count as waited even where no spin or sleep hook fired: library
// locks have no hooks, and a preempted acquirer waits without spinning.
inline constexpr std::uint64_t kWaitedAfterNs = 1000;

}  // namespace rwstress
