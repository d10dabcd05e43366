// Measurement and reports: every statistics formula against hand-computed
// values, every reporter against a golden file (tests/golden/; run with
// RWSTRESS_UPDATE_GOLDEN=1 to rewrite them after an intended change), the
// clock's overhead subtraction, and the binary's measurement commands end
// to end.
#define BOOST_TEST_MODULE test_reports
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "commands/compare.h"
#include "commands/suite.h"
#include "commands/sweep.h"
#include "platform/cycle_clock.h"
#include "registry/registry.h"
#include "report/report.h"
#include "run/lockstat_recorder.h"
#include "run/run_driver.h"
#include "tests/test_support.h"

using namespace rwstress;

namespace {

// Compares `text` with tests/golden/NAME, or rewrites it when
// RWSTRESS_UPDATE_GOLDEN is set.
void check_golden(const std::string& name, const std::string& text) {
  const std::string path = std::string(RWSTRESS_SOURCE_DIR) + "/tests/golden/" + name;
  if (std::getenv("RWSTRESS_UPDATE_GOLDEN")) {
    BOOST_REQUIRE(write_report_file(path, text).empty());
    return;
  }
  const std::string want = test::slurp(path);
  BOOST_REQUIRE_MESSAGE(!want.empty(), "missing golden file " << path);
  if (want == text) return;
  std::istringstream a(want), b(text);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ga = bool(std::getline(a, la)), gb = bool(std::getline(b, lb));
    if (!ga && !gb) break;
    BOOST_REQUIRE_MESSAGE(ga == gb && la == lb, name << " line " << line << ":\n  golden: " << la
                                                      << "\n  actual: " << lb);
  }
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

RoleStat role(std::uint64_t nowait, std::uint64_t waited, std::uint64_t rejected,
              std::vector<std::uint64_t> holds, std::vector<std::uint64_t> waits,
              const HistSpec& spec = {}) {
  RoleStat s;
  s.hold_hist = s.wait_hist = Histogram(spec);
  s.nowait = nowait;
  s.waited = waited;
  s.rejected = rejected;
  s.acquired = nowait + waited;
  s.requests = s.acquired + rejected;
  for (auto h : holds) {
    s.hold.add(h);
    s.hold_hist.add(h);
  }
  for (auto w : waits) {
    s.wait.add(w);
    s.wait_hist.add(w);
  }
  return s;
}

// Two fixed runs, as the reporters see them.
std::vector<RunResult> sample_runs() {
  RunResult a;
  a.scenario_key = "xadd 2R+1W sched=no cpus=2 cs=0/0 delay=0";
  a.lock = "xadd";
  a.family = Family::kRwlock;
  a.readers = 2;
  a.writers = 1;
  a.cpus = {0, 1};
  a.duration_s = 0.5;
  a.reads = 3000;
  a.writes = 1000;
  a.min_thread_ops = 1000;
  a.max_thread_ops = 1500;
  a.jain_readers = 1.0;
  a.jain_writers = 1.0;
  a.user_s = 0.6;
  a.sys_s = 0.2;
  a.voluntary_csw = 100;
  a.involuntary_csw = 20;
  a.idle_share = 0.2;
  a.placement = "compact";
  a.seed = 0x5eed;
  a.measured = true;
  a.clock = "test clock";
  a.clock_overhead_ns = 20;
  a.lockstat.read = role(3, 1, 1, {100, 200, 300, 400}, {0, 10, 20, 5000});
  a.lockstat.write = role(1, 1, 0, {1000, 3000}, {50, 150000});
  RunResult b = a;
  b.scenario_key = "ticket 2T sched=no cpus=2 cs=0/0 delay=0";
  b.lock = "ticket";
  b.family = Family::kMutex;
  b.readers = 0;
  b.writers = 2;
  b.reads = 0;
  b.writes = 8000;
  b.jain_readers = -1;
  b.verdict = Verdict::kFail;
  b.violation_count = 1;
  b.first_violations = {{ViolationKind::kWriterExclusion, 1, "two holders <inside> & out"}};
  b.lockstat.read = RoleStat{};
  b.lockstat.read.hold_hist = b.lockstat.read.wait_hist = Histogram();
  b.lockstat.write = role(2, 2, 0, {64, 64, 128, 70000}, {1, 2, 3, 4});
  return {a, b};
}

Report sample_report() {
  Report r;
  r.config.lock_spec = "xadd,ticket";
  r.config.seed = 0x5eed;
  r.config.readers = 2;
  r.config.writers = 1;
  r.config.threads = 2;
  r.config.duration = std::chrono::milliseconds(500);
  r.config.measure.lockstat = true;
  r.host_summary = "test host";
  r.plan.cpus = {0, 1};
  r.runs = sample_runs();
  r.complete = true;  // a finished session
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(time_and_percent_formats_follow_lockmeter) {
  BOOST_TEST(lockmeter_time(0) == "0ns");
  BOOST_TEST(lockmeter_time(999) == "999ns");
  BOOST_TEST(lockmeter_time(2200) == "2.2us");
  BOOST_TEST(lockmeter_time(31000) == "31us");
  BOOST_TEST(lockmeter_time(43e6) == "43ms");
  BOOST_TEST(lockmeter_time(1.167e6) == "1.2ms");
  BOOST_TEST(lockmeter_time(2.5e9) == "2.5s");
  BOOST_TEST(lockmeter_percent(0) == "0%");
  BOOST_TEST(lockmeter_percent(0.0033) == "0.33%");
  BOOST_TEST(lockmeter_percent(0.137) == "13.7%");
  BOOST_TEST(lockmeter_percent(1.0) == "100%");
}

BOOST_AUTO_TEST_CASE(lockmeter_columns_by_hand) {
  // 10 requests: 6 at once, 2 waited, 2 failed trylocks. Holds 1000 ns
  // each (8 of them) over 20 us; waits 0,0,0,0,0,0, 3000, 5000 ns.
  RoleStat s = role(6, 2, 2, std::vector<std::uint64_t>(8, 1000), {0, 0, 0, 0, 0, 0, 3000, 5000});
  LockmeterRow r = lockmeter_row(s, 20e-6, 2);
  BOOST_TEST(r.total == 10u);
  BOOST_TEST(r.util == 0.4, boost::test_tools::tolerance(1e-12));        // 8000 / 20000
  BOOST_TEST(r.con == 0.4, boost::test_tools::tolerance(1e-12));         // (2 + 2) / 10
  BOOST_TEST(r.nowait == 0.6, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(r.spin == 0.2, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(r.reject == 0.2, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(r.nowait + r.spin + r.reject == 1.0, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(r.hold_mean_ns == 1000.0);
  BOOST_TEST(r.hold_max_ns == 1000.0);
  BOOST_TEST(r.wait_mean_ns == 1000.0);  // 8000 / 8
  BOOST_TEST(r.wait_max_ns == 5000.0);
  BOOST_TEST(r.wait_cpu == 0.2, boost::test_tools::tolerance(1e-12));    // 8000 / (20000 x 2)
}

BOOST_AUTO_TEST_CASE(time_stat_and_merge) {
  TimeStat a, b;
  for (auto v : {5, 1, 9}) a.add(std::uint64_t(v));
  b.add(20);
  a.merge(b);
  BOOST_TEST(a.count == 4u);
  BOOST_TEST(a.sum_ns == 35u);
  BOOST_TEST(a.min_ns == 1u);
  BOOST_TEST(a.max_ns == 20u);
  BOOST_TEST(a.mean_ns() == 8.75);
  TimeStat empty;
  BOOST_TEST(empty.min_or_zero() == 0u);
  BOOST_TEST(empty.mean_ns() == 0.0);
}

BOOST_AUTO_TEST_CASE(log2_histogram_buckets) {
  Histogram h;
  BOOST_TEST(h.bucket_of(0) == 0u);
  BOOST_TEST(h.bucket_of(1) == 1u);
  BOOST_TEST(h.bucket_of(2) == 2u);
  BOOST_TEST(h.bucket_of(3) == 2u);
  BOOST_TEST(h.bucket_of(4) == 3u);
  BOOST_TEST(h.bucket_of(1023) == 10u);
  BOOST_TEST(h.bucket_of(1024) == 11u);
  BOOST_TEST(h.lower_ns(11) == 1024u);
  BOOST_TEST(h.upper_ns(11) == 2048u);
  for (auto v : {0, 1, 3, 3, 1000}) h.add(std::uint64_t(v));
  BOOST_TEST(h.samples == 5u);
  BOOST_TEST(h.sum_ns == 1007u);
  BOOST_TEST(h.overflow == 0u);
  BOOST_TEST(h.counts[2] == 2u);
  BOOST_TEST(h.quantile_upper_ns(0.5) == 4u);    // the third sample is in [2, 4)
  BOOST_TEST(h.quantile_upper_ns(1.0) == 1024u);
}

BOOST_AUTO_TEST_CASE(linear_histogram_overflow_and_merge) {
  HistSpec spec;
  spec.mode = HistSpec::Mode::kLinear;
  spec.width_ns = 128;
  spec.buckets = 4;  // [0,128) [128,256) [256,384) [384,512), then overflow
  Histogram h(spec), g(spec);
  for (auto v : {0, 127, 128, 511, 512, 100000}) h.add(std::uint64_t(v));
  BOOST_TEST(h.counts[0] == 2u);
  BOOST_TEST(h.counts[1] == 1u);
  BOOST_TEST(h.counts[3] == 1u);
  BOOST_TEST(h.overflow == 2u);
  BOOST_TEST(h.samples == 6u);
  BOOST_TEST(h.sum_ns == 0u + 127 + 128 + 511 + 512 + 100000);
  BOOST_TEST(h.quantile_upper_ns(0.99) == std::numeric_limits<std::uint64_t>::max());
  g.add(300);
  g.merge(h);
  BOOST_TEST(g.samples == 7u);
  BOOST_TEST(g.counts[2] == 1u);
  BOOST_TEST(g.overflow == 2u);
}

BOOST_AUTO_TEST_CASE(sample_mean_and_stddev) {
  Sample s{{2, 4, 4, 4, 5, 5, 7, 9}};
  BOOST_TEST(s.mean() == 5.0);
  BOOST_TEST(s.stddev() == std::sqrt(32.0 / 7.0), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(Sample{{3}}.stddev() == 0.0);
}

// Reference values from an independent implementation (the regularized
// incomplete beta by continued fraction, Numerical Recipes 6.4).
BOOST_AUTO_TEST_CASE(welch_t_test_by_hand) {
  WelchResult w = welch_test(Sample{{1, 2, 3, 4, 5}}, Sample{{2, 4, 6, 8, 10}});
  BOOST_TEST(w.valid);
  BOOST_TEST(w.t == -1.8973665961010275, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(w.df == 5.882352941176471, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(w.p == 0.10753119493062714, boost::test_tools::tolerance(1e-6));
  w = welch_test(Sample{{57853.762, 58000.1, 56900.3, 59010.0, 57500.5}},
                 Sample{{55664.287, 51000.0, 60100.2, 54000.9, 56800.0}});
  BOOST_TEST(w.t == 1.5140418512663456, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(w.p == 0.1979015310365873, boost::test_tools::tolerance(1e-6));
  w = welch_test(Sample{{10.0, 10.1, 9.9, 10.2, 9.8, 10.0}},
                 Sample{{11.0, 11.1, 10.9, 11.2, 10.8, 11.0}});
  BOOST_TEST(w.p == 2.4106242088140094e-07, boost::test_tools::tolerance(1e-4));
  BOOST_TEST(!welch_test(Sample{{1}}, Sample{{1, 2}}).valid);
  w = welch_test(Sample{{3, 3}}, Sample{{3, 3}});
  BOOST_TEST(w.p == 1.0);
  w = welch_test(Sample{{3, 3}}, Sample{{4, 4}});
  BOOST_TEST(w.p == 0.0);
  // Sums that overflow give no test, not NaN degrees of freedom (which made
  // Boost.Math throw): figures near the largest double.
  BOOST_TEST(!welch_test(Sample{{1.7e308, 1.6e308}}, Sample{{1.69e308, 1.5e308}}).valid);
}

// Files no rwstress wrote, each one line and exit 2, never an abort.
BOOST_AUTO_TEST_CASE(binary_compare_refuses_hostile_files) {
  const std::string base = "/tmp/rwstress_hostile_" + std::to_string(getpid());
  test::ProcessResult r = test::run_rwstress("--lock ticket --threads 2 --duration 100ms --repeat 2 "
                                             "--seed 1 --json " + base + "-ok.json");
  BOOST_REQUIRE(r.exit_code == 0);
  const std::string ok = test::slurp(base + "-ok.json");
  // The first `from` (within the runs, for keys the config has too).
  auto variant = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string text = ok;
    const bool in_runs = from == "\"duration_s\": " || from == "\"repeat\": ";
    const auto at = text.find(from, in_runs ? text.find("\"runs\"") : 0);
    BOOST_REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(base + name) << text;
    return base + name;
  };
  const std::vector<std::string> hostile = {
      variant("-e999.json", "\"ops_per_s\": ", "\"ops_per_s\": 1e999, \"x\": "),
      variant("-huge.json", "\"ops_per_s\": ", "\"ops_per_s\": 1.7e308, \"x\": "),
      variant("-schema.json", "\"schema\": 1", "\"schema\": 4294967297"),
      variant("-type.json", "\"reads\": ", "\"reads\": \"many\", \"x\": "),
      // Figures no run has: they made 6.1e19 reads/s, or made rows vanish.
      variant("-reads.json", "\"reads\": ", "\"reads\": 18446744073709551615, \"x\": "),
      variant("-dur0.json", "\"duration_s\": ", "\"duration_s\": 0, \"x\": "),
      variant("-durneg.json", "\"duration_s\": ", "\"duration_s\": -1, \"x\": "),
      variant("-repeat.json", "\"repeat\": ", "\"repeat\": -5, \"x\": "),
      variant("-repeat2.json", "\"repeat\": ", "\"repeat\": 1e300, \"x\": "),
      variant("-kind.json", "\"kind\": \"run\"", "\"kind\": \"bogus\""),
      "/tmp",
      base + "-missing.json",
  };
  for (const std::string& bad : hostile) {
    r = test::run_rwstress("compare " + base + "-ok.json " + bad);
    BOOST_TEST(r.exit_code == 2, bad << ": " << r.err);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, bad << ": " << r.err);
    std::remove(bad.c_str());
  }
  // A run that did not PASS is left out of the means, and the table says so.
  const std::string failed = variant("-fail.json", "\"verdict\": \"PASS\"", "\"verdict\": \"FAIL\"");
  r = test::run_rwstress("compare " + base + "-ok.json " + failed);
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(r.out.find("Left out of B's means (they did not PASS a full run): 1 FAIL run") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("[A: 2 runs, B: 1 runs]") != std::string::npos, r.out);
  std::remove(failed.c_str());
  // What a SIGKILL leaves ("complete": false) is compared, and said.
  BOOST_TEST(r.out.find("incomplete") == std::string::npos, r.out);
  const std::string killed = variant("-killed.json", "\"complete\": true", "\"complete\": false");
  r = test::run_rwstress("compare " + base + "-ok.json " + killed);
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(r.out.find(killed + " is incomplete (\"complete\": false)") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("missing from B's side") != std::string::npos, r.out);
  std::remove(killed.c_str());
  std::remove((base + "-ok.json").c_str());
}

BOOST_AUTO_TEST_CASE(golden_lockstat_table) {
  check_golden("lockstat.txt", joined(lockstat_table(sample_runs())));
}

// The console table and the JSON document, byte for byte (the version
// string is masked: it changes with every release, the layout must not).
BOOST_AUTO_TEST_CASE(golden_console_table) {
  std::vector<RunResult> runs = sample_runs();
  runs[1].violations_by_kind[int(ViolationKind::kWriterExclusion)] = 1;
  RunResult starved = runs[0];
  starved.lock = "aa-rwsem-fair";
  starved.verdict = Verdict::kStarved;
  starved.starved = {"thread 2 (writer): 1 ops, 0.05% of the mean per thread; on a CPU 40%, in a "
                     "run queue 2% of its 0.50s"};
  starved.starved_judged = 1;  // the line the verdict rests on: '!'
  starved.notes = {"readers never overlapped: the lock serialised them"};
  RunResult hung = runs[1];
  hung.lock = "sem-i386";
  hung.family = Family::kSemaphore;
  hung.count = 2;
  hung.writers = 4;
  hung.verdict = Verdict::kHang;
  hung.violation_count = 0;
  hung.first_violations.clear();
  hung.hang_report = {"thread 0 (cpu 0): lock/down for 10.00s, 12 ops done",
                      "thread 1 (cpu 1): holding for 10.00s, 40 ops done"};
  hung.stuck_threads = 1;
  runs.push_back(starved);
  runs.push_back(hung);
  std::string text = console_header() + "\n";
  for (const RunResult& r : runs) {
    text += console_row(r) + "\n";
    for (const std::string& line : console_details(r, true)) text += line + "\n";
  }
  check_golden("console.txt", text);
}

BOOST_AUTO_TEST_CASE(golden_json_document) {
  std::string text = json_report_text(sample_report());
  const std::string version = std::string("\"") + kVersion + "\"";
  for (std::size_t at; (at = text.find(version)) != std::string::npos;)
    text.replace(at, version.size(), "\"VERSION\"");
  check_golden("report.json", text);
  // The session's pieces give the same bytes as the whole document.
  const Report report = sample_report();
  std::string pieces = json_head(report);
  for (std::size_t i = 0; i < report.runs.size(); ++i) pieces += json_run(report.runs[i], i == 0);
  pieces += json_tail(report, true);
  BOOST_TEST((pieces == json_report_text(report)));
  BOOST_TEST(nlohmann::json::parse(pieces)["runs"].size() == 2u);
}

// A child process hands its RunResult back as the run's JSON object (the
// crash isolation of plugin locks): read back, it is the same run, every
// field that a report prints; a text that is not one is an error line,
// never an exception.
BOOST_AUTO_TEST_CASE(a_run_read_back_from_its_json_writes_the_same_json) {
  std::vector<RunResult> runs = sample_runs();
  RunResult& b = runs[1];
  ThreadResult t;
  t.role = Role::kHolder;
  t.cpu = 1;
  t.ops = 4000;
  t.trylock_attempts = 7;
  t.trylock_failures = 3;
  t.wall_s = 0.5;
  t.on_cpu_s = 0.25;
  t.runq_wait_s = 0.125;
  b.threads = {t, t};
  b.violations_by_kind[int(ViolationKind::kWriterExclusion)] = 1;
  b.violations_by_kind[int(ViolationKind::kLockWarning)] = 9;
  b.first_violations.push_back({ViolationKind::kLockWarning, kProbeThread, "x.c:12: WARN_ON(1)"});
  b.injections = {{"delay@in-cs:p=0.1,fixed(1us)", "in-cs", 12, 100}, {"stutter", "timer", 3, 0}};
  b.schedule_digest = 0xdeadbeef12345678ull;
  b.starved = {"thread 1 (holder): 3 ops"};
  b.starved_by_cause[2] = 1;
  b.notes = {"a note"};
  b.hang_report = {"thread 0: in lock for 2.0s"};
  b.stuck_threads = 1;
  b.checked = false;
  b.stopped_at_violation = true;
  b.interrupted = true;
  b.cpus_busy_s = 1.5;
  b.others_share = 0.25;
  b.verdict = Verdict::kHang;
  for (const RunResult& r : runs) {
    const std::string text = run_to_json_text(r);
    RunResult back;
    BOOST_TEST(run_from_json_text(text, back).empty());
    BOOST_TEST(run_to_json_text(back) == text);
    BOOST_TEST((back.verdict == r.verdict));
    BOOST_TEST(back.lockstat.write.hold_hist.counts == r.lockstat.write.hold_hist.counts);
    BOOST_TEST(back.threads.size() == r.threads.size());
  }
  RunResult out;
  for (const char* bad : {"", "{", "{}", "[1]", R"({"scenario": 3})"})
    BOOST_TEST(!run_from_json_text(bad, out).empty(), bad);
  std::string wrong = run_to_json_text(b);
  wrong.replace(wrong.find("\"HANG\""), 6, "\"MAYBE\"");
  BOOST_TEST(run_from_json_text(wrong, out).find("unknown verdict 'MAYBE'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(golden_histograms_side_by_side) {
  check_golden("hist-log2.txt", joined(histogram_text(sample_runs(), true, 20)));
  HistSpec spec;
  spec.mode = HistSpec::Mode::kLinear;
  spec.width_ns = 128;
  spec.buckets = 8;
  auto runs = sample_runs();
  runs[0].lockstat.read = role(3, 1, 1, {100, 200, 300, 4000}, {0}, spec);
  runs[0].lockstat.write = role(1, 1, 0, {1000, 130}, {0}, spec);
  runs[1].lockstat.write = role(2, 2, 0, {64, 64, 128, 70000}, {1}, spec);
  check_golden("hist-linear.txt", joined(histogram_text(runs, true, 20)));
}

BOOST_AUTO_TEST_CASE(golden_csv) {
  const std::string text = csv_report_text(sample_report());
  check_golden("report.csv", text);
  // Every row has as many fields as the header.
  std::istringstream in(text);
  std::string header, row;
  std::getline(in, header);
  const auto fields = std::count(header.begin(), header.end(), ',');
  while (std::getline(in, row)) BOOST_TEST(std::count(row.begin(), row.end(), ',') == fields);
  BOOST_TEST(csv_field("a,b") == "\"a,b\"");
  BOOST_TEST(csv_field("say \"x\"") == "\"say \"\"x\"\"\"");
}

BOOST_AUTO_TEST_CASE(golden_junit) {
  const std::string text = junit_report_text(sample_report());
  check_golden("report.junit.xml", text);
  BOOST_TEST(text.find("<failure message=\"1 invariant violations\" type=\"FAIL\">") !=
             std::string::npos);
  BOOST_TEST(text.find("&lt;inside&gt; &amp; out") != std::string::npos);
  BOOST_TEST(xml_escape("a\x01<") == "a?&lt;");
}

BOOST_AUTO_TEST_CASE(golden_sweep_table) {
  std::vector<RunResult> runs;
  auto point = [&](const char* lock, int cpus, double ops, bool over = false) {
    RunResult r;
    r.lock = lock;
    r.family = Family::kMutex;
    r.writers = cpus;
    r.cpus = {0};
    r.duration_s = 1;
    r.writes = std::uint64_t(ops);
    r.placement = "compact";
    r.sweep_cpus = cpus;
    r.oversubscribed = over;
    r.voluntary_csw = std::uint64_t(cpus * 100);
    runs.push_back(r);
  };
  point("bkl", 1, 1e6);
  point("bkl", 2, 1.5e6);
  point("bkl", 4, 1.2e6, true);
  point("sem-mutex", 1, 2e6);
  point("sem-mutex", 2, 1e6);
  point("sem-mutex", 4, 0.5e6, true);
  check_golden("sweep.txt", joined(sweep_tables(runs, {"bkl", "sem-mutex"}, {1, 2, 4, 8},
                                                {"compact"}, {{"compact", 8, "too many"}})));
  check_golden("bkl.txt", joined(bkl_table(runs)));
}

BOOST_AUTO_TEST_CASE(golden_rwsem_test_table) {
  std::vector<RunResult> runs;
  for (const char* lock : {"aa-rwsem", "xadd"})
    for (const RwsemTest& t : rwsem_tests())
      for (const char* sched : {"no", "yes"})
        for (int rep = 0; rep < 2; ++rep) {
          RunResult r;
          r.lock = lock;
          r.label = fmt::format("{} {}", t.name, sched);
          r.readers = t.readers;
          r.writers = t.writers;
          r.reads = t.readers ? std::uint64_t(1000 * t.readers + rep) : 0;
          r.writes = t.writers ? std::uint64_t(100 * t.writers + rep) : 0;
          runs.push_back(r);
        }
  check_golden("rwsem-test.txt", joined(rwsem_test_table(runs, {"aa-rwsem", "xadd"}, 2)));
}

BOOST_AUTO_TEST_CASE(compare_ignores_named_key_parts) {
  const std::string key = "xadd 4R+2W sched=no cpus=2 cs=0/0 delay=0 xadd-wake=unfair";
  BOOST_TEST(scenario_key_without(key, {}) == key);
  BOOST_TEST(scenario_key_without(key, {"xadd-wake"}) == "xadd 4R+2W sched=no cpus=2 cs=0/0 delay=0");
  BOOST_TEST(scenario_key_without(key, {"lock", "cs"}) == "4R+2W sched=no cpus=2 delay=0 xadd-wake=unfair");
}

BOOST_AUTO_TEST_CASE(golden_compare_table) {
  CompareSide a, b;
  a.path = "with.json";
  b.path = "without.json";
  a.order = {"jmp_test", "only_a"};
  b.order = {"jmp_test", "only_b"};
  a.figures["jmp_test"] = {{"ops/s", Sample{{57853.762, 58000.1, 56900.3, 59010.0, 57500.5}}},
                           {"csw/op", Sample{{1, 1}}}};
  b.figures["jmp_test"] = {{"ops/s", Sample{{55664.287, 51000.0, 60100.2, 54000.9, 56800.0}}},
                           {"csw/op", Sample{{2, 2}}}};
  a.figures["only_a"] = {{"ops/s", Sample{{1}}}};
  b.figures["only_b"] = {{"ops/s", Sample{{1}}}};
  a.runs = {{"jmp_test", 5}, {"only_a", 1}};
  b.runs = {{"jmp_test", 5}, {"only_b", 1}};
  const std::string text = joined(compare_table(a, b, 0.05));
  check_golden("compare.txt", text);
  BOOST_TEST(text.find("only in A: only_a (1 runs)") != std::string::npos);
  BOOST_TEST(text.find("only in B: only_b (1 runs)") != std::string::npos);
}

// Two readings back to back measure nothing: with the reading cost taken
// off, the interval must come out near zero, where the raw difference is the
// cost itself.
BOOST_AUTO_TEST_CASE(clock_overhead_is_subtracted) {
  const ClockCalibration& cal = CycleClock::calibrate();
  BOOST_TEST(cal.ns_per_tick > 0);
  BOOST_TEST(cal.overhead_ticks > 0);
  RoleStat again;
  again.wait_hist = Histogram();
  MeasureSpec m;
  m.hist_wait = true;
  LockStatRecorder rec(again, cal, m, false);
  for (int i = 0; i < 10001; ++i) {
    rec.request();
    rec.acquired();
  }
  std::uint64_t small = 0;
  for (std::size_t i = 0; i < again.wait_hist.counts.size(); ++i)
    if (again.wait_hist.upper_ns(i) <= std::uint64_t(cal.overhead_ns() / 2 + 1))
      small += again.wait_hist.counts[i];
  BOOST_TEST(small * 2 > again.wait_hist.samples, small << " of " << again.wait_hist.samples
                                                         << " under half of "
                                                         << cal.overhead_ns() << " ns");
}

// --acq-writer-lim: a write acquisition that waited past the limit is
// counted with the longest such wait; one at once is not, and a read
// acquisition is never (the limit is the writers').
BOOST_AUTO_TEST_CASE(acquisitions_past_the_writer_limit_are_counted) {
  const ClockCalibration& cal = CycleClock::calibrate();
  MeasureSpec m;
  m.acq_writer_limit_ns = 1'000'000;
  BOOST_TEST(m.any());  // (the instrumented loop records it)
  RoleStat write, read;
  LockStatRecorder writer(write, cal, m, true), reader(read, cal, m, false);
  for (LockStatRecorder* rec : {&writer, &reader}) {
    rec->request();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    rec->acquired();
    rec->request();
    rec->acquired();
  }
  BOOST_TEST(write.acquired == 2u);
  BOOST_TEST(write.over_limit == 1u);
  BOOST_TEST(write.over_limit_max_ns >= 5'000'000u);
  BOOST_TEST(read.acquired == 2u);
  BOOST_TEST(read.over_limit == 0u);
  RoleStat both = write;
  both.merge(write);
  BOOST_TEST(both.over_limit == 2u);
  BOOST_TEST(both.over_limit_max_ns == write.over_limit_max_ns);
}

// A lock held for a known busy time reports that hold time. One thread,
// --no-check, a long critical-section work: each pass is then the hold plus
// a fixed ~100-300 ns (fast path, loop, the recorder itself), so the wall
// time per pass bounds the hold from above and, less that fixed part, from
// below. (Timing the work loop on its own elsewhere would time other code:
// the same empty loop runs at different speeds in different functions.)
BOOST_AUTO_TEST_CASE(known_busy_hold_is_reported) {
  Topology topo = Topology::load_system();
  const LockEntry* e = find_lock("ticket");
  BOOST_REQUIRE(e);
  Scenario sc = test::short_scenario(topo, 0, 1, std::chrono::milliseconds(300));
  sc.family = Family::kMutex;
  sc.cs_write_loops = 20000;
  sc.check = false;
  sc.measure.lockstat = true;
  RunResult r = e->run_instrumented(sc, e->meta);
  BOOST_TEST(r.verdict == Verdict::kPass);
  BOOST_REQUIRE(r.measured);
  const RoleStat& w = r.lockstat.write;
  BOOST_REQUIRE(w.acquired > 100u);
  const double per_pass = r.duration_s * 1e9 / double(r.writes);
  // The pass that straddles the stop flag is counted but its tail lies past
  // the run's end; preempted inside its hold (tests run in parallel), that
  // one hold alone can lift the mean above the pass (a parallel test run
  // saw 12863 ns against 11934 ns). So the longest hold is left out. The
  // hold is read on the calibrated TSC and the pass on CLOCK_MONOTONIC: they
  // agree to the calibration's error (CI saw 0.03%), and 1% is allowed.
  auto mean_but_longest = [](const TimeStat& t) {
    return double(t.sum_ns - t.max_ns) / double(t.count - 1);
  };
  const double hold = mean_but_longest(w.hold);
  BOOST_TEST(hold < per_pass * 1.01, "hold " << hold << " ns, pass " << per_pass << " ns");
  // A preemption outside the hold lengthens the pass only; the bound below
  // leaves room for a few milliseconds of them.
  BOOST_TEST(hold > per_pass * 0.9 - 400, "hold " << hold << " ns, pass " << per_pass << " ns");
  // Uncontended, a wait is the fast path's few instructions; a preemption
  // between the request and the acquisition lengthens one (a loaded
  // 2-vCPU machine saw a mean of 306 ns): at most a tenth of the hold.
  BOOST_TEST(mean_but_longest(w.wait) < hold / 10,
             "wait " << mean_but_longest(w.wait) << " ns, hold " << hold << " ns");
  // Uncontended: almost every request was taken at once.
  BOOST_TEST(w.nowait * 10 > w.requests * 9);
}

BOOST_AUTO_TEST_CASE(placement_smt_takes_one_thread_per_core_first) {
  Topology topo = Topology::synthetic("pack:1 core:3 pu:2");
  std::vector<int> compact = topo.placement_order(Placement::kCompact);
  std::vector<int> smt = topo.placement_order(Placement::kSmt);
  BOOST_TEST(compact == (std::vector<int>{0, 1, 2, 3, 4, 5}), boost::test_tools::per_element());
  BOOST_TEST(smt == (std::vector<int>{0, 2, 4, 1, 3, 5}), boost::test_tools::per_element());
  BOOST_TEST(std::string(placement_name(Placement::kSmt)) == "smt");
}

// ---- The binary, end to end -------------------------------------------

BOOST_AUTO_TEST_CASE(binary_lockstat_and_hist) {
  test::ProcessResult r = test::run_rwstress(
      "--lock ticket,xadd --threads 2 --readers 1 --writers 1 --duration 200ms --seed 3 "
      "--lockstat --hist hold,wait");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  for (const char* s : {"measuring clock:", "UTIL", "CON", "MEAN(", "% CPU", "TOTAL", "NOWAIT",
                        "SPIN", "RJECT", "*TOTAL*", "holdtime-avg", "HOLD TIME HISTOGRAM",
                        "WAIT TIME HISTOGRAM", "overflow", "sum (ns)", "ticket", "xadd read"})
    BOOST_TEST(r.out.find(s) != std::string::npos, s);
}

BOOST_AUTO_TEST_CASE(binary_bad_measurement_input_is_one_line) {
  for (const char* args :
       {"--hist foo", "--hist-bucket 0ns --hist hold", "--hist-bucket banana --hist hold",
        "--hist-buckets 0 --hist hold", "--hist-bucket 128ns", "--repeat 0", "--placement diagonal",
        "sweep --cpus 0", "sweep --cpus 3..1", "sweep --cpus 1,x", "sweep --placements row",
        "sweep --cpus 2048 --readers 4",
        "--cpus 1 sweep --cpus 1", "suite nope", "compare /nonexistent/a.json /nonexistent/b.json"}) {
    test::ProcessResult r = test::run_rwstress(args);
    BOOST_TEST(r.exit_code == 2, args << ": " << r.out << r.err);
    BOOST_TEST(r.err.rfind("rwstress: error: ", 0) == 0u, args << ": " << r.err);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, args << ": " << r.err);
  }
}

// --no-check runs no checker, so it must not claim readers never overlapped.
// (pthread-rwlock, not xadd: xadd's writer at 2R+1W for 100 ms is falsely
// STARVED in about 1 run in 40-80, an open finding of docs/checkers.md
// that this test is not about.)
BOOST_AUTO_TEST_CASE(binary_no_check_makes_no_overlap_claim) {
  test::ProcessResult r = test::run_rwstress(
      "--lock pthread-rwlock --readers 2 --writers 1 --no-check --duration 100ms --seed 1");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  BOOST_TEST(r.out.find("readers never overlapped") == std::string::npos, r.out);
  BOOST_TEST(r.out.find("--no-check") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(binary_sweep_prints_scaling_and_linear) {
  test::ProcessResult r =
      test::run_rwstress("sweep --cpus 1,2,512 --lock ticket,tas --duration 100ms --seed 1");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  for (const char* s : {"SWEEP ticket (compact placement)", "SCALING", "LINEAR", "OF LIN.",
                        "side by side", "512  skipped: this process may use"})
    BOOST_TEST(r.out.find(s) != std::string::npos, s);
  r = test::run_rwstress(
      "sweep --cpus 1,512 --beyond oversubscribe --lock ticket --duration 100ms --seed 1");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  BOOST_TEST(r.out.find("512*") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("oversubscribed (--beyond oversubscribe)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(binary_repeat_compare_and_files) {
  const std::string base = "/tmp/rwstress_reports_" + std::to_string(getpid());
  test::ProcessResult r = test::run_rwstress(
      "--lock ticket --threads 2 --duration 100ms --repeat 3 --seed 1 --json " + base +
      "-a.json --csv " + base + ".csv --junit " + base + ".xml");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  BOOST_TEST(r.out.find("#3") != std::string::npos);
  r = test::run_rwstress("--lock ticket,tas --threads 2 --duration 100ms --repeat 3 --seed 2 "
                         "--lockstat --json " + base + "-b.json");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  nlohmann::json a = nlohmann::json::parse(test::slurp(base + "-a.json"));
  BOOST_TEST(a["runs"].size() == 3u);
  BOOST_TEST(a["runs"][2]["repeat"] == 2);
  BOOST_TEST(a["runs"][0]["seed"] != a["runs"][1]["seed"]);
  nlohmann::json b = nlohmann::json::parse(test::slurp(base + "-b.json"));
  BOOST_TEST(b["runs"][0]["lockstat"]["write"]["requests"].get<std::uint64_t>() > 0u);
  const std::string csv = test::slurp(base + ".csv");
  BOOST_TEST(std::count(csv.begin(), csv.end(), '\n') == 4);
  BOOST_TEST(test::slurp(base + ".xml").find("<testsuites") != std::string::npos);

  r = test::run_rwstress("compare " + base + "-a.json " + base + "-b.json");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  for (const char* s : {"Welch", "ticket 2T", "ops/s", "[A: 3 runs, B: 3 runs]",
                        "only in B: tas 2T"})
    BOOST_TEST(r.out.find(s) != std::string::npos, s);

  std::ofstream(base + "-bad.json") << "{\"schema\": 1, \"runs\": [";
  r = test::run_rwstress("compare " + base + "-a.json " + base + "-bad.json");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.err.find("is not JSON") != std::string::npos, r.err);
  std::ofstream(base + "-bad.json") << "{\"schema\": 9, \"runs\": []}";
  r = test::run_rwstress("compare " + base + "-a.json " + base + "-bad.json");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.err.find("schema 9") != std::string::npos, r.err);
  for (const char* suffix : {"-a.json", "-b.json", ".csv", ".xml", "-bad.json"})
    std::remove((base + suffix).c_str());
}

BOOST_AUTO_TEST_CASE(binary_plots_or_a_note) {
  const std::string base = "/tmp/rwstress_plot_" + std::to_string(getpid());
  test::ProcessResult r = test::run_rwstress(
      "--lock ticket --threads 2 --duration 100ms --seed 1 --hist hold --plot " + base,
      "RWSTRESS_GNUPLOT=/nonexistent/gnuplot ");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  BOOST_TEST(r.out.find("note: gnuplot is not installed") != std::string::npos, r.out);
  BOOST_TEST(!test::slurp(base + "-hold.dat").empty());
  BOOST_TEST(!test::slurp(base + "-hold.gp").empty());
  if (!find_gnuplot().empty()) {
    r = test::run_rwstress("--lock ticket --threads 2 --duration 100ms --seed 1 --hist hold "
                           "--plot " + base);
    BOOST_TEST(r.exit_code == 0, r.out << r.err);
    BOOST_TEST(r.out.find("plot written to") != std::string::npos, r.out);
    BOOST_TEST(test::slurp(base + "-hold.svg").find("<svg") != std::string::npos);
    BOOST_TEST(test::slurp(base + "-hold.png").rfind("\x89PNG", 0) == 0u);
  }
  for (const char* suffix : {"-hold.dat", "-hold.gp", "-hold.svg", "-hold.png"})
    std::remove((base + suffix).c_str());
}

// The 2001 benchmark's ratios beside this run's, by hand: xadd rws-rw
// 1121547 reads / 563293 writes = 1.99; rws-ro 12631226 / rws-r1 30330431
// = 0.42. Here: 300/100 = 3.00 and 800/400 = 2.00.
BOOST_AUTO_TEST_CASE(rwsem_test_history_ratios_by_hand) {
  auto run = [](const char* label, std::uint64_t reads, std::uint64_t writes) {
    RunResult r;
    r.lock = "xadd";
    r.label = label;
    r.reads = reads;
    r.writes = writes;
    r.duration_s = 1;
    return r;
  };
  const std::vector<RunResult> runs = {run("rws-rw no", 300, 100), run("rws-ro no", 800, 0),
                                       run("rws-r1 no", 400, 0)};
  const std::vector<std::string> lines = rwsem_test_history(runs);
  auto row = [&](const std::string& test) {
    for (const std::string& l : lines)
      if (l.find(test) != std::string::npos && l.find(" no ") != std::string::npos) return l;
    return std::string();
  };
  BOOST_TEST(row("rws-rw").find("1.99") != std::string::npos, row("rws-rw"));
  BOOST_TEST(row("rws-rw").find("3.00") != std::string::npos, row("rws-rw"));
  BOOST_TEST(row("rws-ro").find("0.42") != std::string::npos, row("rws-ro"));
  BOOST_TEST(row("rws-ro").find("2.00") != std::string::npos, row("rws-ro"));
  BOOST_TEST(row("rws-wo").empty());  // not run here: no line
}
