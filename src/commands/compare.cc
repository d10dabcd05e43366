#include "commands/compare.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "config/run_config.h"
#include "model/lock_traits.h"

namespace rwstress {

double Sample::mean() const {
  if (values.empty()) return 0;
  double s = 0;
  for (double v : values) s += v;
  return s / double(values.size());
}

double Sample::stddev() const {
  if (values.size() < 2) return 0;
  const double m = mean();
  double ss = 0;
  for (double v : values) ss += (v - m) * (v - m);
  return std::sqrt(ss / double(values.size() - 1));
}

WelchResult welch_test(const Sample& a, const Sample& b) {
  WelchResult r;
  const double na = double(a.values.size()), nb = double(b.values.size());
  if (na < 2 || nb < 2) return r;
  r.valid = true;
  const double va = a.stddev() * a.stddev() / na, vb = b.stddev() * b.stddev() / nb;
  const double diff = a.mean() - b.mean();
  if (va + vb == 0) {
    // No spread on either side: any difference is certain, none is none.
    r.t = diff == 0 ? 0 : std::copysign(INFINITY, diff);
    r.df = na + nb - 2;
    r.p = diff == 0 ? 1 : 0;
    return r;
  }
  r.t = diff / std::sqrt(va + vb);
  r.df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
  // Extreme inputs can overflow the sums; a test on inf or NaN says nothing.
  if (!std::isfinite(r.t) || !std::isfinite(r.df) || r.df <= 0) {
    r.valid = false;
    return r;
  }
  try {
    boost::math::students_t dist(r.df);
    r.p = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(r.t)));
  } catch (const std::exception&) {
    r.valid = false;
  }
  return r;
}

namespace {

using nlohmann::json;

// Any figure rwstress writes is far below this; a larger one (or one that
// overflowed to infinity) is a corrupt file, and its square would overflow
// the variance.
constexpr double kLargestFigure = 1e150;

double number(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number())
    throw std::runtime_error(fmt::format("has no number '{}'", key));
  const double v = j.at(key).get<double>();
  if (!std::isfinite(v) || std::fabs(v) > kLargestFigure)
    throw std::runtime_error(fmt::format("has '{}' = {}, out of range", key, j.at(key).dump()));
  return v;
}

// A count rwstress wrote: a whole number a double holds exactly (2^53 is
// far beyond any run's acquisitions: 100 years at 10^9 a second is 2^62,
// and no run is that long).
double count(const json& j, const char* key) {
  const double v = number(j, key);
  if (v < 0 || v != std::floor(v) || v > 9007199254740992.0)
    throw std::runtime_error(fmt::format("has '{}' = {}, not a count", key, j.at(key).dump()));
  return v;
}

// A scenario key for files whose runs lack one: what the run itself says.
std::string fallback_key(const json& run) {
  const std::string family = run.value("family", "");
  const Family f = family == "rwlock"      ? Family::kRwlock
                   : family == "semaphore" ? Family::kSemaphore
                                           : Family::kMutex;
  const std::string shape =
      test_shape(f, run.value("readers", 0), run.value("writers", 0), run.value("count", 0));
  size_t cpus = run.contains("cpus") && run["cpus"].is_array() ? run["cpus"].size() : 0;
  return fmt::format("{} {} sched={} cpus={}", run.value("lock", "?"), shape,
                     run.value("sched", false) ? "yes" : "no", cpus);
}

void add(std::vector<std::pair<std::string, Sample>>& figs, const std::string& name, double v) {
  for (auto& [n, s] : figs)
    if (n == name) {
      s.values.push_back(v);
      return;
    }
  figs.push_back({name, Sample{{v}}});
}

}  // namespace

std::string load_compare_side(const std::string& path, CompareSide* out,
                              const std::vector<std::string>& ignore) {
  out->path = path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return fmt::format("compare: '{}' is a directory, not an rwstress --json file", path);
  std::ifstream in(path);
  if (!in) return fmt::format("compare: cannot read '{}'", path);
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    return fmt::format("compare: '{}' is not JSON (byte {})", path, e.byte);
  } catch (const json::exception& e) {
    // e.g. a number too large for a double (1e999)
    return fmt::format("compare: '{}' is not usable JSON: {}", path, e.what());
  }
  if (!doc.is_object() || !doc.contains("schema") || !doc.contains("runs") ||
      !doc["runs"].is_array())
    return fmt::format("compare: '{}' is not an rwstress --json file (no schema or runs)", path);
  if (!doc["schema"].is_number_integer() || doc["schema"].get<std::int64_t>() != 1)
    return fmt::format("compare: '{}' has schema {}; this rwstress reads schema 1", path,
                       doc["schema"].dump());
  if (doc.contains("kind")) {
    const json& kind = doc["kind"];
    if (!kind.is_string() || (kind != "run" && kind != "sweep" && kind != "suite rwsem-test" &&
                              kind != "suite bkl"))
      return fmt::format("compare: '{}' has kind {}, which rwstress does not write", path, kind.dump());
  }
  // What a SIGKILL leaves: the runs written so far, and "complete": false.
  out->incomplete = doc.contains("complete") && doc["complete"] == false;
  int index = 0;
  std::map<std::string, int> left_out;  // verdict -> runs
  try {
    for (const json& run : doc["runs"]) {
      ++index;
      if (!run.is_object()) throw std::runtime_error("is not an object");
      // Figures that cannot be: a run of no time, counts past any run,
      // a repeat index out of --repeat's range.
      if (const double d = number(run, "duration_s"); !(d > 0))
        throw std::runtime_error(fmt::format("has 'duration_s' = {}, not a run's length", run.at("duration_s").dump()));
      count(run, "reads");
      count(run, "writes");
      if (run.contains("repeat") && (!run["repeat"].is_number_unsigned() || run["repeat"].get<std::uint64_t>() >= 1000))
        throw std::runtime_error(fmt::format("has 'repeat' = {}, not a --repeat index (0 to 999)", run["repeat"].dump()));
      // A run that failed, hung or was cut short measured something else
      // than the lock's throughput: left out of the means, and said.
      const std::string verdict = run.contains("verdict") && run["verdict"].is_string() ? run["verdict"].get<std::string>() : "?";
      const bool interrupted = run.contains("interrupted") && run["interrupted"] == true;
      if (verdict != "PASS" || interrupted) {
        ++left_out[interrupted && verdict == "PASS" ? std::string("INTERRUPTED") : verdict];
        continue;
      }
      std::string key = run.contains("scenario") && run["scenario"].is_string() &&
                                !run["scenario"].get<std::string>().empty()
                            ? run["scenario"].get<std::string>()
                            : fallback_key(run);
      key = scenario_key_without(key, ignore);
      if (!out->figures.count(key)) out->order.push_back(key);
      ++out->runs[key];
      auto& figs = out->figures[key];
      const double duration = number(run, "duration_s");
      const double ops = number(run, "reads") + number(run, "writes");
      add(figs, "ops/s", number(run, "ops_per_s"));
      if (run.value("readers", 0) > 0 && run.value("writers", 0) > 0 && duration > 0) {
        add(figs, "reads/s", number(run, "reads") / duration);
        add(figs, "writes/s", number(run, "writes") / duration);
      }
      if (run.contains("system") && run["system"].is_object() && ops > 0) {
        const json& sys = run["system"];
        add(figs, "csw/op", (number(sys, "voluntary_csw") + number(sys, "involuntary_csw")) / ops);
        add(figs, "user ns/op", number(sys, "user_s") * 1e9 / ops);
        add(figs, "sys ns/op", number(sys, "sys_s") * 1e9 / ops);
        add(figs, "idle %", 100 * number(sys, "idle_share"));
      }
      if (run.contains("lockstat") && run["lockstat"].is_object()) {
        for (const char* role : {"read", "write"}) {
          const json& r = run["lockstat"].at(role);
          if (number(r, "requests") == 0) continue;
          add(figs, fmt::format("{} hold mean ns", role), number(r.at("hold"), "mean_ns"));
          add(figs, fmt::format("{} wait mean ns", role), number(r.at("wait"), "mean_ns"));
          add(figs, fmt::format("{} contended %", role),
              100 * (number(r, "waited") + number(r, "rejected")) / number(r, "requests"));
        }
      }
    }
  } catch (const std::exception& e) {  // runtime_error from number(), json type errors
    return fmt::format("compare: '{}': run {} {}", path, index, e.what());
  }
  for (const auto& [verdict, n] : left_out)
    out->left_out.push_back(fmt::format("{} {} run{}", n, verdict, n == 1 ? "" : "s"));
  if (out->order.empty())
    return fmt::format("compare: '{}' has no runs{}", path,
                       left_out.empty() ? std::string() : " that passed (every run FAILed, hung or was cut short)");
  return "";
}

std::vector<std::string> compare_table(const CompareSide& a, const CompareSide& b, double alpha) {
  std::vector<std::string> out;
  out.push_back(fmt::format("A: {}", a.path));
  out.push_back(fmt::format("B: {}", b.path));
  out.push_back(fmt::format("% = (A - B) / B; p: Welch's two-sided t-test (unequal variances); "
                            "significant: p < {}",
                            alpha));
  out.push_back("");
  constexpr const char* kFormat = "  {:<18} {:>16} ({:>10}) {:>16} ({:>10}) {:>8} {:>8} {:>5}";
  out.push_back(fmt::format(fmt::runtime(kFormat), "figure", "A", "stddev", "B", "stddev", "%",
                            "p", "sig."));
  out.push_back(std::string(100, '='));
  std::vector<std::string> only_a, only_b;
  for (const std::string& key : a.order) {
    auto bit = b.figures.find(key);
    if (bit == b.figures.end()) {
      only_a.push_back(fmt::format("{} ({} runs)", key, a.runs.at(key)));
      continue;
    }
    out.push_back(fmt::format("{}   [A: {} runs, B: {} runs]", key, a.runs.at(key), b.runs.at(key)));
    for (const auto& [figure, sa] : a.figures.at(key)) {
      const Sample* sb = nullptr;
      for (const auto& [name, s] : bit->second)
        if (name == figure) sb = &s;
      if (!sb) continue;
      const WelchResult w = welch_test(sa, *sb);
      const double mb = sb->mean();
      std::string pct = mb != 0 ? fmt::format("{:.2f}%", 100 * (sa.mean() - mb) / mb) : "-";
      std::string p = w.valid ? (w.p < 0.001 ? std::string("<0.001") : fmt::format("{:.3f}", w.p))
                              : std::string("n<2");
      std::string sig = !w.valid ? "-" : w.p < alpha ? "yes" : "no";
      out.push_back(fmt::format(fmt::runtime(kFormat), figure, fmt::format("{:.3f}", sa.mean()),
                                fmt::format("{:.2f}", sa.stddev()), fmt::format("{:.3f}", mb),
                                fmt::format("{:.2f}", sb->stddev()), pct, p, sig));
    }
  }
  for (const std::string& key : b.order)
    if (!a.figures.count(key)) only_b.push_back(fmt::format("{} ({} runs)", key, b.runs.at(key)));
  for (const CompareSide* side : {&a, &b})
    if (side->incomplete) {
      out.push_back("");
      out.push_back(fmt::format("{} is incomplete (\"complete\": false): its session was killed "
                                "before it finished, so the runs it never reached are missing "
                                "from {}'s side",
                                side->path, side == &a ? "A" : "B"));
    }
  for (const CompareSide* side : {&a, &b})
    if (!side->left_out.empty()) {
      out.push_back("");
      std::string list;
      for (const std::string& s : side->left_out) list += (list.empty() ? "" : ", ") + s;
      out.push_back(fmt::format("Left out of {}'s means (they did not PASS a full run): {}",
                                side == &a ? "A" : "B", list));
    }
  if (!only_a.empty() || !only_b.empty()) {
    out.push_back("");
    out.push_back("Not compared (no run with the same configuration on the other side):");
    for (const auto& s : only_a) out.push_back("  only in A: " + s);
    for (const auto& s : only_b) out.push_back("  only in B: " + s);
  }
  return out;
}

}  // namespace rwstress
