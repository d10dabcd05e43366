// --junit: JUnit XML for CI systems. One test case per run; FAIL and
// STARVED are failures, HANG and CRASH errors, each with the violations,
// starved threads or hang report as its text. The effective configuration
// and seed are suite properties, so a red CI run can be replayed.
#include <fmt/format.h>

#include "model/version.h"
#include "platform/interrupt.h"
#include "report/report.h"
#include "report/reporter.h"

namespace rwstress {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

namespace {

std::string failure_text(const RunResult& r) {
  std::string text;
  auto line = [&](const std::string& s) { text += s + "\n"; };
  for (const Violation& v : r.first_violations)
    line(fmt::format("{} ({}): {}", violation_kind_name(v.kind), violation_source(v.thread),
                     v.detail));
  for (const std::string& s : r.starved) line("starved: " + s);
  for (const std::string& s : r.hang_report) line(s);
  if (!r.error.empty()) line(r.error);
  return text;
}

std::string failure_message(const RunResult& r) {
  switch (r.verdict) {
    case Verdict::kFail: return fmt::format("{} invariant violations", r.violation_count);
    case Verdict::kStarved: return "a thread the lock promises progress to starved";
    case Verdict::kHang: return "no progress for the watchdog time";
    case Verdict::kCrash: return "the lock crashed the process";
    case Verdict::kPass:
    case Verdict::kInterrupted: break;
  }
  return "";
}

}  // namespace

void JunitTotals::add(const RunResult& r) {
  ++tests;
  failures += r.verdict == Verdict::kFail || r.verdict == Verdict::kStarved;
  errors += r.verdict == Verdict::kHang || r.verdict == Verdict::kCrash;
  skipped += r.verdict == Verdict::kInterrupted || (r.verdict == Verdict::kPass && r.interrupted);
  time += r.duration_s;
}

std::string junit_head(const Report& report, const JunitTotals& t) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"rwstress\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
                     "time=\"{:.3f}\">\n",
                     t.tests, t.failures, t.errors, t.time);
  out += fmt::format("  <testsuite name=\"rwstress\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
                     "skipped=\"{}\" time=\"{:.3f}\">\n",
                     t.tests, t.failures, t.errors, t.skipped, t.time);
  out += "    <properties>\n";
  auto property = [&](const std::string& name, const std::string& value) {
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(name),
                       xml_escape(value));
  };
  property("version", kVersion);
  property("command", report.config.describe(report.plan));
  property("seed", fmt::format("{:#x}", report.config.seed));
  property("host", report.host_summary);
  if (report.interrupted_by)
    property("interrupted", interrupt_signal_name(report.interrupted_by));
  return out + "    </properties>\n";
}

std::string junit_case(const Report& report, const RunResult& r) {
  std::string name = r.scenario_key.empty() ? r.lock : r.scenario_key;
  if (!r.label.empty()) name = r.label + ": " + name;
  if (report.config.repeat > 1) name += fmt::format(" #{}", r.repeat + 1);
  std::string out = fmt::format("    <testcase classname=\"rwstress.{}\" name=\"{}\" time=\"{:.3f}\"",
                                family_name(r.family), xml_escape(name), r.duration_s);
  if (r.verdict == Verdict::kPass || r.verdict == Verdict::kInterrupted) {
    // A run cut short proves less than its duration promised.
    return out + (r.interrupted || r.verdict == Verdict::kInterrupted ? fmt::format(">\n      <skipped message=\"interrupted by {}\"/>\n    "
                                              "</testcase>\n",
                                              interrupt_signal_name(report.interrupted_by))
                                : "/>\n");
  }
  const bool error = r.verdict == Verdict::kHang || r.verdict == Verdict::kCrash;
  return out + fmt::format(">\n      <{} message=\"{}\" type=\"{}\">{}</{}>\n    </testcase>\n",
                           error ? "error" : "failure", xml_escape(failure_message(r)),
                           verdict_name(r.verdict), xml_escape(failure_text(r)),
                           error ? "error" : "failure");
}

std::string junit_session_case(const Report& report) {
  std::string why;
  if (!report.complete)
    why = "the session has not finished: this file is a placeholder";
  else if (report.interrupted_by)
    why = fmt::format("the session was interrupted by {} after {} run{}",
                      interrupt_signal_name(report.interrupted_by), report.run_count,
                      report.run_count == 1 ? "" : "s");
  if (why.empty()) return "";
  return fmt::format("    <testcase classname=\"rwstress.session\" name=\"session\" time=\"0\">\n"
                     "      <error message=\"{}\" type=\"{}\"/>\n    </testcase>\n",
                     xml_escape(why), report.complete ? "INTERRUPTED" : "INCOMPLETE");
}

void JunitTotals::add_session(const Report& report) {
  if (junit_session_case(report).empty()) return;
  ++tests;
  ++errors;
}

std::string junit_tail() { return "  </testsuite>\n</testsuites>\n"; }

std::string junit_report_text(const Report& report) {
  JunitTotals totals;
  for (const RunResult& r : report.runs) totals.add(r);
  totals.add_session(report);
  std::string out = junit_head(report, totals);
  for (const RunResult& r : report.runs) out += junit_case(report, r);
  return out + junit_session_case(report) + junit_tail();
}

}  // namespace rwstress

namespace rwstress {

namespace {

class JunitReporter : public Reporter {
 public:
  explicit JunitReporter(std::string path) : path_(std::move(path)) {}
  std::string open(const Report& report) override {
    JunitTotals none;
    none.add_session(report);
    return open_report_file("--junit", path_,
                            {junit_head(report, none), junit_session_case(report), junit_tail()});
  }
  void add(const Report& report, const RunResult& r) override {
    if (std::string err = cases_.append(junit_case(report, r)); !err.empty())
      errors_.push_back("--junit: " + err);
    totals_.add(r);
  }
  void finish(const Report& report, const PrintFn& print) override {
    // A session cut short is an error case of its own: its runs alone
    // (each skipped or judged) would leave a green suite.
    JunitTotals totals = totals_;
    totals.add_session(report);
    std::string err = write_report_file(
        path_, {junit_head(report, totals), &cases_, junit_session_case(report), junit_tail()});
    if (!err.empty())
      errors_.push_back("--junit: " + err);
    else
      print("JUnit XML written to " + path_);
  }

 private:
  std::string path_;
  Spool cases_;
  JunitTotals totals_;
};

}  // namespace

std::unique_ptr<Reporter> junit_reporter(const std::string& path) {
  return std::make_unique<JunitReporter>(path);
}

}  // namespace rwstress
