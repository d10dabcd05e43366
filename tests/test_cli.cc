// Command-line parsing, bad input (one line, exit 2), and the binary end to
// end as a user runs it.
#define BOOST_TEST_MODULE test_cli
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "commands/explore.h"
#include "commands/kernel.h"
#include "commands/validate.h"
#include "injectors/inject_spec.h"
#include "registry/registry.h"
#include "tests/test_support.h"

using namespace rwstress;
using namespace std::chrono_literals;

namespace {

CliOutcome parse(std::vector<std::string> args) { return parse_cli(args); }

std::size_t correct_locks(Family family) {
  return std::count_if(lock_registry().begin(), lock_registry().end(), [&](const LockEntry& e) {
    return e.meta.family == family && !e.meta.busted;
  });
}

std::size_t busted_locks() {
  return std::count_if(lock_registry().begin(), lock_registry().end(),
                       [](const LockEntry& e) { return e.meta.busted; });
}

bool one_line_error(const CliOutcome& o) {
  return o.action == CliAction::kExit && o.exit_code == 2 &&
         o.output.rfind("rwstress: error: ", 0) == 0 &&
         o.output.find('\n') == std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(defaults_are_the_2001_rwsem_benchmark_rw_test) {
  CliOutcome o = parse({});
  BOOST_REQUIRE(o.action == CliAction::kRun);
  BOOST_TEST(o.config.readers == 4);
  BOOST_TEST(o.config.writers == 2);
  BOOST_TEST(!o.config.sched);
  BOOST_TEST(o.config.locks.size() == correct_locks(Family::kRwlock));
}

BOOST_AUTO_TEST_CASE(options_parse_into_typed_values) {
  CliOutcome o = parse({"--lock", "xadd,generic-spin", "--readers", "3", "--writers", "1", "--sched",
                        "--duration", "500ms", "--cpus", "0-1", "--placement", "scatter",
                        "--cs-read", "10", "--cs-write", "20", "--delay", "30", "--seed", "0x10",
                        "--watchdog", "3", "--fail-fast", "--verbose"});
  BOOST_REQUIRE(o.action == CliAction::kRun);
  const RunConfig& c = o.config;
  BOOST_TEST(c.locks.size() == 2u);
  BOOST_TEST(c.readers == 3);
  BOOST_TEST(c.sched);
  BOOST_TEST(c.duration == 500ms);
  BOOST_TEST(c.cpus.list == (std::vector<int>{0, 1}), boost::test_tools::per_element());
  BOOST_TEST((c.placement == Placement::kScatter));
  BOOST_TEST(c.cs_read_loops == 10u);
  BOOST_TEST(c.cs_write_loops == 20u);
  BOOST_TEST(c.delay_loops == 30u);
  BOOST_TEST(c.seed == 16u);
  BOOST_TEST(c.watchdog == 3s);
  BOOST_TEST(c.fail_fast);
  BOOST_TEST(c.verbose);
}

BOOST_AUTO_TEST_CASE(unknown_lock_lists_the_valid_names) {
  CliOutcome o = parse({"--lock", "nosuchlock"});
  BOOST_TEST(one_line_error(o), o.output);
  BOOST_TEST(o.output.find("nosuchlock") != std::string::npos);
  BOOST_TEST(o.output.find("xadd") != std::string::npos);
  BOOST_TEST(o.output.find("aa-rwsem") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(lock_groups_select_families) {
  BOOST_TEST(parse({"--lock", "busted"}).config.locks.size() == busted_locks());
  const std::size_t rw = correct_locks(Family::kRwlock), sem = correct_locks(Family::kSemaphore),
                    mtx = correct_locks(Family::kMutex);
  BOOST_TEST(rw > 0u);
  BOOST_TEST(sem > 0u);
  BOOST_TEST(mtx > 0u);
  BOOST_TEST(parse({"--lock", "all"}).config.locks.size() == rw + sem + mtx);
  BOOST_TEST(parse({"--lock", "rwlock,xadd"}).config.locks.size() == rw);  // no duplicates
  BOOST_TEST(parse({"--lock", "semaphore"}).config.locks.size() == sem);
  BOOST_TEST(parse({"--lock", "mutex"}).config.locks.size() == mtx);
}

// Semaphores and mutexes have threads, not readers and writers.
BOOST_AUTO_TEST_CASE(family_thread_options) {
  auto sem = parse({"--lock", "semaphore", "--count", "3", "--threads", "5"});
  BOOST_REQUIRE(sem.action == CliAction::kRun);
  BOOST_TEST(sem.config.count == 3);
  BOOST_TEST(sem.config.threads == 5);
  BOOST_TEST(sem.config.scenario_for(*sem.config.locks[0]).writers == 5);
  BOOST_TEST(sem.config.scenario_for(*sem.config.locks[0]).readers == 0);
  BOOST_TEST(parse({"--lock", "mutex", "--writers", "6"}).config.threads == 6);  // alias
  BOOST_TEST(parse({"--lock", "mutex", "--readers", "2"}).exit_code == 2);
  BOOST_TEST(parse({"--lock", "mutex", "--readers", "2"}).output.find("no shared mode") !=
             std::string::npos);
  BOOST_TEST(parse({"--lock", "xadd", "--threads", "2"}).exit_code == 2);
  BOOST_TEST(parse({"--lock", "ticket", "--count", "2"}).exit_code == 2);
  BOOST_TEST(parse({"--lock", "mutex", "--threads", "2", "--writers", "3"}).exit_code == 2);
  auto tuned = parse({"--lock", "linux-rwsem", "--rwsem-handoff", "off", "--spin-limit", "0"});
  BOOST_REQUIRE(tuned.action == CliAction::kRun);
  BOOST_TEST(!tuned.config.tuning.handoff);
  BOOST_TEST(tuned.config.tuning.spin_limit == 0);
  BOOST_TEST(parse({"--lock", "linux-rwsem", "--rwsem-handoff", "maybe"}).exit_code == 2);
  auto unfair = parse({"--lock", "xadd", "--xadd-wake", "unfair"});
  BOOST_REQUIRE(unfair.action == CliAction::kRun);
  BOOST_TEST(unfair.config.tuning.xadd_unfair_wake);
  BOOST_TEST(parse({"--lock", "xadd", "--xadd-wake", "sometimes"}).exit_code == 2);
}

// --try-every: how often the trylock and downgrade paths run; a power of
// two, carried into the scenario (as a mask), the replay line and the key.
BOOST_AUTO_TEST_CASE(try_every_is_a_power_of_two_and_is_replayed) {
  CliOutcome o = parse({"--lock", "xadd", "--try-every", "2"});
  BOOST_REQUIRE(o.action == CliAction::kRun);
  BOOST_TEST(o.config.try_every == 2u);
  BOOST_TEST(o.config.scenario_for(*o.config.locks[0]).try_mask == 1u);
  BOOST_TEST(o.config.describe({}).find("--try-every 2") != std::string::npos);
  CliOutcome d = parse({"--lock", "xadd"});
  BOOST_REQUIRE(d.action == CliAction::kRun);
  BOOST_TEST(d.config.scenario_for(*d.config.locks[0]).try_mask == 15u);
  BOOST_TEST(d.config.describe({}).find("--try-every") == std::string::npos);
  for (const char* bad : {"3", "0", "131072", "x", "-2"})
    BOOST_TEST(one_line_error(parse({"--lock", "xadd", "--try-every", bad})), bad);
}

// --killable-every: only a lock with killable entry points reads it (a
// kernel-compat plugin that declares RWSTRESS_LOCK_KILLABLE; test_plugins
// runs one); no in-tree lock does, so it is refused with one line.
BOOST_AUTO_TEST_CASE(killable_every_is_refused_where_no_lock_reads_it) {
  CliOutcome o = parse({"--lock", "linux-rwsem", "--killable-every", "2"});
  BOOST_TEST(o.exit_code == 2);
  BOOST_TEST(one_line_error(o));
  BOOST_TEST(o.output.find("--killable-every is read by locks with killable") != std::string::npos, o.output);
  for (const char* bad : {"-1", "x", "1.5", "65537"})
    BOOST_TEST(one_line_error(parse({"--lock", "linux-rwsem", "--killable-every", bad})), bad);
  CliOutcome d = parse({"--lock", "xadd"});
  BOOST_REQUIRE(d.action == CliAction::kRun);
  BOOST_TEST(d.config.scenario_for(*d.config.locks[0]).killable_every == 4);
  BOOST_TEST(d.config.describe({}).find("--killable-every") == std::string::npos);
}

// The replay line quotes a --plugin path the shell would split or expand.
BOOST_AUTO_TEST_CASE(replay_words_are_quoted_where_the_shell_needs_it) {
  BOOST_TEST(shell_word("build/plugins/plain_locks.so") == "build/plugins/plain_locks.so");
  BOOST_TEST(shell_word("/tmp/my locks/x.so") == "'/tmp/my locks/x.so'");
  BOOST_TEST(shell_word("it's.so") == "'it'\\''s.so'");
  BOOST_TEST(shell_word("$HOME/x.so") == "'$HOME/x.so'");
  BOOST_TEST(shell_word("") == "''");
}

BOOST_AUTO_TEST_CASE(bad_counts_are_usage_errors) {
  for (auto args : std::vector<std::vector<std::string>>{
           {"--readers", "-1"},
           {"--writers", "100000"},
           {"--readers", "many"},
           {"--readers", "0", "--writers", "0"},
           {"--readers", "4000", "--writers", "4000"},
           {"--cs-read", "-5"},
           {"--bogus-flag"},
           {"--placement", "diagonal"},
           {"--seed", "0xzz"},
       })
    BOOST_TEST(one_line_error(parse(args)), args[0] << " -> " << parse(args).output);
}

// Nothing a user types is silently ignored: each is applied or refused in
// one line (the second trust pass's list, issue 24 section 5).
BOOST_AUTO_TEST_CASE(options_a_command_does_not_read_are_refused) {
  for (auto args : std::vector<std::vector<std::string>>{
           {"fuzz", "--resume", "/tmp", "--trials", "3"},
           {"fuzz", "--resume", "/tmp", "--lock", "xadd"},
           {"fuzz", "--resume", "/tmp", "--seed", "1"},
           {"fuzz", "--resume", "/tmp", "--out", "x"},
           {"fuzz", "merge", "/tmp", "--trials", "3"},
           {"fuzz", "merge", "/tmp", "--lock", "xadd"},
           {"fuzz", "merge", "/tmp", "--seed", "1"},
           {"fuzz", "merge", "/tmp", "--resume", "/tmp"},
           {"--readers", "3", "fuzz", "--trials", "1"},
           {"--inject", "yield@in-cs", "fuzz", "--trials", "1"},
           {"--duration", "1s", "fuzz", "--trials", "1"},
           {"--readers", "3", "selftest"},
           {"--duration", "1s", "selftest"},
           {"fuzz", "--time", "1s", "--trials", "2"},
           {"fuzz", "--out", "", "--trials", "1"},
           {"fuzz", "--shard", "", "--trials", "1"},
           {"fuzz", "--jobs", "65536", "--trials", "1"},
           {"--readers", "3", "suite", "bkl"},
           {"--cpus", "0", "suite", "rwsem-test"},
           {"--duration", "0", "list"},
           {"list", "--readers", "5"},
           {"--lock", "xadd", "--hist", "hold", "--hist-buckets", "10"},
           {"--no-check", "--fail-fast"},
           {"--lock", "tas", "--xadd-wake", "unfair"},
           {"--no-check", "validate", "--lock", "xadd"},
           {"--repeat", "3", "validate", "--lock", "xadd"},
           {"--inject", "delay@in-cs:exp(1us),exp(2us)"},
           {"--inject", "delay@in-cs:p=0.5,p=0.1"},
           {"--inject", "delay@in-cs:p=0.5,every=2"},
           {"--inject", "yield@in-cs+in-cs"},
           {"--inject", "sleep@in-cs:fixed(5s)"},
       }) {
    const CliOutcome o = parse(args);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    BOOST_TEST(one_line_error(o), shown << "-> " << o.output);
  }
  // What each does read is still taken.
  BOOST_TEST((parse({"--lock", "xadd", "--xadd-wake", "unfair"}).action == CliAction::kRun));
  BOOST_TEST((parse({"--lock", "xadd", "--seed", "1", "fuzz", "--trials", "1"}).action == CliAction::kFuzz));
  BOOST_TEST((parse({"--lock", "xadd", "--watchdog", "5s", "validate"}).action == CliAction::kValidate));
  BOOST_TEST((parse({"--duration", "1s", "suite", "rwsem-test"}).action == CliAction::kSuite));
}

// Messages that name the option the user gave and suggest what it takes.
BOOST_AUTO_TEST_CASE(messages_name_what_was_given_and_what_is_taken) {
  const auto said = [](std::vector<std::string> args) { return parse(args).output; };
  BOOST_TEST(said({"--duration", "1us"}).find("250us") == std::string::npos);
  BOOST_TEST(said({"--duration", "1us"}).find("500ms") != std::string::npos);
  BOOST_TEST(said({"fuzz", "--time", "1ms"}).find("500ms") == std::string::npos);
  BOOST_TEST(said({"--lock", "mutex", "--threads", "1e3"}).find("not a whole number") != std::string::npos);
  BOOST_TEST(said({"--cpus", "0-99999999"}).find("out of range") != std::string::npos);
  BOOST_TEST(said({"--plugin", "", "list"}).find("an empty path") != std::string::npos);
  BOOST_TEST(said({"--help"}).find("4 CRASH") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(durations) {
  std::string err;
  BOOST_TEST(parse_duration("2", &err).value() == 2s);
  BOOST_TEST(parse_duration("2s", &err).value() == 2s);
  BOOST_TEST(parse_duration("1.5s", &err).value() == 1500ms);
  BOOST_TEST(parse_duration("500ms", &err).value() == 500ms);
  BOOST_TEST(parse_duration("2500us", &err).value() == 2500us);
  BOOST_TEST(parse_duration("1m", &err).value() == 60s);
  for (const char* bad : {"", "abc", "2x", "-1", "0", "1.2.3", ".5", "s", "100ns", "2d", "99999999"})
    BOOST_TEST(!parse_duration(bad, &err).has_value(), "accepted '" << bad << "'");
  BOOST_TEST(one_line_error(parse({"--duration", "soon"})));
  BOOST_TEST(one_line_error(parse({"--watchdog", "0"})));
}

// --cpus takes CPU numbers as taskset does ("0" is CPU 0); --ncpus a count.
BOOST_AUTO_TEST_CASE(cpu_specs) {
  std::string err;
  BOOST_TEST(parse_cpu_spec("0", &err)->list == (std::vector<int>{0}),
             boost::test_tools::per_element());
  BOOST_TEST(parse_cpu_spec("4", &err)->list == (std::vector<int>{4}),
             boost::test_tools::per_element());
  BOOST_TEST(parse({"--ncpus", "4"}).config.cpus.count == 4);
  BOOST_TEST(one_line_error(parse({"--ncpus", "0"})));
  BOOST_TEST(one_line_error(parse({"--cpus", "0", "--ncpus", "1"})));
  BOOST_TEST(parse_cpu_spec("0-3,8", &err)->list == (std::vector<int>{0, 1, 2, 3, 8}),
             boost::test_tools::per_element());
  BOOST_TEST(parse_cpu_spec("5,", &err)->list == (std::vector<int>{5}),
             boost::test_tools::per_element());
  BOOST_TEST(parse_cpu_spec("3,1,1-2", &err)->list == (std::vector<int>{1, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(parse_cpu_spec("0-3,8", &err)->describe() == "0-3,8");
  for (const char* bad : {"-1", "3-1", "a", "0,,2", "1-", "-", ",", "99999999", "1-x"})
    BOOST_TEST(!parse_cpu_spec(bad, &err).has_value(), "accepted '" << bad << "'");
  BOOST_TEST(one_line_error(parse({"--cpus", "3-1"})));
}

BOOST_AUTO_TEST_CASE(help_and_version_exit_zero) {
  CliOutcome help = parse({"--help"});
  BOOST_TEST(help.exit_code == 0);
  BOOST_TEST(help.output.find("Examples:") != std::string::npos);
  CliOutcome version = parse({"--version"});
  BOOST_TEST(version.exit_code == 0);
  BOOST_TEST(version.output.find(kVersion) != std::string::npos);
}

// --- the binary, as a user runs it ------------------------------------------

BOOST_AUTO_TEST_CASE(binary_unknown_lock_exits_2_with_one_line) {
  test::ProcessResult r = test::run_rwstress("--lock nosuchlock");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.out.empty());
  BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  BOOST_TEST(r.err.find("valid names") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(binary_rejects_cpus_this_machine_lacks) {
  test::ProcessResult r = test::run_rwstress("--lock xadd --cpus 4096 --duration 100ms");
  BOOST_TEST(r.exit_code == 2);
  // The count form of old gets told what to write now.
  BOOST_TEST(r.err.find("--ncpus 4096") != std::string::npos, r.err);
  r = test::run_rwstress("--lock xadd --cpus 60000-60001 --duration 100ms");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.err.find("CPU 60000") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(binary_unwritable_json_path_fails_before_running) {
  test::ProcessResult r =
      test::run_rwstress("--lock xadd --duration 5s --json /nonexistent-dir/out.json");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.out.find("xadd ") == std::string::npos);  // no run happened
}

BOOST_AUTO_TEST_CASE(binary_out_of_threads_is_one_line_and_exit_2) {
  // 400 threads need 3.2 GB of default 8 MB stacks; 1.5 GB of address space
  // runs out part way, which is what a low ulimit does to a real user.
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer reserves terabytes of address space for its shadow: no
  // ulimit -v leaves it room to start, so this case cannot run under it.
  BOOST_TEST_MESSAGE("skipped under AddressSanitizer (ulimit -v)");
  return;
#endif
  test::ProcessResult r = test::run_rwstress("--lock xadd --readers 400 --writers 1 --duration 100ms",
                                             "ulimit -v 1500000; ");
  BOOST_TEST(r.exit_code == 2);
  BOOST_TEST(r.err.find("could not start worker thread") != std::string::npos, r.err);
  BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

BOOST_AUTO_TEST_CASE(binary_busted_noop_exits_1_and_names_the_violation) {
  test::ProcessResult r =
      test::run_rwstress("--lock busted-noop --readers 2 --writers 2 --duration 300ms");
  BOOST_TEST(r.exit_code == 1);
  BOOST_TEST(r.out.find("FAIL") != std::string::npos);
  BOOST_TEST(r.out.find("exclusion") != std::string::npos);
  BOOST_TEST(r.out.find("-> FAIL") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(binary_pass_run_writes_schema_1_json) {
  std::string path = "/tmp/rwstress_cli_" + std::to_string(getpid()) + ".json";
  test::ProcessResult r = test::run_rwstress(
      "--lock xadd,pthread-rwlock --readers 2 --writers 1 --sched --duration 200ms --seed 7 "
      "--json " + path);
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  BOOST_TEST(r.out.find("--seed 0x7 -> PASS") != std::string::npos);
  nlohmann::json doc = nlohmann::json::parse(test::slurp(path));
  std::remove(path.c_str());
  for (const char* key : {"rwstress_version", "schema", "seed", "config", "host", "runs"})
    BOOST_TEST(doc.contains(key), key);
  BOOST_TEST(doc["schema"] == 1);
  BOOST_TEST(doc["seed"] == 7);
  BOOST_TEST(doc["host"].contains("placement_plan"));
  BOOST_REQUIRE(doc["runs"].size() == 2u);
  const auto& run = doc["runs"][0];
  for (const char* key : {"lock", "family", "readers", "writers", "sched", "cpus", "duration_s",
                          "reads", "writes", "per_thread", "violations", "verdict"})
    BOOST_TEST(run.contains(key), key);
  BOOST_TEST(run["lock"] == "xadd");
  BOOST_TEST(run["verdict"] == "PASS");
  BOOST_TEST(run["per_thread"].size() == 3u);
  BOOST_TEST(run["per_thread"][0].contains("cpu"));
  BOOST_TEST(run["reads"].get<std::uint64_t>() > 0u);
  for (const char* key : {"user_s", "sys_s", "voluntary_csw", "involuntary_csw", "idle_share"})
    BOOST_TEST(run["system"].contains(key), key);
}

// A semaphore run in JSON: its family, count, holder threads and the
// config's thread/count fields.
BOOST_AUTO_TEST_CASE(binary_semaphore_run_json) {
  std::string path = "/tmp/rwstress_cli_sem_" + std::to_string(getpid()) + ".json";
  test::ProcessResult r = test::run_rwstress(
      "--lock kernel-sem --count 3 --threads 4 --duration 200ms --seed 9 --json " + path);
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  nlohmann::json doc = nlohmann::json::parse(test::slurp(path));
  std::remove(path.c_str());
  BOOST_TEST(doc["config"]["threads"] == 4);
  BOOST_TEST(doc["config"]["count"] == 3);
  BOOST_TEST(doc["config"]["tuning"].contains("rwsem_handoff"));
  const auto& run = doc["runs"][0];
  BOOST_TEST(run["family"] == "semaphore");
  BOOST_TEST(run["count"] == 3);
  BOOST_TEST(run["readers"] == 0);
  BOOST_TEST(run["writers"] == 4);
  BOOST_TEST(run["per_thread"][0]["role"] == "holder");
  BOOST_TEST(r.out.find("--threads 4 --count 3") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(binary_inject_errors_and_listing) {
  auto bad = test::run_rwstress("--lock xadd --inject 'delay@before-sleep:exp(2x)'");
  BOOST_TEST(bad.exit_code == 2);
  BOOST_TEST(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  BOOST_TEST(bad.err.find("at 'exp(2x)'") != std::string::npos, bad.err);
  auto list = test::run_rwstress("list injectors");
  BOOST_TEST(list.exit_code == 0);
  for (const char* word : {"yield", "spurious-wake", "stutter", "cpu-offline", "after-enqueue",
                           "futex-wait", "between-passes"})
    BOOST_TEST(list.out.find(word) != std::string::npos, word);
  auto run = test::run_rwstress(
      "--lock xadd --readers 2 --writers 1 --duration 300ms --seed 3 "
      "--inject 'yield@in-cs:p=0.1' --inject 'stutter:every=100ms,for=10ms'");
  BOOST_TEST(run.exit_code == 0, run.out << run.err);
  BOOST_TEST(run.out.find("+ yield@in-cs:p=0.1 at in-cs: fired") != std::string::npos, run.out);
  BOOST_TEST(run.out.find("injection schedule digest 0x") != std::string::npos);
  BOOST_TEST(run.out.find("--inject 'yield@in-cs:p=0.1'") != std::string::npos);
  auto again = test::run_rwstress(
      "--lock xadd --readers 2 --writers 1 --duration 300ms --seed 3 "
      "--inject 'yield@in-cs:p=0.1' --inject 'stutter:every=100ms,for=10ms'");
  auto digest = [](const std::string& out) {
    auto at = out.find("digest 0x");
    return at == std::string::npos ? std::string() : out.substr(at, 27);
  };
  BOOST_TEST(!digest(run.out).empty());
  BOOST_TEST(digest(run.out) == digest(again.out));
}

// The short selftest: every busted lock caught, every control PASS.
BOOST_AUTO_TEST_CASE(binary_selftest_short_passes) {
  auto r = test::run_rwstress("selftest --short");
  BOOST_TEST(r.exit_code == 0, r.out);
  BOOST_TEST(r.out.find("MISSED") == std::string::npos);
  BOOST_TEST(r.out.find("FLAGGED") == std::string::npos);
  BOOST_TEST(r.out.find("busted-lost-wakeup") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(binary_rusage_line) {
  auto r = test::run_rwstress("--lock sem-mutex --threads 3 --duration 300ms --rusage");
  BOOST_TEST(r.exit_code == 0, r.out);
  BOOST_TEST(r.out.find("  = context switches ") != std::string::npos, r.out);
  BOOST_TEST(r.out.find(" idle, ") == std::string::npos);  // one line, ends with the split
  BOOST_TEST(r.out.find("per op ") != std::string::npos);
  BOOST_TEST(r.out.find("--rusage --seed") != std::string::npos);  // replayed
}

BOOST_AUTO_TEST_CASE(binary_family_runs_pass) {
  auto sem = test::run_rwstress("--lock kernel-sem,sem-i386 --count 2 --threads 4 --duration 300ms");
  BOOST_TEST(sem.exit_code == 0, sem.out);
  BOOST_TEST(sem.out.find("4T/c2") != std::string::npos);
  auto mtx = test::run_rwstress("--lock qspinlock,mcs --threads 3 --duration 300ms");
  BOOST_TEST(mtx.exit_code == 0, mtx.out);
  auto bad = test::run_rwstress("--lock mutex --readers 2");
  BOOST_TEST(bad.exit_code == 2);
}

BOOST_AUTO_TEST_CASE(binary_list_shows_every_lock) {
  test::ProcessResult r = test::run_rwstress("list");
  BOOST_TEST(r.exit_code == 0);
  for (const auto& e : lock_registry())
    BOOST_TEST(r.out.find(std::string(e.meta.name)) != std::string::npos, e.meta.name);
  for (const char* family : {"rwlock:", "semaphore:", "mutex:", "busted"})
    BOOST_TEST(r.out.find(family) != std::string::npos, family);
}

// What must produce a false HANG, and values that used to slip through
// (wrapped, truncated or empty), are refused with one line each.
BOOST_AUTO_TEST_CASE(what_must_give_a_false_verdict_or_wraps_is_refused) {
  const std::vector<std::vector<std::string>> refused = {
      {"--watchdog", "2", "--inject", "sleep@in-cs:p=0.01,uniform(1ms,60s)"},  // uniform's high end
      {"--inject", "delay@in-cs:p=0.001,fixed(30s)"},                            // delay pauses too
      {"--watchdog", "2", "--inject", "delay@in-cs:exp(100ms)"},  // exp is cut at 20 means: 2s
      {"--watchdog", "1s", "--inject", "delay@before-acquire+in-cs+before-release:fixed(200ms)"},
      {"--watchdog", "1ms"},
      {"--watchdog", "5ms"},
      {"--cs-read", "4294967296"},
      {"--seed", "-1"},
      {"--seed", ""},
      {"--seed", "18446744073709551616"},
      {"--cpus", ""},
      {"--json", ""},
      {"--inject", "yield@in-cs:every=-1"},
      {"--inject", "yield@in-cs:every=99999999999999999999999"},
      {"--seed", "1\n2"},
      {"--lock", "xadd\nrm -rf /"},
      {"compare", "a.json", "b.json", "--alpha", "nan"},
  };
  for (auto args : refused) {
    if (args[0] != "compare") args.insert(args.begin(), {"--lock", "xadd"});
    CliOutcome o = parse(args);
    std::string shown;
    for (const auto& a : args) shown += a + " ";
    BOOST_TEST(one_line_error(o), shown << "-> " << o.output);
  }
  // The largest seed and every= count still parse; a pause under half the
  // watchdog is accepted.
  BOOST_TEST(parse({"--seed", "18446744073709551615"}).config.seed == UINT64_MAX);
  BOOST_TEST(parse({"--seed", "0xffffffffffffffff"}).config.seed == UINT64_MAX);
  BOOST_TEST((parse({"--inject", "yield@in-cs:every=18446744073709551615"}).action == CliAction::kRun));
  BOOST_TEST((parse({"--watchdog", "2", "--inject", "sleep@in-cs:uniform(1ms,900ms)"}).action ==
              CliAction::kRun));
  BOOST_TEST((parse({"--watchdog", "100ms"}).action == CliAction::kRun));
}

// Every declared knob (locks/lock_tuning.h): its locks are registered and
// read the tuning; a value other than the default is parsed into the
// tuning, written on the replay line, read back from it to the same tuning,
// and is a part of the scenario key that compare --ignore accepts; a word or
// number outside the knob's range is one line and exit 2.
BOOST_AUTO_TEST_CASE(every_knob_round_trips_through_its_one_declaration) {
  const LockTuning defaults;
  const std::vector<std::string> key_parts = scenario_key_parts();
  for (const Knob& k : kKnobs) {
    BOOST_TEST_CONTEXT("--" << k.flag) {
      std::istringstream locks{std::string(k.locks)};
      std::string lock, first_lock;
      while (locks >> lock) {
        const LockEntry* e = find_lock(lock);
        BOOST_REQUIRE_MESSAGE(e, lock << " is not registered");
        BOOST_TEST(e->meta.caps.tuned, lock << " does not read the tuning");
        if (first_lock.empty()) first_lock = lock;
      }
      BOOST_REQUIRE(!first_lock.empty());
      int value = k.max;
      for (const KnobChoice& c : k.choices)
        if (c.value != defaults.*k.field) value = c.value;
      BOOST_REQUIRE(value != defaults.*k.field);
      const std::string text = knob_text(k, value);
      const std::string flag = "--" + std::string(k.flag);

      CliOutcome o = parse({"--lock", first_lock, flag, text});
      BOOST_REQUIRE(o.action == CliAction::kRun);
      BOOST_TEST((o.config.tuning.*k.field) == value);
      PlacementPlan plan;
      plan.cpus = {0};
      plan.cpu_of_thread = {0};
      const std::string replay = o.config.describe(plan);
      BOOST_TEST(replay.find(flag + " " + text) != std::string::npos, replay);
      std::istringstream words(replay);
      std::vector<std::string> args;
      for (std::string w; words >> w;) args.push_back(w);
      BOOST_REQUIRE(args.front() == "rwstress");
      CliOutcome again = parse({args.begin() + 1, args.end()});
      BOOST_REQUIRE(again.action == CliAction::kRun);
      for (const Knob& other : kKnobs)
        BOOST_TEST((again.config.tuning.*other.field) == (o.config.tuning.*other.field));
      BOOST_TEST(knob_key(o.config.tuning) == " " + std::string(k.key) + "=" + text);
      BOOST_TEST(std::count(key_parts.begin(), key_parts.end(), std::string(k.key)) == 1);

      const std::string bad = k.choices.empty() ? std::to_string(std::int64_t(k.max) + 1) : "sometimes";
      BOOST_TEST(one_line_error(parse({"--lock", first_lock, flag, bad})));
    }
  }
}

// One knob end to end in the binary: replayed on the command line.
BOOST_AUTO_TEST_CASE(xadd_retry_knob_runs_and_replays) {
  test::ProcessResult r =
      test::run_rwstress("--lock xadd --xadd-retry original --duration 100ms --readers 2 --writers 1");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  BOOST_TEST(r.out.find("--xadd-retry original") != std::string::npos);
}

// `--cpus 0` runs on CPU 0 and replays as such; `--ncpus 1` replays as a count.
BOOST_AUTO_TEST_CASE(binary_cpu_zero_is_cpu_zero) {
  test::ProcessResult r = test::run_rwstress("--lock xadd --readers 1 --writers 1 --cpus 0 --duration 100ms");
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(r.out.find("--cpus 0 --placement") != std::string::npos, r.out);
  r = test::run_rwstress("--lock xadd --readers 1 --writers 1 --ncpus 1 --duration 100ms");
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(r.out.find("--ncpus 1 --placement") != std::string::npos, r.out);
}

// validate's exploration stage: every run's strategy parses, PCT at depths
// 1 to 3 and one exhaustive search per family, and the fatal-signal run
// only for a kernel-compat lock with killable entry points (and, for a
// kernel-compat rwlock or semaphore, one PCT search that takes interrupts); PCT at the
// 2-thread shape too, and, where the lock's accesses feed the memory
// model, once under tso and once with no model (a plugin without the
// model's header: neither).
BOOST_AUTO_TEST_CASE(validate_exploration_battery_strategies_parse) {
  const rwstress_lock_ops* some_plugin = reinterpret_cast<const rwstress_lock_ops*>(&some_plugin);
  using Model = rwstress::ExploreScenario::Model;
  for (Family f : {Family::kRwlock, Family::kSemaphore, Family::kMutex})
    for (bool modelled : {true, false}) {
      rwstress::LockMeta meta{};
      meta.name = "x";
      meta.family = f;
      meta.plugin = modelled ? nullptr : some_plugin;
      for (bool killable_layer : {false, true}) {
        meta.kernel_layer = meta.caps.killable = killable_layer;
        const auto battery = rwstress::explore_battery(meta);
        std::set<std::string> names, depths;
        int exhaustive = 0, signals = 0, pct_at_two = 0, tso = 0, none = 0, interrupts = 0;
        for (const auto& x : battery) {
          RunConfig::Explore e;
          BOOST_TEST(rwstress::parse_explore_strategy(x.strategy, &e).empty(), x.strategy);
          BOOST_TEST(names.insert(x.name).second, x.name);  // a row each
          BOOST_TEST(x.readers + x.writers <= 4);            // the smallest shapes
          if (e.pct) depths.insert(x.strategy);
          exhaustive += e.exhaustive;
          signals += x.signals;
          pct_at_two += e.pct && x.readers + x.writers == 2 && x.model == Model::kLocksOwn;
          tso += x.model == Model::kTso;
          none += x.model == Model::kNone;
          interrupts += x.interrupts > 0;
          if (e.exhaustive) BOOST_TEST(x.readers + x.writers == 2);
        }
        BOOST_TEST(depths.size() == 3u);
        BOOST_TEST(exhaustive == 1);
        BOOST_TEST(signals == (killable_layer ? 1 : 0));
        BOOST_TEST(pct_at_two == 1);
        BOOST_TEST(tso == (modelled ? 1 : 0));
        BOOST_TEST(none == (modelled ? 1 : 0));
        // (a kernel-compat rwlock's or semaphore's glue may give interrupt
        // handlers work; a mutex is never released from one)
        BOOST_TEST(interrupts == (killable_layer && f != Family::kMutex ? 1 : 0));
      }
    }
}

// validate's battery: every scenario's --inject spec parses (a bad one would
// stop validate with exit 2), and each family has its shapes and schedules.
BOOST_AUTO_TEST_CASE(validate_battery_specs_parse) {
  for (Family f : {Family::kRwlock, Family::kSemaphore, Family::kMutex}) {
    const auto battery = rwstress::validate_battery(f, 2);
    BOOST_TEST(battery.size() >= 15u);
    int injected = 0, combined = 0;
    for (const auto& v : battery) {
      if (v.inject.empty()) continue;
      ++injected;
      combined += v.inject.size() > 1;
      for (const std::string& text : v.inject) {
        std::string err;
        BOOST_TEST(rwstress::parse_inject_spec(text, &err).has_value(), text << ": " << err);
      }
    }
    BOOST_TEST(injected == (f == Family::kRwlock ? 19 : 18));
    BOOST_TEST(combined == 8);  // conditions at once, as kernel lock bugs need them
    // The killed-waiter combinations make every acquisition killable.
    BOOST_TEST(std::count_if(battery.begin(), battery.end(), [](const auto& v) {
                 return v.killable_every == 1;
               }) == 2);
  }
}

namespace {

// A fake kernel tree whose semaphore.c builds (tests/kernel-tree/), under
// a fresh directory; removed at the end.
struct FakeKernelTree {
  std::string dir, tree, cache;
  FakeKernelTree() {
    char dir_template[] = "/tmp/rwstress_ktree_XXXXXX";
    dir = mkdtemp(dir_template);
    tree = dir + "/linux";
    cache = dir + "/cache";
    std::filesystem::create_directories(tree + "/kernel/locking");
    std::ofstream(tree + "/Makefile") << "VERSION = 6\nPATCHLEVEL = 18\nSUBLEVEL = 3\n";
    std::filesystem::copy_file(std::string(RWSTRESS_SOURCE_DIR) + "/tests/kernel-tree/semaphore.c",
                               tree + "/kernel/locking/semaphore.c");
  }
  ~FakeKernelTree() {
    std::error_code ec;
    std::filesystem::permissions(cache, std::filesystem::perms(0755), ec);
    std::filesystem::remove_all(dir, ec);
  }
  std::string patch(const std::string& name, const std::string& text) const {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  }
  // rwstress kernel on it: semaphore.c, explored briefly, not validated.
  test::ProcessResult run(const std::string& more, const std::string& prefix = "") const {
    return test::run_rwstress("kernel --source " + tree + " --files semaphore --explore "
                              "--no-validate --explore-schedules 5 --cache " + cache + " " + more,
                              prefix);
  }
};

std::size_t lines_in(const std::string& s) { return std::size_t(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

// explore --time stops a search and says how far it got; --outcome
// writes the result as JSON (rwstress kernel --explore reads it): a
// sampling search cut by the time, an exhaustive one that completes, an
// exhaustive one cut with the bound it finished, a failure with its
// replay; an --outcome that cannot be written is refused before the run.
BOOST_AUTO_TEST_CASE(explore_time_and_outcome_say_how_far_a_search_got) {
  char dir_template[] = "/tmp/rwstress_outcome_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string file = dir + "/o.json";
  test::ProcessResult cut = test::run_rwstress(
      "explore --lock ticket --threads 3 --strategy random --schedules 100000000 --time 300ms "
      "--outcome " + file);
  BOOST_TEST(cut.exit_code == 0, cut.out << cut.err);
  BOOST_TEST(cut.out.find("stopped: --time (300ms) ran out") != std::string::npos, cut.out);
  nlohmann::json doc = nlohmann::json::parse(test::slurp(file));
  BOOST_TEST(doc["runs"][0]["verdict"].get<std::string>() == "PASS");
  BOOST_TEST(doc["runs"][0]["out_of_time"].get<bool>());
  BOOST_TEST(doc["runs"][0]["schedules"].get<std::uint64_t>() > 10u);
  test::ProcessResult whole = test::run_rwstress(
      "explore --lock ticket --threads 2 --strategy exhaustive:preemptions=2 --outcome " + file);
  BOOST_TEST(whole.exit_code == 0, whole.out << whole.err);
  doc = nlohmann::json::parse(test::slurp(file));
  BOOST_TEST(doc["runs"][0]["complete"].get<bool>());
  BOOST_TEST(doc["runs"][0]["bound_done"].get<int>() == 2);
  BOOST_TEST(!doc["runs"][0]["out_of_time"].get<bool>());
  test::ProcessResult part = test::run_rwstress(
      "explore --lock ticket --threads 3 --ops 3 --strategy exhaustive:preemptions=4 "
      "--schedules 100000000 --time 500ms --outcome " + file);
  BOOST_TEST(part.exit_code == 0, part.out << part.err);
  BOOST_TEST(part.out.find("not complete: --time (500ms) ran out before the bound did") !=
                 std::string::npos, part.out);
  doc = nlohmann::json::parse(test::slurp(file));
  BOOST_TEST(!doc["runs"][0]["complete"].get<bool>());
  BOOST_TEST(doc["runs"][0]["bound_done"].get<int>() >= 0);
  BOOST_TEST(doc["runs"][0]["bound_done"].get<int>() < 4);
  test::ProcessResult found = test::run_rwstress(
      "explore --lock busted-racy-tas --threads 2 --outcome " + file);
  BOOST_TEST(found.exit_code == 1, found.out << found.err);
  doc = nlohmann::json::parse(test::slurp(file));
  BOOST_TEST(doc["exit_code"].get<int>() == 1);
  BOOST_TEST(doc["runs"][0]["verdict"].get<std::string>() == "FAIL");
  BOOST_TEST(doc["runs"][0]["replay"].get<std::string>().find("--replay ") != std::string::npos);
  test::ProcessResult bad = test::run_rwstress("explore --lock ticket --threads 2 --outcome " + dir +
                                               "/no/such/dir/o.json");
  BOOST_TEST(bad.exit_code == 2, bad.out << bad.err);
  BOOST_TEST(std::count(bad.err.begin(), bad.err.end(), '\n') == 1, bad.err);
  BOOST_TEST(bad.err.find("explore --outcome") != std::string::npos, bad.err);
  test::ProcessResult time = test::run_rwstress("explore --lock ticket --threads 2 --time soon");
  BOOST_TEST(time.exit_code == 2, time.out << time.err);
  BOOST_TEST(time.err.find("explore --time") != std::string::npos, time.err);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// explore --jobs and --shard split one search: an exhaustive search's
// shards together run exactly the schedules of the whole (each shard's
// outcome counts its own; side by side, the same total and verdict); a
// sampled failure found side by side is the same from run to run (the
// lowest-numbered of the shards' is kept) and its replay line fails; a
// malformed --shard, or either with --replay, is one line and exit 2;
// explore merge joins the shards' outcomes into the search's verdict.
// --trace-json: the failing schedule (or a replayed one) as a Chrome
// trace-event file; nothing written when nothing failed; an unwritable
// path is one line and exit 2 before any search.
BOOST_AUTO_TEST_CASE(explore_trace_json_writes_the_failing_schedule_as_trace_events) {
  char dir_template[] = "/tmp/rwstress_trace_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string racy = "explore --lock busted-racy-tas --threads 2 --ops 2 --replays 1 ";
  test::ProcessResult r = test::run_rwstress(racy + "--trace-json " + dir + "/t.json");
  BOOST_TEST(r.exit_code == 1, r.out << r.err);
  BOOST_TEST(r.out.find("trace: " + dir + "/t.json (1 schedule") != std::string::npos, r.out);
  const nlohmann::json doc = nlohmann::json::parse(test::slurp(dir + "/t.json"));
  std::size_t steps = 0, holds = 0, findings = 0;
  for (const nlohmann::json& ev : doc["traceEvents"]) {
    const std::string cat = ev.value("cat", "");
    steps += cat == "step";
    holds += cat == "hold";
    findings += cat == "finding";
  }
  // As many step slices as the printed trace says the schedule had.
  const std::size_t at = r.out.find("the last steps of ");
  BOOST_REQUIRE(at != std::string::npos);
  BOOST_TEST(steps == std::stoul(r.out.substr(at + 18)), r.out);
  BOOST_TEST(holds >= 2u);
  BOOST_TEST(findings >= 1u);
  // The replay line draws the same schedule.
  const std::size_t replay = r.out.find("replay: rwstress ");
  BOOST_REQUIRE(replay != std::string::npos);
  const std::string line = r.out.substr(replay + 17, r.out.find('\n', replay) - replay - 17);
  test::ProcessResult again = test::run_rwstress(line + " --trace-json " + dir + "/r.json");
  BOOST_TEST(again.exit_code == 1, again.out << again.err);
  const nlohmann::json replayed = nlohmann::json::parse(test::slurp(dir + "/r.json"));
  std::size_t replayed_steps = 0;
  for (const nlohmann::json& ev : replayed["traceEvents"]) replayed_steps += ev.value("cat", "") == "step";
  BOOST_TEST(replayed_steps == steps);
  // A search that finds nothing writes nothing.
  test::ProcessResult pass =
      test::run_rwstress("explore --lock ticket --threads 2 --schedules 50 --trace-json " + dir + "/p.json");
  BOOST_TEST(pass.exit_code == 0, pass.out << pass.err);
  BOOST_TEST(pass.out.find("not written (no failing schedule to show)") != std::string::npos, pass.out);
  BOOST_TEST(access((dir + "/p.json").c_str(), F_OK) != 0);
  test::ProcessResult bad = test::run_rwstress(racy + "--trace-json " + dir + "/no/such/dir/t.json");
  BOOST_TEST(bad.exit_code == 2, bad.out << bad.err);
  BOOST_TEST(lines_in(bad.err) == 1u, bad.err);
  BOOST_TEST(bad.err.find("explore --trace-json: ") != std::string::npos, bad.err);
}

// --acq-writer-lim (locktorture's acq_writer_lim): holders that sleep 20 ms
// now and then make a waiter wait past 5 ms, an acquire-limit violation
// with its count and longest wait, and the reproduce line keeps the limit;
// the same run with a limit far above any wait passes. A limit that is not
// a time above zero is one line and exit 2.
BOOST_AUTO_TEST_CASE(acq_writer_lim_fails_a_wait_past_it_and_passes_one_within) {
  const std::string run = "--lock ticket --threads 3 --duration 500ms ";
  const std::string sleepy = "--inject 'sleep@in-cs:p=0.1,fixed(20ms)' ";
  test::ProcessResult over = test::run_rwstress(run + sleepy + "--acq-writer-lim 5ms");
  BOOST_TEST(over.exit_code == 1, over.out + over.err);
  BOOST_TEST(over.out.find("[acquire-limit] thread ") != std::string::npos, over.out);
  BOOST_TEST(over.out.find("waited longer than --acq-writer-lim 5ms (the longest ") !=
                 std::string::npos,
             over.out);
  BOOST_TEST(over.out.find("--acq-writer-lim 5ms --duration") != std::string::npos, over.out);
  test::ProcessResult within = test::run_rwstress(run + "--acq-writer-lim 5s");
  BOOST_TEST(within.exit_code == 0, within.out + within.err);
  BOOST_TEST(within.out.find("acquire-limit") == std::string::npos, within.out);
  for (const char* bad : {"0", "-1ms", "soon"}) {
    test::ProcessResult r = test::run_rwstress(run + "--acq-writer-lim " + bad);
    BOOST_TEST(r.exit_code == 2, bad << ": " << r.err);
    BOOST_TEST(r.err.find("--acq-writer-lim") != std::string::npos, r.err);
  }
}

BOOST_AUTO_TEST_CASE(explore_jobs_and_shards_split_a_search_without_losing_a_schedule) {
  char dir_template[] = "/tmp/rwstress_shards_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string search =
      "explore --lock linux-rwsem --readers 2 --writers 1 --strategy exhaustive:preemptions=2 "
      "--schedules 1000000 ";
  const auto schedules = [&](const std::string& more) {
    test::ProcessResult r = test::run_rwstress(search + more + " --outcome " + dir + "/o.json");
    BOOST_TEST(r.exit_code == 0, more << ": " << r.out << r.err);
    const nlohmann::json doc = nlohmann::json::parse(test::slurp(dir + "/o.json"));
    BOOST_TEST(doc["runs"][0]["complete"].get<bool>(), more);
    return doc["runs"][0]["schedules"].get<std::uint64_t>();
  };
  const std::uint64_t whole = schedules("");
  BOOST_TEST(whole > 1000u);
  BOOST_TEST(schedules("--jobs 2") == whole);
  BOOST_TEST(schedules("--jobs 3") == whole);
  const std::uint64_t first = schedules("--shard 0/2"), second = schedules("--shard 1/2");
  BOOST_TEST(first + second == whole);
  BOOST_TEST(first > whole / 4);
  BOOST_TEST(second > whole / 4);

  // explore merge: the shards' outcomes joined; a missing, doubled,
  // foreign or corrupt one is one line and exit 2.
  for (int i = 0; i < 2; ++i) {
    test::ProcessResult r = test::run_rwstress(search + "--shard " + std::to_string(i) +
                                               "/2 --outcome " + dir + "/s" + std::to_string(i) + ".json");
    BOOST_TEST(r.exit_code == 0, r.out << r.err);
  }
  const std::string s0 = dir + "/s0.json", s1 = dir + "/s1.json";
  test::ProcessResult merged = test::run_rwstress("explore merge " + s0 + " " + s1);
  BOOST_TEST(merged.exit_code == 0, merged.out << merged.err);
  BOOST_TEST(merged.out.find("linux-rwsem: PASS, complete: every shard ran") != std::string::npos,
             merged.out);
  test::ProcessResult half = test::run_rwstress("explore merge " + s1);
  BOOST_TEST(half.exit_code == 2, half.out << half.err);
  BOOST_TEST(half.out.find("not judged") != std::string::npos, half.out);
  BOOST_TEST(half.err.find("shard 0 of 2 missing") != std::string::npos, half.err);
  std::ofstream(dir + "/bad.json") << "{\"rwstress_explore_outcome\": 1, \"runs\": [";
  test::run_rwstress("explore --lock ticket --threads 2 --outcome " + dir + "/ticket.json");
  for (const std::string& bad : {s0 + " " + s0, s0 + " " + dir + "/bad.json", s0 + " " + dir + "/ticket.json",
                                 s0 + " " + dir + "/none.json"}) {
    test::ProcessResult r = test::run_rwstress("explore merge " + bad);
    BOOST_TEST(r.exit_code == 2, bad << ": " << r.out << r.err);
    BOOST_TEST(lines_in(r.err) == 1u, bad << ": " << r.err);
    BOOST_TEST(r.err.find("explore merge: ") != std::string::npos, bad << ": " << r.err);
  }

  const std::string racy = "explore --lock busted-racy-readers --readers 2 --writers 1 --no-shrink "
                           "--replays 2 ";
  test::ProcessResult sides = test::run_rwstress(racy + "--jobs 2");
  test::ProcessResult again_sides = test::run_rwstress(racy + "--jobs 2");
  BOOST_TEST(sides.exit_code == 1, sides.out << sides.err);
  const auto found_line = [](const std::string& out) {
    const std::size_t at = out.find(": FAIL at schedule ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find(';', at) - at);
  };
  BOOST_TEST(!found_line(sides.out).empty(), sides.out);
  BOOST_TEST(found_line(again_sides.out) == found_line(sides.out), again_sides.out);
  const std::size_t replay = sides.out.find("replay: rwstress ");
  BOOST_REQUIRE(replay != std::string::npos);
  const std::string line = sides.out.substr(replay + 17, sides.out.find('\n', replay) - replay - 17);
  test::ProcessResult again = test::run_rwstress(line);
  BOOST_TEST(again.exit_code == 1, line << ": " << again.out << again.err);
  // A failure in a shard is the merged search's, with its replay line.
  for (int i = 0; i < 2; ++i)
    test::run_rwstress(racy + "--shard " + std::to_string(i) + "/2 --outcome " + dir + "/r" +
                       std::to_string(i) + ".json");
  test::ProcessResult failed = test::run_rwstress("explore merge " + dir + "/r0.json " + dir + "/r1.json");
  BOOST_TEST((failed.exit_code == 1 || failed.exit_code == 3), failed.out << failed.err);
  BOOST_TEST(failed.out.find("replay: rwstress explore --lock busted-racy-readers") != std::string::npos,
             failed.out);

  for (const char* bad : {"--shard 2/2", "--shard 1", "--shard x/4", "--jobs -1"}) {
    test::ProcessResult r = test::run_rwstress("explore --lock ticket --threads 2 " + std::string(bad));
    BOOST_TEST(r.exit_code == 2, bad << ": " << r.out << r.err);
    BOOST_TEST(lines_in(r.err) == 1u, bad << ": " << r.err);
  }
  test::ProcessResult both = test::run_rwstress(line + " --jobs 2");
  BOOST_TEST(both.exit_code == 2, both.out << both.err);
  BOOST_TEST(both.err.find("--jobs does nothing with --replay") != std::string::npos, both.err);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// rwstress kernel takes a patch as untrusted input: every path it names
// (both sides, renames, copies, -p1 applied) must be a regular file under
// kernel/locking/, checked before anything is applied (one line, exit 2,
// never the bisect "skip"); a patch that changes nothing is said; a
// directory given as a patch is said.
BOOST_AUTO_TEST_CASE(kernel_refuses_patches_outside_kernel_locking_and_patches_that_do_nothing) {
  FakeKernelTree k;
  const std::string hunk = "@@ -1 +1 @@\n-a\n+b\n";
  const std::pair<std::string, const char*> refused[] = {
      {"--- a/Makefile\n+++ b/Makefile\n@@ -1,3 +1,3 @@\n VERSION = 6\n-PATCHLEVEL = 18\n+PATCHLEVEL = 19\n "
       "SUBLEVEL = 3\n", "a/Makefile: outside kernel/locking/"},
      {"diff --git a/scripts/evil.sh b/scripts/evil.sh\nnew file mode 100755\n--- /dev/null\n+++ "
       "b/scripts/evil.sh\n@@ -0,0 +1 @@\n+rm -rf /\n", "scripts/evil.sh: outside kernel/locking/"},
      {"diff --git a/kernel/locking/semaphore.c b/kernel/sem.c\nsimilarity index 100%\nrename from "
       "kernel/locking/semaphore.c\nrename to kernel/sem.c\n", "kernel/sem.c: outside kernel/locking/"},
      {"diff --git a/kernel/locking/x.h b/kernel/locking/x.h\nnew file mode 120000\n--- /dev/null\n"
       "+++ b/kernel/locking/x.h\n@@ -0,0 +1 @@\n+/etc/shadow\n\\ No newline at end of file\n",
       "a symbolic link"},
      {"--- /etc/passwd\n+++ /etc/passwd\n" + hunk, "/etc/passwd: an absolute path"},
      {"--- a/kernel/locking/../../x.c\n+++ b/kernel/locking/../../x.c\n" + hunk, "an empty, . or .. part"},
      {"*** a/kernel/locking/semaphore.c\n--- b/kernel/locking/semaphore.c\n***************\n",
       "a context diff"},
      {"diff --git a/kernel/locking/x.bin b/kernel/locking/x.bin\nGIT binary patch\nliteral 1\nIc${\n",
       "a binary patch"},
      // A file header after a hunk of kernel/locking/ is checked all the same
      // (the hunk's own lines are counted, not taken for headers).
      {"--- a/kernel/locking/semaphore.c\n+++ b/kernel/locking/semaphore.c\n@@ -1 +1 @@\n-// A "
       "counting semaphore on a raw spinlock: enough of kernel/locking/\n+// --- a/Makefile\n"
       "--- a/Makefile\n+++ b/Makefile\n" + hunk, "line 6: a/Makefile"},
  };
  int n = 0;
  for (const auto& [text, says] : refused) {
    const std::string p = k.patch("bad" + std::to_string(n++) + ".patch", text);
    test::ProcessResult r = k.run("--patch " + p);
    BOOST_TEST(r.exit_code == 2, p << "\n" << r.out << r.err);
    BOOST_TEST(lines_in(r.err) == 1u, p << "\n" << r.err);
    BOOST_TEST(r.err.find(says) != std::string::npos, p << "\n" << r.err);
    BOOST_TEST(r.err.find("The text leading up to this") == std::string::npos, r.err);
  }
  // Nothing changed in kernel/locking/: an empty patch, a mode-only one.
  for (const std::string& text : {std::string(),
                                  std::string("diff --git a/kernel/locking/semaphore.c "
                                              "b/kernel/locking/semaphore.c\nold mode 100644\nnew "
                                              "mode 100755\n")}) {
    test::ProcessResult r = k.run("--patch " + k.patch("nothing.patch", text));
    BOOST_TEST(r.exit_code == 2, r.out << r.err);
    BOOST_TEST(r.err.find("it changed nothing in kernel/locking/") != std::string::npos, r.err);
  }
  test::ProcessResult dir = k.run("--patch " + k.dir);
  BOOST_TEST(dir.exit_code == 2);
  BOOST_TEST(dir.err.find("a directory (give a patch file") != std::string::npos, dir.err);
  // A good patch applies, and the run says it was patched.
  test::ProcessResult good = k.run(
      "--patch " + k.patch("good.patch", "--- a/kernel/locking/semaphore.c\n+++ "
                                         "b/kernel/locking/semaphore.c\n@@ -1 +1 @@\n-// A counting "
                                         "semaphore on a raw spinlock: enough of kernel/locking/\n+// "
                                         "A counting semaphore, patched\n"));
  BOOST_TEST(good.exit_code == 0, good.out << good.err);
  BOOST_TEST(good.out.find("patched with") != std::string::npos, good.out);
  // Under the row, what explore searched: the portfolio's table.
  BOOST_TEST(good.out.find("9 searches, 5 schedules each, no failure:") != std::string::npos, good.out);
  BOOST_TEST(good.out.find("3T count 1 pct:depth=3 c11") != std::string::npos, good.out);
  BOOST_TEST(good.out.find("2T count 1 exhaustive:preemptions=3 c11 stale 1") != std::string::npos,
             good.out);
  // Without --files, a patch runs the groups that build what it changes
  // (the fake tree has semaphore.c alone: any other group would not build).
  test::ProcessResult only = test::run_rwstress(
      "kernel --source " + k.tree + " --explore --no-validate --explore-schedules 5 --cache " +
      k.cache + " --patch " + k.dir + "/good.patch");
  BOOST_TEST(only.exit_code == 0, only.out << only.err);
  BOOST_TEST(only.out.find("rwstress kernel: files semaphore: the groups that build what the "
                           "patches change") != std::string::npos, only.out);
  // A git rename and a copy within kernel/locking/ pass the check.
  BOOST_TEST(check_patch_text("diff --git a/kernel/locking/a.c b/kernel/locking/b.c\nsimilarity "
                              "index 100%\nrename from kernel/locking/a.c\nrename to "
                              "kernel/locking/b.c\ndiff --git a/kernel/locking/b.c "
                              "b/kernel/locking/c.c\ncopy from kernel/locking/b.c\ncopy to "
                              "kernel/locking/c.c\n") == "");
  BOOST_TEST(check_patch_text("diff --git a/kernel/locking/a.c b/kernel/locking/a.c\ncopy from "
                              "kernel/locking/a.c\ncopy to kernel/x.c\n")
                 .find("kernel/x.c: outside kernel/locking/") != std::string::npos);
}

// The cache is code rwstress loads: a plugin that does not match the
// digest recorded when it was built is rebuilt, never loaded; a cache
// others may write is refused with the fix; a build that failed for the
// machine's reasons (a full disk, no compiler) is exit 2, never the
// bisect "skip"; a signal mid-run leaves no half-built file, no child and
// an INTERRUPTED line.
BOOST_AUTO_TEST_CASE(kernel_treats_its_cache_as_untrusted_and_ends_on_a_signal) {
  FakeKernelTree k;
  test::ProcessResult first = k.run("");
  BOOST_REQUIRE(first.exit_code == 0);
  BOOST_TEST(first.out.find("built") != std::string::npos, first.out);
  // The explore run says that --signals changed nothing for a file with no
  // killable wait that met a signal check.
  BOOST_TEST(first.out.find("note: --signals changed nothing") != std::string::npos, first.out);
  test::ProcessResult cached = k.run("");
  BOOST_TEST(cached.out.find("is cached (same files, layer and flags; digest checked)") !=
             std::string::npos, cached.out);
  std::string so;
  for (const auto& e : std::filesystem::directory_iterator(k.cache + "/plugins"))
    if (e.path().extension() == ".so" && e.path().string().find("explore") == std::string::npos)
      so = e.path();
  BOOST_REQUIRE(!so.empty());
  std::ofstream(so, std::ios::app) << "planted";
  test::ProcessResult replaced = k.run("");
  BOOST_TEST(replaced.exit_code == 0, replaced.out << replaced.err);
  BOOST_TEST(replaced.out.find("does not match its recorded digest (replaced or damaged): not "
                               "loaded, rebuilt") != std::string::npos,
             replaced.out);
  BOOST_TEST(test::slurp(so).find("planted") == std::string::npos);
  // Writable by others: refused, with the fix.
  std::filesystem::permissions(k.cache, std::filesystem::perms(0777));
  test::ProcessResult open = k.run("");
  BOOST_TEST(open.exit_code == 2);
  BOOST_TEST(open.err.find("writable by others than its owner (mode 0777)") != std::string::npos, open.err);
  BOOST_TEST(open.err.find("chmod go-w") != std::string::npos, open.err);
  std::filesystem::permissions(k.cache, std::filesystem::perms(0755));
  // The machine's failures, not the source's: exit 2.
  const std::string full = k.patch("full-cc", "#!/bin/sh\necho 'cc1: fatal error: cannot write: No "
                                               "space left on device' >&2\nexit 1\n");
  std::filesystem::permissions(full, std::filesystem::perms(0755));
  std::filesystem::remove_all(k.cache + "/plugins");
  for (const std::string& cc : {full, std::string("/nonexistent/cc")}) {
    test::ProcessResult r = k.run("", "CC=" + cc + " ");
    BOOST_TEST(r.exit_code == 2, cc << ": " << r.out << r.err);
    BOOST_TEST(r.err.find("not because of the source") != std::string::npos, r.err);
    BOOST_TEST(r.out.find("BUILD") == std::string::npos, r.out);
  }
  // A signal mid-run.
  const char* bin = std::getenv("RWSTRESS_BIN");
  BOOST_REQUIRE(bin);
  const std::string cmd = std::string(bin) + " kernel --source " + k.tree +
                          " --files semaphore --explore --no-validate --explore-schedules 100000000 "
                          "--cache " + k.cache + " >" + k.dir + "/k.out 2>&1 & pid=$!; sleep 4; "
                          "kill -INT $pid; wait $pid";
  const int status = std::system(cmd.c_str());
  BOOST_TEST(WEXITSTATUS(status) == 130, test::slurp(k.dir + "/k.out"));
  const std::string out = test::slurp(k.dir + "/k.out");
  BOOST_TEST(out.find("INTERRUPTED by SIGINT while ") != std::string::npos, out);
  BOOST_TEST(out.find("every lock PASSes") == std::string::npos, out);
  for (const auto& e : std::filesystem::directory_iterator(k.cache + "/plugins"))
    BOOST_TEST(e.path().filename().string().rfind(".build-", 0) != 0u, e.path());
  for (const auto& p : std::filesystem::directory_iterator("/proc")) {  // no child left behind
    const std::string cmdline = test::slurp(p.path().string() + "/cmdline");
    BOOST_TEST(cmdline.find(k.cache) == std::string::npos, p.path());
  }
}

// The kernel command's options that would change nothing, and bad input
// said before anything is fetched or printed.
BOOST_AUTO_TEST_CASE(kernel_options_that_change_nothing_are_refused) {
  FakeKernelTree k;
  for (const char* both : {"--explore --explore-time 10s --explore-schedules 5",
                           "--explore-time 10s", "--explore --explore-time soon"}) {
    test::ProcessResult r = test::run_rwstress("kernel --source " + k.tree + " --files semaphore " +
                                               both);
    BOOST_TEST(r.exit_code == 2, both << ": " << r.out << r.err);
    BOOST_TEST(r.err.find("kernel --explore-") != std::string::npos, both << ": " << r.err);
  }
  test::ProcessResult config = test::run_rwstress("kernel --source " + k.tree +
                                                  " --files semaphore --config RWSEM_SPIN_ON_OWNER=n");
  BOOST_TEST(config.exit_code == 2);
  BOOST_TEST(config.err.find("only rwsem reads it") != std::string::npos, config.err);
  for (const char* version : {"abc", "6", "6.18.", "6..18", "1234567.1"}) {
    test::ProcessResult r = test::run_rwstress(std::string("kernel --version ") + version);
    BOOST_TEST(r.exit_code == 2, version);
    BOOST_TEST(r.out.empty(), version << ": " << r.out);  // no "fetching linux ..." first
    BOOST_TEST(r.err.find("want a series like 6.18") != std::string::npos, r.err);
  }
  // --files and --config may be given more than once, as any list.
  test::ProcessResult twice = test::run_rwstress("kernel --source " + k.tree +
                                                 " --files semaphore --files semaphore");
  BOOST_TEST(twice.exit_code == 2);
  BOOST_TEST(twice.err.find("'semaphore' is given twice") != std::string::npos, twice.err);
  BOOST_TEST(twice.err.find("At Most") == std::string::npos, twice.err);
  CliOutcome split = parse_cli({"kernel", "--source", k.tree, "--files", "rwsem", "--files", "mutex",
                                "--config", "RWSEM_SPIN_ON_OWNER=n", "--config",
                                "MUTEX_SPIN_ON_OWNER=n"});
  BOOST_TEST((split.action == CliAction::kKernel), split.output);
  BOOST_TEST((split.config.kernel.files == std::vector<std::string>{"rwsem", "mutex"}));
  BOOST_TEST(split.config.kernel.config.size() == 2u);
}

// rwstress kernel's bad input, on a fake tree (a Makefile and a one-line
// rwsem.c): one line on stderr and exit 2, before anything is fetched or
// built; and a file that does not compile is a BUILD row and exit 125 (git
// bisect run's "cannot test"), not a crash or a FAIL. The real trees are
// the kernel-upstream test's.
BOOST_AUTO_TEST_CASE(kernel_command_refuses_bad_input_in_one_line) {
  char dir_template[] = "/tmp/rwstress_kernel_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string tree = dir + "/linux";
  std::filesystem::create_directories(tree + "/kernel/locking");
  std::ofstream(tree + "/Makefile") << "VERSION = 6\nPATCHLEVEL = 18\nSUBLEVEL = 3\n";
  std::ofstream(tree + "/kernel/locking/rwsem.c") << "this is not C\n";
  std::ofstream(dir + "/other.patch") << "--- a/kernel/locking/mutex.c\n+++ b/kernel/locking/mutex.c\n"
                                         "@@ -1,1 +1,1 @@\n-old line\n+new line\n";
  const std::string cache = " --cache " + dir + "/cache";
  const std::pair<std::string, const char*> cases[] = {
      {"kernel", "--source DIR"},
      {"kernel --source " + tree + " --version 6.18", "one choice"},
      {"kernel --version 6.18 --files rwsem,mutexx", "'mutexx' is not a file"},
      {"kernel --version 6.18 --files rwsem,rwsem", "given twice"},
      {"kernel --version 6.18 --config RWSEM_SPIN_ON_OWNER=maybe", "RWSEM_SPIN_ON_OWNER=y or"},
      {"kernel --version 6.18 --config LOCKDEP=y", "not an option"},
      {"kernel --version 6.18 --time 0", "--time"},
      {"--readers 3 kernel --source " + tree, "--readers does not apply to kernel"},
      {"kernel --source " + dir, "not a kernel tree"},
      {"kernel --source " + tree + " --patch " + dir + "/none.patch" + cache, "no such file"},
      {"kernel --source " + tree + " --patch " + dir + "/other.patch" + cache, "does not apply"},
  };
  for (const auto& [args, says] : cases) {
    test::ProcessResult r = test::run_rwstress(args);
    BOOST_TEST(r.exit_code == 2, args << "\n" << r.out << r.err);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, args << "\n" << r.err);
    BOOST_TEST(r.err.find(says) != std::string::npos, args << "\n" << r.err);
  }
  test::ProcessResult build = test::run_rwstress("kernel --source " + tree +
                                     " --files rwsem --config RWSEM_SPIN_ON_OWNER=n" + cache);
  BOOST_TEST(build.exit_code == 125, build.out << build.err);
  BOOST_TEST(build.out.find("k6.18-rwsem") != std::string::npos, build.out);
  BOOST_TEST(build.out.find("BUILD") != std::string::npos, build.out);
  BOOST_TEST(build.out.find("rwsem.c:1") != std::string::npos, build.out);  // the compiler's first error
  std::filesystem::remove_all(dir);
}

// --rt-threads and --writer-fifo: shapes they cannot apply to, and commands
// that do not read them, are one line; where the process may not use
// SCHED_FIFO, so is asking for it.
BOOST_AUTO_TEST_CASE(real_time_threads_parse_or_are_refused_in_one_line) {
  const bool may = test::may_use_sched_fifo();
  CliOutcome o = parse({"--lock", "xadd", "--readers", "2", "--writers", "1", "--rt-threads", "1"});
  if (may) {
    BOOST_REQUIRE(o.action == CliAction::kRun);
    BOOST_TEST(o.config.rt_threads == 1);
    const Scenario sc = o.config.scenario_for(*o.config.locks.front());
    BOOST_TEST(!sc.real_time(0));
    BOOST_TEST(!sc.real_time(1));
    BOOST_TEST(sc.real_time(2));
    o = parse({"--lock", "xadd", "--readers", "2", "--writers", "2", "--writer-fifo"});
    BOOST_REQUIRE(o.action == CliAction::kRun);
    const Scenario wf = o.config.scenario_for(*o.config.locks.front());
    BOOST_TEST((!wf.real_time(0) && !wf.real_time(1) && wf.real_time(2) && wf.real_time(3)));
    BOOST_TEST(o.config.describe(wf.plan).find(" --writer-fifo") != std::string::npos);
    o = parse({"--lock", "ticket", "--threads", "3", "--writer-fifo"});
    BOOST_REQUIRE(o.action == CliAction::kRun);
    const Scenario all = o.config.scenario_for(*o.config.locks.front());
    BOOST_TEST((all.real_time(0) && all.real_time(1) && all.real_time(2)));
  } else {
    BOOST_TEST(one_line_error(o), o.output);
    BOOST_TEST(o.output.find("SCHED_FIFO is not permitted") != std::string::npos, o.output);
  }
  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{"--lock", "xadd", "--readers", "2", "--writers", "1", "--rt-threads", "4"}, "has 3 threads"},
      {{"--lock", "ticket", "--threads", "2", "--rt-threads", "3"}, "has 2 threads"},
      {{"--lock", "xadd", "--readers", "2", "--writers", "0", "--writer-fifo"}, "no writer"},
      {{"--rt-threads", "-1"}, "--rt-threads"},
      {{"--rt-threads", "1", "validate", "--lock", "xadd"}, "--rt-threads does not apply to validate"},
      {{"--writer-fifo", "explore", "--lock", "ticket"}, "--writer-fifo does not apply to explore"},
  };
  for (const auto& [args, says] : cases) {
    o = parse(args);
    BOOST_TEST(one_line_error(o), o.output);
    BOOST_TEST(o.output.find(says) != std::string::npos, o.output);
  }
  // Where it may not (an unprivileged user, no RLIMIT_RTPRIO): refused
  // before anything runs.
  if (geteuid() == 0 && std::filesystem::exists("/usr/bin/setpriv")) {
    test::ProcessResult r =
        test::run_rwstress("--lock xadd --readers 1 --writers 1 --rt-threads 1 --duration 100ms",
                           "ulimit -r 0; setpriv --reuid=65534 --regid=65534 --clear-groups "
                           "--inh-caps=-all --bounding-set=-all ");
    if (r.exit_code == 126 || r.exit_code == 127) {
      BOOST_TEST_MESSAGE("the binary is not reachable by an unprivileged user here: " << r.err);
    } else {
      BOOST_TEST(r.exit_code == 2, r.out << r.err);
      BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
      BOOST_TEST(r.err.find("SCHED_FIFO is not permitted") != std::string::npos, r.err);
      BOOST_TEST(r.out.empty(), r.out);
    }
  }
}

// The threads asked for run SCHED_FIFO (each reports the policy it found
// itself under), the others do not; and a real-time ticket-lock waiter that
// shares one CPU with a normal owner, which would keep that CPU for good,
// is taken off SCHED_FIFO by the guard now and then, so the run ends and
// says how often.
BOOST_AUTO_TEST_CASE(real_time_threads_run_sched_fifo_under_the_guard) {
  if (!test::may_use_sched_fifo()) {
    BOOST_TEST_MESSAGE("SCHED_FIFO is not permitted here; the refusal is tested above");
    return;
  }
  const std::string json = "/tmp/rwstress_rt_" + std::to_string(getpid()) + ".json";
  test::ProcessResult r = test::run_rwstress(
      "--lock pthread-rwlock --readers 2 --writers 1 --rt-threads 1 --duration 300ms --json " + json);
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  nlohmann::json doc = nlohmann::json::parse(test::slurp(json));
  const nlohmann::json& run = doc.at("runs").at(0);
  BOOST_TEST(run.at("verdict") == "PASS");
  BOOST_TEST(doc.at("config").at("rt_threads") == 1);
  const nlohmann::json& threads = run.at("per_thread");
  BOOST_REQUIRE(threads.size() == 3u);
  BOOST_TEST(!threads[0].at("rt").get<bool>());
  BOOST_TEST(!threads[1].at("rt").get<bool>());
  BOOST_TEST(threads[2].at("rt").get<bool>());
  BOOST_TEST(run.at("scenario").get<std::string>().find(" rt=1") != std::string::npos);
  bool noted = false;
  for (const auto& n : run.at("notes")) noted |= n.get<std::string>().find("real-time: thread 2 ran SCHED_FIFO") == 0;
  BOOST_TEST(noted, run.at("notes").dump());

  r = test::run_rwstress("--lock ticket --threads 2 --rt-threads 1 --cpus 0 --duration 1s --json " +
                         json);
  doc = nlohmann::json::parse(test::slurp(json));
  const nlohmann::json& spun = doc.at("runs").at(0);
  BOOST_TEST(spun.at("per_thread").at(1).at("rt").get<bool>());
  BOOST_TEST(!spun.at("per_thread").at(0).at("rt").get<bool>());
  BOOST_TEST(spun.at("per_thread").at(1).at("rt_throttled").get<std::uint64_t>() > 0u, spun.dump());
  BOOST_TEST(spun.at("per_thread").at(0).at("rt_throttled").get<std::uint64_t>() == 0u);
  BOOST_TEST(spun.at("reads").get<std::uint64_t>() + spun.at("writes").get<std::uint64_t>() > 0u);
  std::string guard_note;
  for (const auto& n : spun.at("notes"))
    if (n.get<std::string>().find("the guard put it to SCHED_OTHER") != std::string::npos) guard_note = n;
  BOOST_TEST(!guard_note.empty(), spun.at("notes").dump());
  std::remove(json.c_str());
}

// --nested-locks: the shapes it cannot apply to and the commands that do
// not read it are one line; a run of every family nests, says so in its
// scenario, its replay line and its JSON, and every correct lock passes.
BOOST_AUTO_TEST_CASE(nested_locks_parse_run_and_are_refused_in_one_line) {
  CliOutcome o = parse({"--lock", "xadd", "--readers", "2", "--writers", "1", "--nested-locks", "3"});
  BOOST_REQUIRE(o.action == CliAction::kRun);
  const Scenario sc = o.config.scenario_for(*o.config.locks.front());
  BOOST_TEST(sc.nested_locks == 3);
  BOOST_TEST(o.config.describe(sc.plan).find(" --nested-locks 3") != std::string::npos);
  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{"--nested-locks", "9"}, "--nested-locks"},
      {{"--nested-locks", "-1"}, "--nested-locks"},
      {{"--nested-locks", "two"}, "--nested-locks"},
      {{"--lock", "ticket", "--nested-locks", "2", "--no-check"}, "--no-check runs the bare loop"},
      {{"--lock", "xadd", "--readers", "2", "--writers", "0", "--nested-locks", "1"}, "no writer"},
      {{"--nested-locks", "1", "validate", "--lock", "xadd"}, "--nested-locks does not apply to validate"},
      {{"--nested-locks", "1", "explore", "--lock", "ticket"}, "--nested-locks does not apply to explore"},
  };
  for (const auto& [args, says] : cases) {
    o = parse(args);
    BOOST_TEST(one_line_error(o), o.output);
    BOOST_TEST(o.output.find(says) != std::string::npos, o.output);
  }
  const std::string json = "/tmp/rwstress_nested_" + std::to_string(getpid()) + ".json";
  test::ProcessResult r = test::run_rwstress(
      "--lock xadd,linux-rwsem,mcs,ticket,kernel-sem --readers 2 --writers 2 --threads 3 "
      "--nested-locks 4 --duration 200ms --json " + json);
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  nlohmann::json doc = nlohmann::json::parse(test::slurp(json));
  BOOST_TEST(doc.at("config").at("nested_locks") == 4);
  BOOST_REQUIRE(doc.at("runs").size() == 5u);
  for (const nlohmann::json& run : doc.at("runs")) {
    BOOST_TEST(run.at("verdict") == "PASS", run.at("lock"));
    BOOST_TEST(run.at("scenario").get<std::string>().find(" nested=4") != std::string::npos);
    const nlohmann::json& threads = run.at("per_thread");
    const bool rw = run.at("family") == "rwlock";
    for (std::size_t i = 0; i < threads.size(); ++i) {
      const bool takes = !rw || i >= 2;  // an rwlock's readers take none
      BOOST_TEST((threads[i].at("nested").get<std::uint64_t>() > 0) == takes,
                 run.at("lock") << " thread " << i);
    }
  }
  std::filesystem::remove(json);
}
