#include "model/lockstat.h"

#include <algorithm>

#include <fmt/format.h>

#include "platform/duration.h"

namespace rwstress {

std::string HistSpec::describe() const {
  if (mode == Mode::kLog2) return "log2 buckets (bucket i: 2^(i-1) to 2^i ns)";
  return fmt::format("{} buckets of {} ns, then overflow", buckets, width_ns);
}

std::uint64_t Histogram::lower_ns(std::size_t i) const {
  if (spec.mode == HistSpec::Mode::kLinear) return std::uint64_t(i) * spec.width_ns;
  return i == 0 ? 0 : std::uint64_t(1) << (i - 1);
}

std::uint64_t Histogram::upper_ns(std::size_t i) const {
  if (spec.mode == HistSpec::Mode::kLinear) return std::uint64_t(i + 1) * spec.width_ns;
  if (i >= 64) return std::numeric_limits<std::uint64_t>::max();
  return std::uint64_t(1) << i;
}

void Histogram::merge(const Histogram& o) {
  if (o.samples == 0) return;
  if (samples == 0) {
    spec = o.spec;
    counts.assign(o.counts.size(), 0);
  }
  for (std::size_t i = 0; i < counts.size() && i < o.counts.size(); ++i) counts[i] += o.counts[i];
  overflow += o.overflow;
  samples += o.samples;
  sum_ns += o.sum_ns;
}

std::uint64_t Histogram::quantile_upper_ns(double q) const {
  if (samples == 0) return 0;
  const double target = q * double(samples);
  double seen = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    seen += double(counts[i]);
    if (seen >= target && counts[i] > 0) return upper_ns(i);
  }
  return std::numeric_limits<std::uint64_t>::max();  // in the overflow
}

void TimeStat::merge(const TimeStat& o) {
  count += o.count;
  sum_ns += o.sum_ns;
  min_ns = std::min(min_ns, o.min_ns);
  max_ns = std::max(max_ns, o.max_ns);
}

void RoleStat::merge(const RoleStat& o) {
  requests += o.requests;
  acquired += o.acquired;
  nowait += o.nowait;
  waited += o.waited;
  rejected += o.rejected;
  over_limit += o.over_limit;
  over_limit_max_ns = std::max(over_limit_max_ns, o.over_limit_max_ns);
  hold.merge(o.hold);
  wait.merge(o.wait);
  hold_hist.merge(o.hold_hist);
  wait_hist.merge(o.wait_hist);
}

void LockStat::merge(const LockStat& o) {
  read.merge(o.read);
  write.merge(o.write);
}

}  // namespace rwstress
