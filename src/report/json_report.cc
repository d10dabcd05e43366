#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/version.h"
#include "platform/interrupt.h"
#include "report/report.h"
#include "report/reporter.h"

namespace rwstress {

namespace {

nlohmann::json time_json(const TimeStat& t) {
  return {{"count", t.count},
          {"sum_ns", t.sum_ns},
          {"min_ns", t.min_or_zero()},
          {"max_ns", t.max_ns},
          {"mean_ns", t.mean_ns()}};
}

nlohmann::json hist_json(const Histogram& h) {
  if (h.samples == 0) return nullptr;
  return {{"buckets", h.spec.mode == HistSpec::Mode::kLog2 ? "log2" : "linear"},
          {"width_ns", h.spec.width_ns},
          {"counts", h.counts},
          {"overflow", h.overflow},
          {"samples", h.samples},
          {"sum_ns", h.sum_ns}};
}

nlohmann::json role_json(const RoleStat& s) {
  return {{"requests", s.requests},   {"acquired", s.acquired},   {"nowait", s.nowait},
          {"waited", s.waited},       {"rejected", s.rejected},   {"hold", time_json(s.hold)},
          {"wait", time_json(s.wait)}, {"hold_hist", hist_json(s.hold_hist)},
          {"wait_hist", hist_json(s.wait_hist)}};
}

nlohmann::json run_json(const RunResult& r) {
  nlohmann::json threads = nlohmann::json::array();
  for (const auto& t : r.threads)
    threads.push_back({{"role", role_name(t.role)},
                       {"cpu", t.cpu},
                       {"ops", t.ops},
                       {"trylock_attempts", t.trylock_attempts},
                       {"trylock_failures", t.trylock_failures},
                       {"downgrades", t.downgrades},
                       {"reader_overlaps", t.reader_overlaps},
                       {"max_readers_seen", t.max_readers_seen},
                       {"user_s", t.user_s},
                       {"sys_s", t.sys_s},
                       {"voluntary_csw", t.voluntary_csw},
                       {"involuntary_csw", t.involuntary_csw},
                       {"wall_s", t.wall_s},
                       {"on_cpu_s", t.on_cpu_s},
                       {"runq_wait_s", t.runq_wait_s},
                       {"injected_holding_s", t.injected_holding_s},
                       {"rt", t.rt},
                       {"rt_throttled", t.rt_throttled},
                       {"nested", t.nested},
                       {"nested_wait_s", t.nested_wait_s}});
  nlohmann::json by_kind = nlohmann::json::object();
  for (int k = 0; k < kViolationKindCount; ++k)
    if (r.violations_by_kind[k]) by_kind[violation_kind_name(ViolationKind(k))] = r.violations_by_kind[k];
  nlohmann::json first = nlohmann::json::array();
  for (const auto& v : r.first_violations)
    first.push_back({{"kind", violation_kind_name(v.kind)},
                     {"thread", v.thread},
                     {"detail", v.detail}});
  auto jain = [](double j) { return j < 0 ? nlohmann::json(nullptr) : nlohmann::json(j); };
  nlohmann::json injections = nlohmann::json::array();
  for (const auto& c : r.injections)
    injections.push_back(
        {{"spec", c.spec}, {"point", c.point}, {"fired", c.fired}, {"visits", c.visits}});
  nlohmann::json lockstat = nullptr;
  if (r.measured)
    lockstat = {{"clock", r.clock},
                {"clock_overhead_ns", r.clock_overhead_ns},
                {"read", role_json(r.lockstat.read)},
                {"write", role_json(r.lockstat.write)}};
  return {{"scenario", r.scenario_key},
          {"label", r.label},
          {"seed", r.seed},
          {"repeat", r.repeat},
          {"placement", r.placement},
          {"sweep_cpus", r.sweep_cpus},
          {"oversubscribed", r.oversubscribed},
          {"lockstat", lockstat},
          {"lock", r.lock},
          {"family", family_name(r.family)},
          {"fairness", fairness_name(r.fairness)},
          {"readers", r.readers},
          {"writers", r.writers},
          {"count", r.count},
          {"spins", r.spins},
          {"sched", r.sched},
          {"cpus", r.cpus},
          {"duration_s", r.duration_s},
          {"reads", r.reads},
          {"writes", r.writes},
          {"ops_per_s", r.ops_per_s()},
          {"min_thread_ops", r.min_thread_ops},
          {"max_thread_ops", r.max_thread_ops},
          {"jain_readers", jain(r.jain_readers)},
          {"jain_writers", jain(r.jain_writers)},
          {"max_readers_seen", r.max_readers_seen},
          {"system",
           {{"user_s", r.user_s},
            {"sys_s", r.sys_s},
            {"voluntary_csw", r.voluntary_csw},
            {"involuntary_csw", r.involuntary_csw},
            {"idle_share", r.idle_share},
            {"others_share", r.others_share < 0 ? nlohmann::json() : nlohmann::json(r.others_share)}}},
          {"per_thread", threads},
          {"violations", {{"count", r.violation_count}, {"by_kind", by_kind}, {"first", first}}},
          {"starved", r.starved},
          {"starved_judged", r.starved_judged},
          {"notes", r.notes},
          {"hang_report", r.hang_report},
          {"error", r.error},
          {"known_issue", r.known_issue},
          {"injections", injections},
          {"stuck_threads", r.stuck_threads},
          {"schedule_digest", fmt::format("{:#018x}", r.schedule_digest)},
          {"verdict", verdict_name(r.verdict)},
          {"interrupted", r.interrupted},
          {"checked", r.checked},
          {"stopped_at_violation", r.stopped_at_violation},
          {"starved_by_cause", r.starved_by_cause},
          {"cpus_busy_s", r.cpus_busy_s}};
}

// The reader: run_json's inverse, for a RunResult that a child process
// hands its parent. Any field missing or of the wrong type throws
// nlohmann's exception, which run_from_json_text turns into one line.
template <class Enum, int kCount>
Enum enum_named(const nlohmann::json& j, const char* (*name)(Enum), const char* what) {
  const std::string s = j.get<std::string>();
  for (int i = 0; i < kCount; ++i)
    if (s == name(Enum(i))) return Enum(i);
  throw std::runtime_error(fmt::format("unknown {} '{}'", what, s));
}

// A figure written as null when unknown (a Jain index without threads of
// that role, others_share where /proc/stat was unreadable): -1 here.
double number_or_unknown(const nlohmann::json& j) { return j.is_null() ? -1 : j.get<double>(); }

TimeStat time_from(const nlohmann::json& j) {
  TimeStat t;
  t.count = j.at("count");
  t.sum_ns = j.at("sum_ns");
  t.max_ns = j.at("max_ns");
  if (t.count) t.min_ns = j.at("min_ns");
  return t;
}

Histogram hist_from(const nlohmann::json& j) {
  Histogram h;
  if (j.is_null()) return h;
  h.spec.mode = j.at("buckets") == "log2" ? HistSpec::Mode::kLog2 : HistSpec::Mode::kLinear;
  h.spec.width_ns = j.at("width_ns");
  h.counts = j.at("counts").get<std::vector<std::uint64_t>>();
  if (h.spec.mode == HistSpec::Mode::kLinear) h.spec.buckets = int(h.counts.size());
  h.overflow = j.at("overflow");
  h.samples = j.at("samples");
  h.sum_ns = j.at("sum_ns");
  return h;
}

RoleStat role_from(const nlohmann::json& j) {
  RoleStat s;
  s.requests = j.at("requests");
  s.acquired = j.at("acquired");
  s.nowait = j.at("nowait");
  s.waited = j.at("waited");
  s.rejected = j.at("rejected");
  s.hold = time_from(j.at("hold"));
  s.wait = time_from(j.at("wait"));
  s.hold_hist = hist_from(j.at("hold_hist"));
  s.wait_hist = hist_from(j.at("wait_hist"));
  return s;
}

RunResult run_from(const nlohmann::json& j) {
  RunResult r;
  r.scenario_key = j.at("scenario");
  r.label = j.at("label");
  r.seed = j.at("seed");
  r.repeat = j.at("repeat");
  r.placement = j.at("placement");
  r.sweep_cpus = j.at("sweep_cpus");
  r.oversubscribed = j.at("oversubscribed");
  if (const nlohmann::json& ls = j.at("lockstat"); !ls.is_null()) {
    r.measured = true;
    r.clock = ls.at("clock");
    r.clock_overhead_ns = ls.at("clock_overhead_ns");
    r.lockstat.read = role_from(ls.at("read"));
    r.lockstat.write = role_from(ls.at("write"));
  }
  r.lock = j.at("lock");
  r.family = enum_named<Family, 3>(j.at("family"), family_name, "family");
  r.fairness = enum_named<Fairness, kFairnessCount>(j.at("fairness"), fairness_name, "fairness");
  r.readers = j.at("readers");
  r.writers = j.at("writers");
  r.count = j.at("count");
  r.spins = j.at("spins");
  r.sched = j.at("sched");
  r.cpus = j.at("cpus").get<std::vector<int>>();
  r.duration_s = j.at("duration_s");
  r.reads = j.at("reads");
  r.writes = j.at("writes");
  r.min_thread_ops = j.at("min_thread_ops");
  r.max_thread_ops = j.at("max_thread_ops");
  r.jain_readers = number_or_unknown(j.at("jain_readers"));
  r.jain_writers = number_or_unknown(j.at("jain_writers"));
  r.max_readers_seen = j.at("max_readers_seen");
  const nlohmann::json& sys = j.at("system");
  r.user_s = sys.at("user_s");
  r.sys_s = sys.at("sys_s");
  r.voluntary_csw = sys.at("voluntary_csw");
  r.involuntary_csw = sys.at("involuntary_csw");
  r.idle_share = sys.at("idle_share");
  r.others_share = number_or_unknown(sys.at("others_share"));
  for (const nlohmann::json& t : j.at("per_thread")) {
    ThreadResult& tr = r.threads.emplace_back();
    tr.role = enum_named<Role, 3>(t.at("role"), role_name, "role");
    tr.cpu = t.at("cpu");
    tr.ops = t.at("ops");
    tr.trylock_attempts = t.at("trylock_attempts");
    tr.trylock_failures = t.at("trylock_failures");
    tr.downgrades = t.at("downgrades");
    tr.reader_overlaps = t.at("reader_overlaps");
    tr.max_readers_seen = t.at("max_readers_seen");
    tr.user_s = t.at("user_s");
    tr.sys_s = t.at("sys_s");
    tr.voluntary_csw = t.at("voluntary_csw");
    tr.involuntary_csw = t.at("involuntary_csw");
    tr.wall_s = t.at("wall_s");
    tr.on_cpu_s = t.at("on_cpu_s");
    tr.runq_wait_s = t.at("runq_wait_s");
    tr.injected_holding_s = t.value("injected_holding_s", 0.0);  // added later in schema 1
    tr.rt = t.value("rt", false);                                 // (these two as well)
    tr.rt_throttled = t.value("rt_throttled", std::uint64_t(0));
    tr.nested = t.value("nested", std::uint64_t(0));  // (and these two)
    tr.nested_wait_s = t.value("nested_wait_s", 0.0);
  }
  const nlohmann::json& v = j.at("violations");
  r.violation_count = v.at("count");
  for (const auto& [kind, n] : v.at("by_kind").items())
    r.violations_by_kind[int(enum_named<ViolationKind, kViolationKindCount>(
        nlohmann::json(kind), violation_kind_name, "violation kind"))] = n;
  for (const nlohmann::json& f : v.at("first"))
    r.first_violations.push_back(Violation{
        enum_named<ViolationKind, kViolationKindCount>(f.at("kind"), violation_kind_name,
                                                       "violation kind"),
        f.at("thread"), f.at("detail")});
  r.starved = j.at("starved").get<std::vector<std::string>>();
  r.starved_judged = std::clamp(j.value("starved_judged", 0), 0, int(r.starved.size()));  // (older files: none)
  r.notes = j.at("notes").get<std::vector<std::string>>();
  r.hang_report = j.at("hang_report").get<std::vector<std::string>>();
  r.error = j.at("error");
  r.known_issue = j.at("known_issue");
  for (const nlohmann::json& c : j.at("injections"))
    r.injections.push_back(InjectionCount{c.at("spec"), c.at("point"), c.at("fired"), c.at("visits")});
  r.stuck_threads = j.at("stuck_threads");
  r.schedule_digest = std::stoull(j.at("schedule_digest").get<std::string>(), nullptr, 16);
  r.verdict = enum_named<Verdict, kVerdictCount>(j.at("verdict"), verdict_name, "verdict");
  r.interrupted = j.at("interrupted");
  r.checked = j.at("checked");
  r.stopped_at_violation = j.at("stopped_at_violation");
  const auto causes = j.at("starved_by_cause").get<std::vector<int>>();
  for (std::size_t i = 0; i < causes.size() && i < std::size(r.starved_by_cause); ++i)
    r.starved_by_cause[i] = causes[i];
  r.cpus_busy_s = j.at("cpus_busy_s");
  return r;
}

}  // namespace

std::string run_to_json_text(const RunResult& r) { return run_json(r).dump(); }

std::string run_from_json_text(std::string_view text, RunResult& out) {
  try {
    out = run_from(nlohmann::json::parse(text));
    return "";
  } catch (const std::exception& e) {  // parse errors, missing fields, wrong types
    return fmt::format("not a run's JSON: {}", e.what());
  }
}

std::string json_head(const Report& report) {
  const RunConfig& c = report.config;
  nlohmann::json inject = nlohmann::json::array();
  for (const auto& spec : c.injection.specs) inject.push_back(spec.describe());
  nlohmann::json tuning = nlohmann::json::object();
  for (const Knob& k : kKnobs) {
    const int v = c.tuning.*k.field;
    tuning[std::string(k.json)] = knob_is_switch(k) ? nlohmann::json(v != 0) : nlohmann::json(v);
  }
  nlohmann::json config = {
      {"lock", c.lock_spec},
      {"readers", c.readers},
      {"writers", c.writers},
      {"threads", c.threads},
      {"count", c.count},
      {"tuning", tuning},
      {"sched", c.sched},
      {"rt_threads", c.rt_threads},
      {"writer_fifo", c.writer_fifo},
      {"nested_locks", c.nested_locks},
      {"duration_s", std::chrono::duration<double>(c.duration).count()},
      {"cpus", c.cpus.describe()},
      {"placement", placement_name(c.placement)},
      {"cs_read", c.cs_read_loops},
      {"cs_write", c.cs_write_loops},
      {"delay", c.delay_loops},
      {"try_every", c.try_every},
      {"killable_every", c.killable_every},
      {"watchdog_s", std::chrono::duration<double>(c.watchdog).count()},
      {"fail_fast", c.fail_fast},
      {"inject", inject},
      {"lockstat", c.measure.lockstat},
      {"hist", {{"hold", c.measure.hist_hold},
                {"wait", c.measure.hist_wait},
                {"buckets", c.measure.hist.mode == HistSpec::Mode::kLog2 ? "log2" : "linear"},
                {"width_ns", c.measure.hist.width_ns},
                {"count", c.measure.hist.buckets}}},
      {"acq_writer_lim_ns", c.measure.acq_writer_limit_ns},
      {"repeat", c.repeat},
      {"command", c.describe(report.plan)}};
  nlohmann::json host = {{"cpus", report.host_cpus},
                         {"topology", report.host_summary},
                         {"placement_plan",
                          {{"cpu_of_thread", report.plan.cpu_of_thread},
                           {"cpus", report.plan.cpus},
                           {"oversubscribed", report.plan.oversubscribed},
                           {"description", report.plan.describe()}}}};
  nlohmann::json doc = {{"rwstress_version", kVersion},
                        {"schema", kJsonSchemaVersion},
                        {"kind", report.kind},
                        {"seed", c.seed},
                        {"seed_hex", fmt::format("{:#x}", c.seed)},
                        {"config", config},
                        {"host", host}};
  std::string head = doc.dump(2);
  head.resize(head.size() - 2);  // the closing "\n}": the runs follow
  return head + ",\n  \"runs\": [";
}

std::string json_run(const RunResult& r, bool first) {
  std::string out = first ? "\n" : ",\n";
  const std::string text = run_json(r).dump(2);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += "    ";
    out.append(text, start, end - start);
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

std::string json_tail(const Report& report, bool any_runs) {
  const nlohmann::json interrupted =
      report.interrupted_by ? nlohmann::json(interrupt_signal_name(report.interrupted_by))
                            : nlohmann::json(nullptr);
  // A snapshot taken while runs are still to come (or left by a kill -9)
  // claims no verdict: its runs keep their own.
  const char* verdict = report.complete ? verdict_name(report.overall()) : "INCOMPLETE";
  return fmt::format("{}],\n  \"verdict\": {},\n  \"complete\": {},\n  \"interrupted\": {}\n}}\n",
                     any_runs ? "\n  " : "", nlohmann::json(verdict).dump(),
                     report.complete ? "true" : "false", interrupted.dump());
}

std::string json_report_text(const Report& report) {
  std::string out = json_head(report);
  for (std::size_t i = 0; i < report.runs.size(); ++i) out += json_run(report.runs[i], i == 0);
  return out + json_tail(report, !report.runs.empty());
}

}  // namespace rwstress

namespace rwstress {

namespace {

class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(std::string path) : path_(std::move(path)) {}

  std::string open(const Report& report) override {
    std::string err = open_report_file("--json", path_, pieces(report));
    stream_ = is_stream(path_);
    last_write_ = std::chrono::steady_clock::now();
    return err;
  }

  void add(const Report& report, const RunResult& r) override {
    if (std::string err = runs_.append(json_run(r, report.run_count == 1)); !err.empty())
      errors_.push_back("--json: " + err);
    keep_current(report);
  }

  void finish(const Report& report, const PrintFn&) override { write(report); }

 private:
  std::vector<ReportPiece> pieces(const Report& report) const {
    return {json_head(report), &runs_, json_tail(report, report.run_count > 0)};
  }

  void write(const Report& report) {
    if (std::string err = write_report_file(path_, pieces(report)); !err.empty())
      errors_.push_back("--json: " + err);
  }

  // Rewriting the whole document (a copy of the spool between its head and
  // tail) costs O(runs) in time, never in memory, so with --repeat 1000 a
  // rewrite after every run would be O(n^2). It is rewritten when the last
  // rewrite is older than a second, or four times as old as that rewrite
  // took, which bounds its share of the wall time to about a fifth; finish()
  // writes the last state. A kill -9 loses at most the runs of the last
  // second or so. A stream gets one document, at the end.
  void keep_current(const Report& report) {
    using namespace std::chrono;
    if (stream_) return;
    const auto now = steady_clock::now();
    if (now - last_write_ < std::max<steady_clock::duration>(seconds(1), write_cost_ * 4)) return;
    write(report);
    const auto done = steady_clock::now();
    write_cost_ = done - now;
    last_write_ = done;
  }

  std::string path_;
  bool stream_ = false;  // a device or a pipe, seen at open(): no stat() per run
  Spool runs_;
  std::chrono::steady_clock::time_point last_write_{};
  std::chrono::steady_clock::duration write_cost_{};
};

}  // namespace

std::unique_ptr<Reporter> json_reporter(const std::string& path) {
  return std::make_unique<JsonReporter>(path);
}

}  // namespace rwstress
