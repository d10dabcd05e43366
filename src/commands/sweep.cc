#include "commands/sweep.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/version.h"

namespace rwstress {

namespace {

struct PointMean {
  double ops_per_s = 0;
  double csw_per_s = 0;
  double idle = 0;
  Verdict verdict = Verdict::kPass;
  std::string shape;
  bool oversubscribed = false;
  int runs = 0;
};

// Mean of every run of (lock, placement, CPU count).
std::map<std::tuple<std::string, std::string, int>, PointMean> point_means(
    const std::vector<RunResult>& runs) {
  std::map<std::tuple<std::string, std::string, int>, PointMean> m;
  for (const RunResult& r : runs) {
    PointMean& p = m[{r.lock, r.placement, r.sweep_cpus}];
    p.ops_per_s += r.ops_per_s();
    p.csw_per_s += r.duration_s > 0 ? double(r.voluntary_csw + r.involuntary_csw) / r.duration_s : 0;
    p.idle += r.idle_share;
    p.verdict = worse(p.verdict, r.verdict);
    p.shape = run_shape(r);
    p.oversubscribed |= r.oversubscribed;
    ++p.runs;
  }
  for (auto& [key, p] : m) {
    p.ops_per_s /= p.runs;
    p.csw_per_s /= p.runs;
    p.idle /= p.runs;
  }
  return m;
}

std::string signed_percent(double ratio) {
  const double p = (ratio - 1) * 100;
  return fmt::format("{}{:.0f}%", p >= 0 ? "+" : "", p);
}

}  // namespace

std::vector<std::string> sweep_tables(const std::vector<RunResult>& runs,
                                      const std::vector<std::string>& locks,
                                      const std::vector<int>& counts,
                                      const std::vector<std::string>& placements,
                                      const std::vector<SweepSkip>& skipped) {
  auto means = point_means(runs);
  std::vector<std::string> out;
  auto skip_reason = [&](const std::string& placement, int n) -> const SweepSkip* {
    for (const SweepSkip& s : skipped)
      if (s.placement == placement && s.cpus == n) return &s;
    return nullptr;
  };
  bool any_oversubscribed = false;
  constexpr const char* kFormat = "{:>5}  {:<11} {:>10} {:>9} {:>10} {:>8} {:>10} {:>5}  {}";
  for (const std::string& placement : placements) {
    for (const std::string& lock : locks) {
      out.push_back(fmt::format("SWEEP {} ({} placement)", lock, placement));
      out.push_back(fmt::format(fmt::runtime(kFormat), "CPUS", "THREADS", "OPS/S", "SCALING",
                                "LINEAR", "OF LIN.", "CSW/S", "IDLE", "VERDICT"));
      const PointMean* base = nullptr;
      int base_n = 0;
      for (int n : counts) {
        if (const SweepSkip* s = skip_reason(placement, n)) {
          out.push_back(fmt::format("{:>5}  skipped: {}", n, s->why));
          continue;
        }
        auto it = means.find({lock, placement, n});
        if (it == means.end()) continue;
        const PointMean& p = it->second;
        if (!base) {
          base = &p;
          base_n = n;
        }
        const double linear = base->ops_per_s * n / base_n;
        any_oversubscribed |= p.oversubscribed;
        out.push_back(fmt::format(
            fmt::runtime(kFormat), fmt::format("{}{}", n, p.oversubscribed ? "*" : ""), p.shape,
            human_rate(p.ops_per_s), base->ops_per_s > 0 ? signed_percent(p.ops_per_s / base->ops_per_s) : "-",
            human_rate(linear), linear > 0 ? fmt::format("{:.0f}%", 100 * p.ops_per_s / linear) : "-",
            human_rate(p.csw_per_s), fmt::format("{:.0f}%", 100 * p.idle), verdict_name(p.verdict)));
      }
      out.push_back("");
    }
    if (locks.size() > 1) {
      out.push_back(fmt::format("SWEEP OPS/S side by side ({} placement; scaling against the "
                                "smallest count in brackets)",
                                placement));
      std::string head = fmt::format("{:>5}", "CPUS");
      for (const std::string& lock : locks) head += fmt::format("  {:>22}", lock.substr(0, 22));
      out.push_back(head);
      std::map<std::string, double> base;
      for (int n : counts) {
        std::string line = fmt::format("{:>5}", n);
        bool any = false;
        for (const std::string& lock : locks) {
          auto it = means.find({lock, placement, n});
          if (it == means.end()) {
            line += fmt::format("  {:>22}", "skipped");
            continue;
          }
          any = true;
          const double ops = it->second.ops_per_s;
          if (!base.count(lock)) base[lock] = ops;
          std::string cell = human_rate(ops);
          if (base[lock] > 0 && ops != base[lock]) cell += " (" + signed_percent(ops / base[lock]) + ")";
          line += fmt::format("  {:>22}", cell + (it->second.oversubscribed ? "*" : ""));
        }
        if (any) out.push_back(line);
      }
      out.push_back("");
    }
  }
  out.push_back("SCALING: ops/s against the smallest count run; LINEAR: that count's ops/s times "
                "CPUs/smallest; OF LIN.: ops/s as a share of LINEAR.");
  if (any_oversubscribed)
    out.push_back("*: oversubscribed (--beyond oversubscribe): that many CPUs' threads ran on the "
                  "fewer CPUs this process may use; not a measurement of that many CPUs.");
  return out;
}

PlotOutput write_sweep_plots(const std::vector<RunResult>& runs,
                                           const std::vector<std::string>& locks,
                                           const std::vector<std::string>& placements,
                                           const std::string& prefix) {
  auto means = point_means(runs);
  PlotOutput out;
  for (const std::string& placement : placements) {
    PlotSpec spec;
    spec.title = fmt::format("throughput per CPU count ({} placement)", placement);
    spec.xlabel = "CPUs";
    spec.ylabel = "operations per second";
    spec.extra = "set yrange [0:*]\nset xrange [0:*]\nset format y \"%.0s%c\"";
    int color = 0;
    for (const std::string& lock : locks) {
      PlotSeries s, linear;
      ++color;  // a lock and its linear line share a colour
      s.name = lock;
      s.style = fmt::format("linespoints lc {}", color);
      linear.name = fmt::format("{} linear", lock);
      linear.style = fmt::format("lines dashtype 2 lc {}", color);
      double base = 0;
      int base_n = 0;
      for (const auto& [key, p] : means) {
        if (std::get<0>(key) != lock || std::get<1>(key) != placement) continue;
        const int n = std::get<2>(key);
        if (base_n == 0) {
          base = p.ops_per_s;
          base_n = n;
        }
        s.points.emplace_back(n, p.ops_per_s);
        linear.points.emplace_back(n, base * n / base_n);
      }
      if (s.points.empty()) continue;
      spec.series.push_back(std::move(s));
      spec.series.push_back(std::move(linear));
    }
    if (spec.series.empty()) continue;
    out.append(write_plot(fmt::format("{}-sweep-{}", prefix, placement), spec));
  }
  return out;
}

int run_sweep(const RunConfig& base_cfg, const Topology& topology, const Output& out,
              const std::string& kind, const ExtraTables& extra) {
  const PrintFn& print = out.print;
  SessionReport session(base_cfg, topology, kind, print);
  Report& report = session.report;
  const int allowed = topology.allowed_cpu_count();
  // A sweep none of whose points can run would end with no run and a
  // verdict that claims nothing was wrong: a usage error, before anything.
  if (!base_cfg.sweep_oversubscribe &&
      std::none_of(base_cfg.sweep_cpus.begin(), base_cfg.sweep_cpus.end(),
                   [&](int n) { return n <= allowed; })) {
    out.error(fmt::format("sweep --cpus {}: this process may use {} CPU{}, so no point can run; "
                          "name counts up to {}, or add --beyond oversubscribe",
                          fmt::join(base_cfg.sweep_cpus, ","), allowed, allowed == 1 ? "" : "s",
                          allowed));
    return 2;
  }
  if (std::string err = session.open(); !err.empty()) {
    out.error(err);
    return 2;
  }
  std::vector<std::string> locks, placements;
  for (const LockMeta* m : base_cfg.locks) locks.emplace_back(m->name);
  for (Placement p : base_cfg.sweep_placements) placements.emplace_back(placement_name(p));
  const RunConfig& c = base_cfg;
  print(fmt::format("rwstress {} {}: {}; CPU counts {}; per CPU: {}; seed {:#x}, {} per point",
                    kVersion, kind, report.host_summary, fmt::join(c.sweep_cpus, ","),
                    c.selects(Family::kRwlock)
                        ? fmt::format("{} reader(s) + {} writer(s)", c.readers, c.writers)
                        : fmt::format("{} thread(s)", c.threads),
                    c.seed, format_duration(c.duration)));
  print("");
  print(console_header());
  std::vector<SweepSkip> skipped;
  for (Placement placement : c.sweep_placements) {
    for (int n : c.sweep_cpus) {
      RunConfig cfg = c;
      cfg.placement = placement;
      cfg.readers = c.readers * n;
      cfg.writers = c.writers * n;
      cfg.threads = c.threads * n;
      SessionPoint point;
      point.sweep_cpus = n;
      point.label = fmt::format("{} CPUs {}", n, placement_name(placement));
      if (n > allowed) {
        if (!c.sweep_oversubscribe) {
          std::string why = fmt::format("this process may use {} CPU{}; sweep --beyond "
                                        "oversubscribe runs it on those, marked",
                                        allowed, allowed == 1 ? "" : "s");
          skipped.push_back({placement_name(placement), n, why});
          print(fmt::format("{} CPUs ({}): skipped: {}", n, placement_name(placement), why));
          continue;
        }
        point.cpus = topology.placement_order(placement);
        point.oversubscribed = true;
      } else {
        point.cpus = topology.select_cpus(placement, n);
      }
      report.plan = topology.plan(cfg.threads_for(cfg.locks.front()->family), point.cpus);
      if (std::string err = session.run(cfg, point); !err.empty()) {
        out.error(err);
        return 2;
      }
      if (session.stopped()) break;
    }
    if (session.stopped()) break;
  }
  print("");
  for (const std::string& line : sweep_tables(report.runs, locks, c.sweep_cpus, placements, skipped))
    print(line);
  if (extra)
    for (const std::string& line : extra(report.runs)) print(line);
  if (!c.plot_prefix.empty()) {
    PlotOutput plots = write_sweep_plots(report.runs, locks, placements, c.plot_prefix);
    for (const std::string& line : plots.lines) print(line);
    for (std::string& err : plots.errors) session.add_error(std::move(err));
  }
  return session.finish();
}

}  // namespace rwstress
