// --csv: one row per run, a header naming every column; the lockstat
// columns are empty for runs without --lockstat/--hist.
#include <fmt/format.h>

#include "model/stats.h"
#include "report/report.h"
#include "report/reporter.h"

namespace rwstress {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out(1, '"');
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

namespace {

constexpr const char* kColumns =
    "scenario,label,lock,family,readers,writers,count,sched,cpus,placement,sweep_cpus,"
    "oversubscribed,repeat,seed,duration_s,reads,writes,ops_per_s,min_thread_ops,max_thread_ops,"
    "jain_readers,jain_writers,user_s,sys_s,voluntary_csw,involuntary_csw,idle_share,violations,"
    "verdict";

constexpr const char* kRoleColumns[] = {"requests",     "acquired",     "nowait",
                                        "waited",       "rejected",     "hold_mean_ns",
                                        "hold_max_ns",  "wait_mean_ns", "wait_max_ns"};

std::string num(double v) { return fmt::format("{:.6g}", v); }

std::string role_fields(const RunResult& r, const RoleStat& s) {
  if (!r.measured) return std::string(8, ',');
  return fmt::format("{},{},{},{},{},{},{},{},{}", s.requests, s.acquired, s.nowait, s.waited,
                     s.rejected, num(s.hold.mean_ns()), s.hold.max_ns, num(s.wait.mean_ns()),
                     s.wait.max_ns);
}

}  // namespace

std::string csv_head() {
  std::string out = kColumns;
  for (const char* role : {"read", "write"})
    for (const char* c : kRoleColumns) out += fmt::format(",{}_{}", role, c);
  return out + ",interrupted\n";
}

std::string csv_row(const RunResult& r) {
  auto jain = [](double j) { return j < 0 ? std::string() : num(j); };
  std::string out = fmt::format(
      "{},{},{},{},{},{},{},{},{},{},{},{},{},{:#x},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
      csv_field(r.scenario_key), csv_field(r.label), csv_field(r.lock), family_name(r.family),
      r.readers, r.writers, r.count, r.sched ? "yes" : "no", distinct_cpus(r.cpus), r.placement,
      r.sweep_cpus, r.oversubscribed ? "yes" : "no", r.repeat, r.seed, num(r.duration_s), r.reads,
      r.writes, num(r.ops_per_s()), r.min_thread_ops, r.max_thread_ops, jain(r.jain_readers),
      jain(r.jain_writers), num(r.user_s), num(r.sys_s), r.voluntary_csw, r.involuntary_csw,
      num(r.idle_share), r.violation_count, verdict_name(r.verdict));
  return out + fmt::format(",{},{},{}\n", role_fields(r, r.lockstat.read),
                           role_fields(r, r.lockstat.write), r.interrupted ? "yes" : "no");
}

std::string csv_report_text(const Report& report) {
  std::string out = csv_head();
  for (const RunResult& r : report.runs) out += csv_row(r);
  return out;
}

}  // namespace rwstress

namespace rwstress {

namespace {

class CsvReporter : public Reporter {
 public:
  explicit CsvReporter(std::string path) : path_(std::move(path)) {}
  std::string open(const Report&) override { return open_report_file("--csv", path_, {csv_head()}); }
  void add(const Report&, const RunResult& r) override {
    if (std::string err = rows_.append(csv_row(r)); !err.empty()) errors_.push_back("--csv: " + err);
  }
  void finish(const Report&, const PrintFn& print) override {
    if (std::string err = write_report_file(path_, {csv_head(), &rows_}); !err.empty())
      errors_.push_back("--csv: " + err);
    else
      print("CSV written to " + path_);
  }

 private:
  std::string path_;
  Spool rows_;
};

}  // namespace

std::unique_ptr<Reporter> csv_reporter(const std::string& path) {
  return std::make_unique<CsvReporter>(path);
}

}  // namespace rwstress
