// The reports stand on the model and the configuration alone: this test
// links rwstress_report and the layers under it, not the runners, the
// registry or the injection runtime (CMakeLists.txt, meson.build). A
// reporter that reached into those would make this file fail to link.
// It drives every file reporter through make_reporters() over a made-up
// run, so that each reporter's object file is linked, and checks what they
// write.
#define BOOST_TEST_MODULE report_alone
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/run_config.h"
#include "model/verdict.h"
#include "report/report.h"
#include "report/reporter.h"

namespace rwstress {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RunResult made_up_run() {
  RunResult r;
  r.lock = "made-up";
  r.fairness = Fairness::kTaskFair;
  r.readers = 2;
  r.writers = 1;
  r.duration_s = 1;
  for (auto [role, ops] : {std::pair{Role::kReader, 1000u}, {Role::kReader, 1000u},
                           std::pair{Role::kWriter, 500u}}) {
    ThreadResult t;
    t.role = role;
    t.ops = ops;
    t.wall_s = 1;
    r.threads.push_back(t);
  }
  summarize_run(r);
  return r;
}

BOOST_AUTO_TEST_CASE(every_reporter_writes_a_run_without_the_runners) {
  const std::string dir = std::string(P_tmpdir) + "/rwstress-report-alone-" +
                          std::to_string(getpid());
  BOOST_REQUIRE(system(("mkdir -p " + dir).c_str()) == 0);
  const LockMeta meta{.name = "made-up",
                      .family = Family::kRwlock,
                      .fairness = Fairness::kTaskFair,
                      .origin = "a made-up lock",
                      .caps = {},
                      .busted = false};
  Report report;
  report.config.locks = {&meta};
  report.config.json_path = dir + "/r.json";
  report.config.csv_path = dir + "/r.csv";
  report.config.junit_path = dir + "/r.xml";
  report.config.plot_prefix = dir + "/p";  // no --hist: it plots nothing
  report.host_summary = "made-up host";
  std::vector<std::string> printed;
  auto reporters =
      make_reporters(report.config, [&](const std::string& line) { printed.push_back(line); });
  BOOST_REQUIRE(reporters.size() == 5u);  // json, csv, junit, plot, console
  for (auto& r : reporters) BOOST_TEST(r->open(report) == "");
  const RunResult run = made_up_run();
  BOOST_TEST(run.verdict == Verdict::kPass);
  report.count(run);
  for (auto& r : reporters) r->add(report, run);
  for (auto& r : reporters) r->finish(report, [&](const std::string& l) { printed.push_back(l); });

  const auto json = nlohmann::json::parse(slurp(report.config.json_path));
  BOOST_TEST(json["runs"].size() == 1u);
  BOOST_TEST(json["runs"][0]["lock"] == "made-up");
  BOOST_TEST(slurp(report.config.csv_path).find("made-up") != std::string::npos);
  BOOST_TEST(slurp(report.config.junit_path).find("made-up") != std::string::npos);
  bool row = false;
  for (const auto& l : printed) row |= l.rfind("made-up", 0) == 0 && l.ends_with("PASS");
  BOOST_TEST(row);
  BOOST_TEST(console_lock_list({&meta}).find("made-up") != std::string::npos);
  BOOST_REQUIRE(system(("rm -rf " + dir).c_str()) == 0);
}

}  // namespace
}  // namespace rwstress
