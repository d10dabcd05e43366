// --lockstat and --hist on the terminal: the 2002 lockmeter report's table, a
// /proc/lock_stat-style min/avg/max block, and the 1999 kernel_lock report's histograms.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "model/stats.h"
#include "report/report.h"

namespace rwstress {

std::string lockmeter_time(double ns) {
  auto scaled = [](double v, const char* unit) {
    return v < 9.95 ? fmt::format("{:.1f}{}", v, unit) : fmt::format("{:.0f}{}", v, unit);
  };
  if (ns < 999.5) return fmt::format("{:.0f}ns", ns);
  if (ns < 999.5e3) return scaled(ns / 1e3, "us");
  if (ns < 999.5e6) return scaled(ns / 1e6, "ms");
  return scaled(ns / 1e9, "s");
}

std::string lockmeter_percent(double fraction) {
  const double p = fraction * 100;
  if (p == 0) return "0%";
  if (p < 0.995) return fmt::format("{:.2f}%", p);
  if (p < 99.95) return fmt::format("{:.1f}%", p);
  return fmt::format("{:.0f}%", p);
}

LockmeterRow lockmeter_row(const RoleStat& s, double duration_s, int cpus) {
  LockmeterRow row;
  const double req = double(s.requests);
  row.util = duration_s > 0 ? double(s.hold.sum_ns) / (duration_s * 1e9) : 0;
  row.con = req > 0 ? double(s.waited + s.rejected) / req : 0;
  row.hold_mean_ns = s.hold.mean_ns();
  row.hold_max_ns = double(s.hold.max_ns);
  row.wait_mean_ns = s.wait.mean_ns();
  row.wait_max_ns = double(s.wait.max_ns);
  row.wait_cpu = duration_s > 0 && cpus > 0 ? double(s.wait.sum_ns) / (duration_s * 1e9 * cpus) : 0;
  row.total = s.requests;
  row.nowait = req > 0 ? double(s.nowait) / req : 0;
  row.spin = req > 0 ? double(s.waited) / req : 0;
  row.reject = req > 0 ? double(s.rejected) / req : 0;
  return row;
}

namespace {

constexpr const char* kLockmeterFormat =
    "{:>6} {:>5} {:>7}({:>6}) {:>7}({:>6})({:>5}) {:>10} {:>6} {:>5} {:>5}  {}";

std::string format_lockmeter(const LockmeterRow& r, bool with_util, const std::string& name) {
  return fmt::format(fmt::runtime(kLockmeterFormat),
                     with_util ? lockmeter_percent(r.util) : "", lockmeter_percent(r.con),
                     lockmeter_time(r.hold_mean_ns), lockmeter_time(r.hold_max_ns),
                     lockmeter_time(r.wait_mean_ns), lockmeter_time(r.wait_max_ns),
                     lockmeter_percent(r.wait_cpu), r.total, lockmeter_percent(r.nowait),
                     lockmeter_percent(r.spin), lockmeter_percent(r.reject), name);
}

// The rows of one run: the lock as a whole, then its read and write sides
// where it has both.
struct NamedRole {
  std::string name;
  RoleStat stat;
};

std::vector<NamedRole> roles_of(const RunResult& r) {
  std::vector<NamedRole> out;
  if (r.family != Family::kRwlock) {
    out.push_back({r.lock, r.lockstat.write});
    return out;
  }
  RoleStat both = r.lockstat.read;
  both.merge(r.lockstat.write);
  out.push_back({r.lock, both});
  if (!r.lockstat.read.empty()) out.push_back({"  read", r.lockstat.read});
  if (!r.lockstat.write.empty()) out.push_back({"  write", r.lockstat.write});
  return out;
}

// The bucket bound at or under which 99% of the samples fall, or ">" the
// last bound when the 99th percentile is in the overflow.
std::string p99_text(const Histogram& h) {
  const std::uint64_t p99 = h.quantile_upper_ns(0.99);
  if (p99 == std::numeric_limits<std::uint64_t>::max())
    return fmt::format(">{}", lockmeter_time(double(h.lower_ns(h.counts.size()))));
  return lockmeter_time(double(p99));
}

std::string us(std::uint64_t ns) { return fmt::format("{:.2f}", double(ns) / 1e3); }

}  // namespace

std::vector<std::string> lockstat_table(const std::vector<RunResult>& runs) {
  std::vector<std::string> out;
  std::vector<const RunResult*> measured;
  for (const RunResult& r : runs)
    if (r.measured) measured.push_back(&r);
  if (measured.empty()) return out;
  out.push_back(fmt::format("LOCKSTAT (clock: {})", measured.front()->clock));
  out.push_back("");
  out.push_back("                 HOLD            WAIT");
  out.push_back(fmt::format(fmt::runtime(kLockmeterFormat), "UTIL", "CON", "MEAN", " MAX ", "MEAN",
                            " MAX ", "% CPU", "TOTAL", "NOWAIT", "SPIN", "RJECT", "NAME"));
  out.push_back("");
  // *TOTAL*: every acquisition of every run (the 2002 lockmeter report: the whole system).
  RoleStat total;
  double cpu_seconds = 0;
  for (const RunResult* r : measured) {
    total.merge(r->lockstat.read);
    total.merge(r->lockstat.write);
    cpu_seconds += r->duration_s * distinct_cpus(r->cpus);
  }
  out.push_back(format_lockmeter(lockmeter_row(total, cpu_seconds, 1), false, "*TOTAL*"));
  for (const RunResult* r : measured) {
    out.push_back("");
    for (const NamedRole& role : roles_of(*r))
      out.push_back(
          format_lockmeter(lockmeter_row(role.stat, r->duration_s, distinct_cpus(r->cpus)), true,
                           role.name));
  }
  out.push_back("");
  // /proc/lock_stat's view of the same numbers: min/avg/max/total in us.
  constexpr const char* kStatFormat =
      "{:<22} {:>12} {:>10} {:>10} {:>14} {:>10} {:>12} {:>10} {:>10} {:>14} {:>10}";
  out.push_back(fmt::format(fmt::runtime(kStatFormat), "class name", "contentions",
                            "waittime-min", "waittime-max", "waittime-total", "waittime-avg",
                            "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total",
                            "holdtime-avg"));
  for (const RunResult* r : measured)
    for (const NamedRole& role : roles_of(*r)) {
      const RoleStat& s = role.stat;
      std::string name =
          role.name[0] == ' ' ? fmt::format("{}-{}", r->lock, role.name.substr(2)) : role.name;
      out.push_back(fmt::format(fmt::runtime(kStatFormat), name, s.waited + s.rejected,
                                us(s.wait.min_or_zero()), us(s.wait.max_ns), us(s.wait.sum_ns),
                                fmt::format("{:.2f}", s.wait.mean_ns() / 1e3), s.acquired,
                                us(s.hold.min_or_zero()), us(s.hold.max_ns), us(s.hold.sum_ns),
                                fmt::format("{:.2f}", s.hold.mean_ns() / 1e3)));
    }
  return out;
}

std::vector<HistColumn> histogram_columns(const std::vector<RunResult>& runs, bool hold) {
  std::vector<HistColumn> cols;
  for (const RunResult& r : runs) {
    if (!r.measured) continue;
    auto add = [&](const RoleStat& s, const char* role) {
      const Histogram& h = hold ? s.hold_hist : s.wait_hist;
      if (h.samples == 0) return;
      cols.push_back({r.family == Family::kRwlock ? fmt::format("{} {}", r.lock, role) : r.lock, &h});
    };
    add(r.lockstat.read, "read");
    add(r.lockstat.write, "write");
  }
  return cols;
}

std::vector<std::string> histogram_text(const std::vector<RunResult>& runs, bool hold,
                                        double overhead_ns) {
  std::vector<std::string> out;
  std::vector<HistColumn> cols = histogram_columns(runs, hold);
  if (cols.empty()) return out;
  const Histogram& first = *cols.front().hist;
  out.push_back(fmt::format("{} TIME HISTOGRAM: {}; clock reading cost ({:.1f} ns) subtracted",
                            hold ? "HOLD" : "WAIT", first.spec.describe(), overhead_ns));
  // Rows from the first to the last bucket any column used.
  std::size_t lo = first.counts.size(), hi = 0;
  for (const HistColumn& c : cols)
    for (std::size_t i = 0; i < c.hist->counts.size(); ++i)
      if (c.hist->counts[i]) {
        lo = std::min(lo, i);
        hi = std::max(hi, i);
      }
  if (first.spec.mode == HistSpec::Mode::kLinear) {  // the 1999 kernel_lock report: every slot, from 0
    lo = 0;
    hi = first.counts.size() - 1;
  }
  std::string head = fmt::format("{:>21}", "BUCKET (ns)");
  for (const HistColumn& c : cols) head += fmt::format(" | {:>12} {:<20}", "", c.name.substr(0, 20));
  out.push_back(head);
  for (std::size_t i = lo; i <= hi && lo < first.counts.size(); ++i) {
    std::string line = fmt::format("{:>9} - {:<9}", first.lower_ns(i),
                                   i + 1 >= 65 && first.spec.mode == HistSpec::Mode::kLog2
                                       ? std::string("max")
                                       : std::to_string(first.upper_ns(i)));
    for (const HistColumn& c : cols) {
      std::uint64_t most = *std::max_element(c.hist->counts.begin(), c.hist->counts.end());
      std::uint64_t n = i < c.hist->counts.size() ? c.hist->counts[i] : 0;
      int bar = most ? int((n * 20 + most - 1) / most) : 0;
      line += fmt::format(" | {:>12} {:<20}", n, std::string(std::size_t(bar), '#'));
    }
    out.push_back(line);
  }
  std::string overflow = fmt::format("{:>21}", "overflow");
  std::string samples = fmt::format("{:>21}", "samples");
  std::string sum = fmt::format("{:>21}", "sum (ns)");
  std::string mean = fmt::format("{:>21}", "mean, p99 <=");
  for (const HistColumn& c : cols) {
    overflow += fmt::format(" | {:>12} {:<20}", c.hist->overflow, "");
    samples += fmt::format(" | {:>12} {:<20}", c.hist->samples, "");
    sum += fmt::format(" | {:>12} {:<20}", c.hist->sum_ns, "");
    mean += fmt::format(" | {:>12} {:<20}",
                        lockmeter_time(double(c.hist->sum_ns) / double(c.hist->samples)),
                        p99_text(*c.hist));
  }
  out.push_back(overflow);
  out.push_back(samples);
  out.push_back(sum);
  out.push_back(mean);
  // Linear buckets: also the 1999 kernel_lock report's own form, the slot counts in hex on a
  // line, so a histogram can be set beside one of 1999.
  if (first.spec.mode == HistSpec::Mode::kLinear) {
    out.push_back("");
    out.push_back(fmt::format("kernellockstat form (the 1999 kernel_lock report): slots of {} ns, counts in hex",
                              first.spec.width_ns));
    for (const HistColumn& c : cols) {
      std::string slots;
      for (std::uint64_t n : c.hist->counts) slots += fmt::format("{:x} ", n);
      out.push_back(fmt::format("{}: overflows {}.", c.name, c.hist->overflow));
      out.push_back(slots + fmt::format("Sum: {}", c.hist->samples - c.hist->overflow));
    }
  }
  return out;
}

}  // namespace rwstress
