// rwstress fuzz: trials are drawn from the campaign seed and every one is a
// valid command line; a campaign over a busted lock finds it, reruns it and
// writes a shrunk reproducer that fails the same way; one over correct locks
// finds nothing; crashing and deadlocking plugin locks are CRASH and HANG
// trials and the campaign goes on; a campaign killed with SIGKILL resumes
// without losing or repeating a trial; shards are disjoint and their merge
// is the unsharded campaign; the shrinker reaches a known small
// configuration.
#define BOOST_TEST_MODULE fuzz
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "commands/fuzz.h"
#include "commands/fuzz_log.h"
#include "commands/fuzz_shrink.h"
#include "injectors/inject_spec.h"
#include "registry/registry.h"
#include "tests/test_support.h"

namespace rwstress::test {
namespace {

namespace fs = std::filesystem;

// A scratch directory, removed at the end of the test.
struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("rwstress_fuzz_" + std::to_string(getpid()));
  ScratchDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The trial lines of a campaign directory, by trial index.
std::map<std::uint64_t, nlohmann::json> trials_of(const std::string& dir) {
  std::map<std::uint64_t, nlohmann::json> trials;
  const std::vector<std::string> lines = lines_of(fs::path(dir) / "trials.jsonl");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    nlohmann::json j = nlohmann::json::parse(lines[i]);
    const std::uint64_t k = j["trial"];
    // Only an interrupted trial is run (and logged) again.
    BOOST_TEST((trials.count(k) == 0u || trials[k]["verdict"] == "INTERRUPTED"), "trial twice: " << lines[i]);
    trials[k] = j;
  }
  return trials;
}

std::string first_repro(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("repro-", 0) == 0) return e.path().string();
  return "";
}

BOOST_AUTO_TEST_CASE(the_menu_parses_and_every_trial_is_a_valid_command_line) {
  for (const std::string& spec : fuzz_inject_menu()) {
    std::string err;
    BOOST_TEST(parse_inject_spec(spec, &err).has_value(), spec << ": " << err);
  }
  CliOutcome campaign = parse_cli({"fuzz", "--seed", "0x5eed", "--trials", "1"});
  BOOST_REQUIRE(campaign.action == CliAction::kFuzz);
  BOOST_TEST(campaign.config.locks.size() > 30u);  // every correct lock by default
  std::set<std::string> knobs;
  std::size_t most_injectors = 0;
  int controlled = 0;
  std::map<std::string, int> turns;  // controlled trials per lock
  std::map<std::string, std::string> first_model;  // a lock's first controlled trial's --memory
  std::set<std::string> modelled;                  // locks some controlled trial ran under a model
  for (std::uint64_t k = 0; k < 400; ++k) {
    const FuzzTrial t = fuzz_trial(campaign.config, 4, k, {2, 3});
    BOOST_REQUIRE(t.argv.size() > 1u);
    const CliOutcome trial = parse_cli(std::vector<std::string>(t.argv.begin() + 1, t.argv.end()));
    // A quarter of the trials are controlled ones, of explorable locks
    // only; a library lock's trials are timed.
    const LockEntry* entry = find_lock(t.lock);
    BOOST_REQUIRE(entry != nullptr);
    const bool explorable = entry->explore != nullptr;
    if (trial.action == CliAction::kExplore) {
      ++controlled;
      ++turns[t.lock];
      const auto memory = std::find(t.argv.begin(), t.argv.end(), "--memory");
      if (memory != t.argv.end()) modelled.insert(t.lock);
      if (!first_model.count(t.lock))
        first_model[t.lock] = memory != t.argv.end() ? *(memory + 1) : "none";
      BOOST_TEST(explorable, shell_command(t.argv));
      BOOST_TEST((t.argv[1] == "explore"), shell_command(t.argv));
      continue;
    }
    BOOST_TEST((trial.action == CliAction::kRun), shell_command(t.argv) << ": " << trial.output);
    std::size_t injectors = 0;
    for (std::size_t i = 1; i + 1 < t.argv.size(); ++i) {
      if (t.argv[i] == "--inject") ++injectors;
      if (t.argv[i] == "--cpus")  // the slot's CPUs, the first ones
        BOOST_TEST((t.argv[i + 1] == "2" || t.argv[i + 1] == "2,3"), t.argv[i + 1]);
    }
    most_injectors = std::max(most_injectors, injectors);
  }
  BOOST_TEST(most_injectors == 4u);  // zero to four in all, spurious wake-ups among them
  BOOST_TEST(controlled == 100);
  // They go round the explorable locks: each lock has its turn once a
  // round, so no two locks' counts differ by more than one.
  std::size_t explorable_locks = 0;
  for (const LockMeta* m : campaign.config.locks) explorable_locks += find_lock(m->name)->explore != nullptr;
  BOOST_TEST(turns.size() == explorable_locks);
  const auto [fewest, most] = std::minmax_element(turns.begin(), turns.end(), [](const auto& a, const auto& b) {
    return a.second < b.second;
  });
  BOOST_TEST(most->second - fewest->second <= 1, most->first << " " << most->second << ", " << fewest->first
                                                               << " " << fewest->second);
  // The model goes by the lock's round: the first is c11 for every lock
  // the model follows.
  BOOST_TEST(modelled.size() > 10u);
  for (const std::string& lock : modelled) BOOST_TEST(first_model[lock] == "c11", lock);
  // --explore-share 0: none; and controlled trials are additions: the
  // timed ones are the share-0 campaign's, in its order.
  CliOutcome timed = parse_cli({"fuzz", "--seed", "0x5eed", "--trials", "1", "--explore-share", "0"});
  BOOST_REQUIRE(timed.action == CliAction::kFuzz);
  std::uint64_t j = 0;
  for (std::uint64_t k = 0; k < 200; ++k) {
    const FuzzTrial t = fuzz_trial(timed.config, 4, k, {2, 3});
    BOOST_TEST((t.argv[1] != "explore"), shell_command(t.argv));
    const FuzzTrial with = fuzz_trial(campaign.config, 4, k, {2, 3});
    if (with.argv[1] == "explore") continue;
    BOOST_TEST((with.argv == fuzz_trial(timed.config, 4, j++, {2, 3}).argv), shell_command(with.argv));
  }
  BOOST_TEST(j == 150u);  // a quarter of 200 were controlled
  // Every drawn knob, from its one declaration, for the locks that read it.
  CliOutcome tuned = parse_cli({"fuzz", "--seed", "0x5eed", "--lock", "linux-rwsem,xadd"});
  BOOST_REQUIRE(tuned.action == CliAction::kFuzz);
  for (std::uint64_t k = 0; k < 200; ++k) {
    const FuzzTrial t = fuzz_trial(tuned.config, 2, k, {0, 1});
    const CliOutcome trial = parse_cli(std::vector<std::string>(t.argv.begin() + 1, t.argv.end()));
    BOOST_TEST((trial.action == CliAction::kRun || trial.action == CliAction::kExplore),
               shell_command(t.argv) << ": " << trial.output);
    for (const std::string& word : t.argv) {
      if (word == "--spin-limit" || word == "--rwsem-handoff" || word == "--rwsem-reader-steal" ||
          word == "--xadd-wake")
        knobs.insert(word);
      BOOST_TEST(word != "--xadd-retry");  // a historical bug's setting is not drawn
    }
  }
  BOOST_TEST(knobs.size() == 4u);
  // A lock on the kernel-compat layer also draws the injectors only it has
  // points for (a signal, need_resched); another lock never does.
  CliOutcome kernel = parse_cli({"--plugin", test::plugin("kernel_semaphore"), "fuzz", "--seed",
                                 "0x5eed", "--lock", "kernel-semaphore,xadd"});
  BOOST_REQUIRE(kernel.action == CliAction::kFuzz);
  int layer_signal = 0, layer_resched = 0, other_signal_or_resched = 0;
  for (std::uint64_t k = 0; k < 200; ++k) {
    const FuzzTrial t = fuzz_trial(kernel.config, 2, k, {0, 1});
    for (const std::string& word : t.argv) {
      const bool signal = word.rfind("signal:", 0) == 0, resched = word.rfind("resched:", 0) == 0;
      if (t.lock == "kernel-semaphore") {
        layer_signal += signal;
        layer_resched += resched;
      } else {
        other_signal_or_resched += signal || resched;
      }
    }
  }
  BOOST_TEST(layer_signal > 0);
  BOOST_TEST(layer_resched > 0);
  BOOST_TEST(other_signal_or_resched == 0);
  // The same seed gives the same trials; another seed, others.
  BOOST_TEST(fuzz_trial(campaign.config, 2, 7, {0, 1}).argv ==
             fuzz_trial(campaign.config, 2, 7, {0, 1}).argv);
  CliOutcome other = parse_cli({"fuzz", "--seed", "0x5eee", "--trials", "1"});
  BOOST_REQUIRE(other.action == CliAction::kFuzz);
  BOOST_TEST(fuzz_trial(campaign.config, 2, 7, {0, 1}).argv != fuzz_trial(other.config, 2, 7, {0, 1}).argv);
  // Job slots are disjoint runs of the campaign's CPUs.
  const std::vector<std::vector<int>> slots = fuzz_slots({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 3);
  BOOST_TEST(slots.size() == 3u);
  BOOST_TEST((slots[0] == std::vector<int>{0, 1, 2, 3}));
  BOOST_TEST((slots[2] == std::vector<int>{7, 8, 9}));
  BOOST_TEST(fuzz_slots({0, 1}, 8).size() == 2u);
}

BOOST_AUTO_TEST_CASE(bad_fuzz_options_are_one_line_and_exit_2) {
  for (const char* args : {"fuzz --shard 3/3", "fuzz --shard x", "fuzz --trial-memory 12Q",
                           "fuzz --jobs 0", "fuzz --reproduce -1", "fuzz --resume /nonexistent",
                           "fuzz merge /nonexistent",
                           // A summary that cannot be written is said before the first trial,
                           // not after the campaign.
                           "fuzz --trials 1000 --json /nonexistent/s.json",
                           "fuzz --trials 1000 --junit /nonexistent/s.xml",
                           // Non-finite and out-of-range shares; a share of locks none of
                           // which can be explored; a campaign option with --resume.
                           "fuzz --explore-share nan", "fuzz --explore-share inf",
                           "fuzz --explore-share -0.5", "fuzz --lock pthread-rwlock --explore-share 1",
                           "fuzz --resume /nonexistent --explore-share 0.5"}) {
    ProcessResult r = run_rwstress(args);
    BOOST_TEST(r.exit_code == 2, args << ": " << r.out << r.err);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, args << ": " << r.err);
    BOOST_TEST(r.out.find("trials in") == std::string::npos, args << ": ran trials");
  }
}

BOOST_AUTO_TEST_CASE(dry_run_prints_the_same_trials_for_the_same_seed) {
  ProcessResult a = run_rwstress("fuzz --dry-run 5 --seed 9 --lock xadd,ticket,kernel-sem");
  ProcessResult b = run_rwstress("fuzz --dry-run 5 --seed 9 --lock xadd,ticket,kernel-sem");
  BOOST_TEST(a.exit_code == 0, a.err);
  BOOST_TEST(a.out == b.out);
  BOOST_TEST(std::count(a.out.begin(), a.out.end(), '\n') == 5);
  BOOST_TEST(a.out.rfind("rwstress --lock ", 0) == 0u, a.out);
}

// The finding is rerun, shrunk, and its reproducer script runs the shrunk
// command line, which fails again.
BOOST_AUTO_TEST_CASE(a_busted_lock_is_a_finding_with_a_shrunk_reproducer_that_fails_again) {
  ScratchDir dir;
  ProcessResult r = run_rwstress("fuzz --trials 10 --seed 1 --lock busted-racy-tas --trial-time 200ms"
                                 " --explore-share 0 --reproduce 5 --shrink-time 20s --out " +
                                 dir.path.string() +
                                 " --json " + (dir / "summary.json") + " --junit " + (dir / "junit.xml"));
  BOOST_TEST(r.exit_code == 1, r.out + r.err);
  BOOST_TEST(r.out.find("busted-racy-tas FAIL [writer-exclusion") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("  reproduced: ") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("  shrunk (") != std::string::npos, r.out);
  const std::vector<std::string> log = lines_of(dir.path / "trials.jsonl");
  for (const std::string& line : log) BOOST_TEST(nlohmann::json::accept(line), line);
  BOOST_TEST(log.size() == 11u);  // the header and one line per trial
  const std::vector<std::string> checks = lines_of(dir.path / "findings.jsonl");
  BOOST_REQUIRE(checks.size() == 1u);
  const FindingCheck c = check_from_json(nlohmann::json::parse(checks[0]));
  BOOST_TEST(c.runs == 5);
  BOOST_TEST(c.reproduced >= 1);
  BOOST_TEST(!c.shrunk.empty());
  BOOST_TEST(shell_command(c.shrunk).find("--inject") == std::string::npos, shell_command(c.shrunk));
  const std::string repro = first_repro(dir.path);
  BOOST_REQUIRE(!repro.empty());
  BOOST_TEST(repro == dir / ("repro-" + c.id + ".sh"));
  std::string script;
  for (const std::string& line : lines_of(repro)) script += line + "\n";
  BOOST_TEST(script.find("exec ") != std::string::npos);
  // It execs the shrunk command line when that failed again as often as the
  // drawn one did, else the drawn one.
  const std::string shrunk_args =
      shell_command(std::vector<std::string>(c.shrunk.begin() + 1, c.shrunk.end())) + "\n";
  const std::string exec_line = script.substr(script.find("\nexec ") + 1);
  if (c.shrunk_reproduced > 0 && c.shrunk_reproduced * c.runs >= c.reproduced * c.shrunk_runs)
    BOOST_TEST(exec_line.find(shrunk_args) != std::string::npos, script);
  else
    BOOST_TEST(exec_line.find(shrunk_args) == std::string::npos, script);
  // A data race: the reproducer fails in at least one of three runs.
  bool failed_again = false;
  for (int i = 0; i < 3 && !failed_again; ++i) {
    const int status = std::system(("sh " + repro + " >/dev/null 2>&1").c_str());
    failed_again = WIFEXITED(status) && WEXITSTATUS(status) == 1;
  }
  BOOST_TEST(failed_again);
  // The summary for CI systems: JSON, and JUnit with one failing test case per finding.
  std::ifstream json_in(dir / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(json_in);
  BOOST_TEST(summary["trials"] == 10);
  BOOST_TEST(summary["findings"].size() == 1u);
  BOOST_TEST(summary["findings"][0]["check"]["finding"] == c.id);
  std::string junit;
  for (const std::string& line : lines_of(dir / "junit.xml")) junit += line + "\n";
  BOOST_TEST(junit.find("failures=\"1\"") != std::string::npos, junit);
  BOOST_TEST(junit.find("<failure message=\"FAIL busted-racy-tas") != std::string::npos, junit);
  // An --out that holds a campaign already is refused, not overwritten.
  ProcessResult again = run_rwstress("fuzz --trials 1 --lock ticket --out " + dir.path.string());
  BOOST_TEST(again.exit_code == 2);
  BOOST_TEST(again.err.find("a campaign is there already") != std::string::npos, again.err);
}

// Controlled trials (rwstress explore): deterministic, so every rerun of
// a finding fails again; the shrinker takes operations and PCT depth off,
// and the reproducer prints the failing schedule's replay line.
BOOST_AUTO_TEST_CASE(controlled_trials_find_a_busted_lock_and_fail_on_every_rerun) {
  ScratchDir dir;
  ProcessResult r = run_rwstress("fuzz --trials 6 --seed 2 --lock busted-racy-tas --explore-share 1"
                                 " --reproduce 3 --shrink-time 20s --out " + dir.path.string());
  BOOST_TEST(r.exit_code == 1, r.out + r.err);
  BOOST_TEST(r.out.find("busted-racy-tas FAIL [writer-exclusion") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("reproduce: rwstress explore --lock busted-racy-tas") != std::string::npos,
             r.out);
  // Two findings: the exclusion one, and one under the memory model
  // (a model in six of every eight rounds; at seed 2 the exclusion
  // trials ran without one): a thread that read the
  // lock free before the other's hold took it after, unordered (racy-tas
  // takes the lock with a load and a store: an ordering FAIL, true).
  BOOST_TEST(r.out.find("busted-racy-tas FAIL [ordering]") != std::string::npos, r.out);
  const std::vector<std::string> checks = lines_of(dir.path / "findings.jsonl");
  BOOST_REQUIRE(checks.size() == 2u);
  for (const std::string& line : checks) {
    const FindingCheck c = check_from_json(nlohmann::json::parse(line));
    BOOST_TEST(c.reproduced == 3);
    BOOST_REQUIRE(!c.shrunk.empty());
    BOOST_TEST(c.shrunk_reproduced == 3);
    const std::string shrunk = shell_command(c.shrunk);
    ProcessResult again = run_rwstress(
        shell_command(std::vector<std::string>(c.shrunk.begin() + 1, c.shrunk.end())));
    BOOST_TEST(again.exit_code == 1, again.out + again.err);
    BOOST_TEST(again.out.find("  replay: rwstress explore --lock busted-racy-tas") != std::string::npos,
               again.out);
    if (shrunk.find("--memory c11") != std::string::npos)
      BOOST_TEST(shrunk.find("--ops 1") != std::string::npos, shrunk);
  }
}

// A failure that always comes (no mutual exclusion at all), from a large
// configuration: the shrinker must get it down to two threads, no
// injectors, no --sched and no critical-section work.
BOOST_AUTO_TEST_CASE(the_shrinker_reaches_a_known_small_configuration) {
  const char* bin = std::getenv("RWSTRESS_BIN");
  BOOST_REQUIRE(bin != nullptr);
  TrialRecord trial;
  trial.lock = "busted-noop";
  trial.verdict = "FAIL";
  trial.kinds = {"trylock-truth", "downgrade"};  // what busted-noop shows
  trial.argv = {"rwstress", "--lock", "busted-noop", "--readers", "6", "--writers", "4", "--sched",
                "--duration", "400ms", "--cpus", "0", "--placement", "scatter", "--cs-read", "3000",
                "--cs-write", "2000", "--delay", "700", "--try-every", "4",
                "--inject", "yield@in-cs:p=0.01", "--inject", "shuffle:every=100ms",
                "--watchdog", "2s", "--seed", "0x1234"};
  TrialLimits limits;
  limits.wall = std::chrono::seconds(20);
  ShrinkOptions options;
  options.reruns = 3;
  options.budget = std::chrono::seconds(60);
  const FindingCheck c = check_finding(bin, trial, limits, options, [](const std::string&) {});
  BOOST_TEST(c.reproduced == 3);
  BOOST_TEST(c.shrink_finished);
  const std::string shrunk = shell_command(c.shrunk);
  for (const char* gone : {"--inject", "--sched", "--try-every", "scatter"})
    BOOST_TEST(shrunk.find(gone) == std::string::npos, shrunk);
  for (const char* small : {"--duration 100ms", "--cs-read 0", "--cs-write 0", "--delay 0"})
    BOOST_TEST(shrunk.find(small) != std::string::npos, shrunk);
  const auto at = [&](const std::string& flag) {
    for (std::size_t i = 0; i + 1 < c.shrunk.size(); ++i)
      if (c.shrunk[i] == flag) return std::stoi(c.shrunk[i + 1]);
    return -1;
  };
  BOOST_TEST(at("--readers") + at("--writers") <= 2, shrunk);
  BOOST_TEST(c.shrunk_reproduced >= 1);
}

BOOST_AUTO_TEST_CASE(correct_locks_give_no_finding) {
  ProcessResult r = run_rwstress("fuzz --trials 8 --seed 3 --lock ticket,xadd,kernel-sem,qrwlock"
                                 " --trial-time 200ms");
  BOOST_TEST(r.exit_code == 0, r.out + r.err);
  BOOST_TEST(r.out.find("8 trials in") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("0 finding(s)") != std::string::npos, r.out);
}

// The trial's command line carries --plugin; the crash and the deadlock are
// the trials', the campaign goes on to the next trial.
BOOST_AUTO_TEST_CASE(crashing_and_deadlocking_locks_are_crash_and_hang_trials_and_the_campaign_goes_on) {
  ProcessResult r = run_rwstress("--plugin " + plugin("crashing_plugin") +
                                 " fuzz --trials 4 --seed 4 --lock crash-segv,deadlock-200"
                                 " --trial-time 300ms --reproduce 1 --shrink-time 0");
  BOOST_TEST(r.exit_code == 4, r.out + r.err);
  BOOST_TEST(r.out.find("4 trials in") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("crash-segv CRASH (SIGSEGV)") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("deadlock-200 HANG") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("reproduce: rwstress --plugin " + plugin("crashing_plugin")) !=
                 std::string::npos,
             r.out);
  BOOST_TEST(r.out.find("reproduced: 1 of 1 reruns") != std::string::npos, r.out);
}

// kill -9 of the campaign mid-trial, plus a torn last line: --resume drops
// the torn line (and says so), keeps every completed trial as it was, and
// runs exactly the rest.
BOOST_AUTO_TEST_CASE(a_campaign_killed_with_sigkill_resumes_without_losing_or_repeating_a_trial) {
  ScratchDir dir;
  const std::string bin = std::getenv("RWSTRESS_BIN");
  const std::string cmd = bin + " fuzz --trials 40 --seed 6 --lock ticket,tas --trial-time 150ms"
                          " --reproduce 0 --out " + dir.path.string() + " >/dev/null 2>&1 & pid=$!;"
                          " sleep 2.5; kill -9 $pid; wait $pid; true";
  BOOST_REQUIRE(std::system(cmd.c_str()) == 0);
  std::vector<std::string> before = lines_of(dir.path / "trials.jsonl");
  BOOST_REQUIRE(before.size() >= 2u);
  BOOST_REQUIRE(before.size() < 41u);  // killed before the end
  for (const std::string& line : before) BOOST_TEST(nlohmann::json::accept(line), line);
  {
    std::ofstream torn(dir.path / "trials.jsonl", std::ios::app);
    torn << R"({"trial": 39, "seed": 1, "verd)";
  }
  ProcessResult r = run_rwstress("fuzz --resume " + dir.path.string());
  BOOST_TEST(r.exit_code == 0, r.out + r.err);
  BOOST_TEST(r.out.find("dropped a torn last line") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("resumed after " + std::to_string(before.size() - 1) + " trial(s)") !=
                 std::string::npos,
             r.out);
  const std::vector<std::string> after = lines_of(dir.path / "trials.jsonl");
  BOOST_REQUIRE(after.size() == 41u);
  for (std::size_t i = 0; i < before.size(); ++i) BOOST_TEST(after[i] == before[i]);
  const auto trials = trials_of(dir.path.string());
  BOOST_TEST(trials.size() == 40u);
  BOOST_TEST(trials.rbegin()->first == 39u);
  // A finished campaign resumed runs nothing.
  ProcessResult done = run_rwstress("fuzz --resume " + dir.path.string());
  BOOST_TEST(done.exit_code == 0, done.out + done.err);
  BOOST_TEST(lines_of(dir.path / "trials.jsonl").size() == 41u);
  // A corrupt line before the last is not a torn write: one line, exit 2.
  {
    std::vector<std::string> lines = after;
    lines[3] = "{not json";
    std::ofstream out(dir.path / "trials.jsonl", std::ios::trunc);
    for (const std::string& line : lines) out << line << "\n";
  }
  ProcessResult corrupt = run_rwstress("fuzz merge " + dir.path.string());
  BOOST_TEST(corrupt.exit_code == 2);
  BOOST_TEST(corrupt.err.find("line 4 is not a campaign record") != std::string::npos, corrupt.err);
}

// Three shards of one seed run disjoint trials whose union is the
// unsharded campaign, trial for trial; their merge has the same table and
// the same findings. (The locks give the same verdict every time: a correct
// lock, and one that crashes on its 200th acquisition.)
BOOST_AUTO_TEST_CASE(shards_are_disjoint_and_their_merge_equals_the_unsharded_campaign) {
  ScratchDir dir;
  const std::string common = "--plugin " + plugin("crashing_plugin") +
                             " fuzz --trials 9 --seed 7 --lock ticket,crash-segv --trial-time 300ms"
                             " --reproduce 0";
  ProcessResult whole = run_rwstress(common + " --out " + (dir / "whole") + " --json " + (dir / "whole.json"));
  BOOST_TEST(whole.exit_code == 4, whole.out + whole.err);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 3; ++i) {
    const std::string shard = dir / ("shard" + std::to_string(i));
    ProcessResult r = run_rwstress(common + " --shard " + std::to_string(i) + "/3 --out " + shard);
    BOOST_TEST((r.exit_code == 0 || r.exit_code == 4), r.out + r.err);
    for (const auto& [k, trial] : trials_of(shard)) {
      BOOST_TEST(k % 3 == std::uint64_t(i));
      BOOST_TEST(seen.insert(k).second, "trial " << k << " in two shards");
    }
  }
  ProcessResult merged = run_rwstress("fuzz merge " + (dir / "shard0") + " " + (dir / "shard1") + " " +
                                      (dir / "shard2") + " --json " + (dir / "merged.json"));
  BOOST_TEST(merged.exit_code == 4, merged.out + merged.err);
  const auto all = trials_of(dir / "whole");
  BOOST_TEST(all.size() == 9u);
  BOOST_TEST(seen.size() == 9u);
  for (int i = 0; i < 3; ++i)
    for (const auto& [k, trial] : trials_of(dir / ("shard" + std::to_string(i)))) {
      BOOST_TEST(trial["argv"] == all.at(k)["argv"], "trial " << k);
      BOOST_TEST(trial["verdict"] == all.at(k)["verdict"], "trial " << k);
    }
  std::ifstream a_in(dir / "whole.json"), b_in(dir / "merged.json");
  const nlohmann::json a = nlohmann::json::parse(a_in), b = nlohmann::json::parse(b_in);
  BOOST_TEST(a["table"] == b["table"], a["table"].dump() << " vs " << b["table"].dump());
  BOOST_TEST(a["trials"] == b["trials"]);
  BOOST_REQUIRE(a["findings"].size() == b["findings"].size());
  for (std::size_t i = 0; i < a["findings"].size(); ++i)
    for (const char* key : {"id", "lock", "verdict", "trials", "first_trial", "command"})
      BOOST_TEST(a["findings"][i][key] == b["findings"][i][key], key);
  // The same shard twice is refused; so is another campaign's log.
  ProcessResult twice = run_rwstress("fuzz merge " + (dir / "shard0") + " " + (dir / "shard0"));
  BOOST_TEST(twice.exit_code == 2);
  BOOST_TEST(twice.err.find("in both") != std::string::npos, twice.err);
  ProcessResult other = run_rwstress("fuzz --trials 1 --seed 8 --lock ticket --reproduce 0 --out " + (dir / "other"));
  BOOST_TEST(other.exit_code == 0, other.out + other.err);
  ProcessResult mixed = run_rwstress("fuzz merge " + (dir / "shard0") + " " + (dir / "other"));
  BOOST_TEST(mixed.exit_code == 2);
  BOOST_TEST(mixed.err.find("another campaign") != std::string::npos, mixed.err);
}

// --jobs 2 on a 2-CPU machine: two trials at once, each on its own CPU.
// On a terminal the status line is redrawn in place.
BOOST_AUTO_TEST_CASE(jobs_run_trials_side_by_side_on_disjoint_cpus_and_a_terminal_gets_a_status_line) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) return;
  ScratchDir dir;
  const std::string bin = std::getenv("RWSTRESS_BIN");
  const std::string cmd = "script -qec '" + bin + " fuzz --trials 8 --jobs 2 --seed 11 --lock ticket,xadd"
                          " --trial-time 600ms --explore-share 0 --reproduce 0 --out " + (dir / "c") + "' /dev/null > " +
                          (dir / "tty.txt") + " 2>&1";
  BOOST_REQUIRE(std::system(cmd.c_str()) == 0);
  std::set<std::string> cpus;
  for (const auto& [k, trial] : trials_of(dir / "c")) {
    const std::vector<std::string> argv = trial["argv"];
    const auto at = std::find(argv.begin(), argv.end(), "--cpus");
    BOOST_REQUIRE(at != argv.end());
    cpus.insert(at[1]);
  }
  BOOST_TEST((cpus == std::set<std::string>{"0", "1"}));  // one CPU each, both used
  std::string tty;
  for (const std::string& line : lines_of(dir / "tty.txt")) tty += line + "\n";
  BOOST_TEST(tty.find("\r\033[K") != std::string::npos, tty);
  BOOST_TEST(tty.find(" trials (") != std::string::npos, tty);
  BOOST_TEST(tty.find("ETA") != std::string::npos, tty);
}

// SIGINT ends the running trial (recorded as interrupted), prints the
// summary and exits 128 + 2; every line of the log parses. --foreground:
// otherwise timeout signals its whole process group as well, and a second
// SIGINT kills at once, by design.
BOOST_AUTO_TEST_CASE(sigint_stops_the_campaign_cleanly) {
  ScratchDir dir;
  const std::string json = dir / "summary.json", xml = dir / "summary.xml";
  const std::string out = (dir.path / "camp").string();
  ProcessResult r = run_rwstress("fuzz --trials 50 --seed 5 --lock ticket,xadd --trial-time 500ms"
                                 " --out " + out + " --json " + json + " --junit " + xml,
                                 "timeout --foreground --preserve-status -s INT 2 ");
  BOOST_TEST(r.exit_code == 130, r.out + r.err);
  // The summaries say the campaign was cut short: not complete, trials
  // owed, and an error case that keeps the JUnit suite from going green.
  nlohmann::json doc = nlohmann::json::parse(slurp(json));
  BOOST_TEST(doc["complete"] == false);
  BOOST_TEST(doc["interrupted_by"] == "SIGINT");
  BOOST_TEST(doc["trials_owed"].get<std::uint64_t>() > 0u);
  const std::string junit = slurp(xml);
  BOOST_TEST(junit.find("type=\"INCOMPLETE\"") != std::string::npos, junit);
  BOOST_TEST(junit.find("errors=\"1\"") != std::string::npos, junit);
  BOOST_TEST(r.out.find("campaign incomplete: interrupted by SIGINT") != std::string::npos, r.out);
  dir.path = out;  // the campaign's own directory from here on
  BOOST_TEST(r.out.find("interrupted by SIGINT after") != std::string::npos, r.out);
  const std::vector<std::string> log = lines_of(dir.path / "trials.jsonl");
  for (const std::string& line : log) BOOST_TEST(nlohmann::json::accept(line), line);
  BOOST_TEST(log.size() >= 2u);
  BOOST_TEST(log.back().find("\"verdict\":\"INTERRUPTED\"") != std::string::npos, log.back());
  // The interrupted trial is run again on --resume (it never completed).
  const std::uint64_t interrupted = nlohmann::json::parse(log.back())["trial"];
  ProcessResult resumed = run_rwstress("fuzz --resume " + dir.path.string(),
                                       "timeout --foreground --preserve-status -s INT 3 ");
  const auto trials = trials_of(dir.path.string());
  BOOST_TEST(trials.count(interrupted) == 1u);
  dir.path = fs::path(out).parent_path();
}

// A resumed campaign that runs every trial it owed is complete, with no
// interrupted trial left in its count.
BOOST_AUTO_TEST_CASE(a_complete_resume_owes_nothing) {
  ScratchDir dir;
  const std::string out = dir / "camp", json = dir / "s.json";
  ProcessResult r = run_rwstress("fuzz --trials 6 --seed 9 --lock ticket --trial-time 300ms --out " + out,
                                 "timeout --foreground --preserve-status -s INT 1.2 ");
  BOOST_TEST(r.exit_code == 130, r.out + r.err);
  ProcessResult resumed = run_rwstress("fuzz --resume " + out + " --json " + json);
  BOOST_TEST(resumed.exit_code == 0, resumed.out + resumed.err);
  nlohmann::json doc = nlohmann::json::parse(slurp(json));
  BOOST_TEST(doc["complete"] == true);
  BOOST_TEST(doc["interrupted"] == 0);
  BOOST_TEST(doc["trials_owed"] == 0);
  BOOST_TEST(doc["trials"] == 6);
}

// --time is the whole campaign's budget: the reruns and shrinking of its
// findings included.
BOOST_AUTO_TEST_CASE(time_bounds_the_campaign_reproduction_and_shrinking_included) {
  ScratchDir dir;
  const auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_rwstress("fuzz --time 6s --seed 3 --lock busted-noop,busted-racy-tas,busted-lying-trylock "
                                 "--trial-time 200ms --reproduce 3 --shrink-time 60s --json " + (dir / "s.json"));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  BOOST_TEST(r.exit_code == 1, r.out + r.err);
  BOOST_TEST(took < 6 + 4.0, "took " << took << "s:\n" << r.out);  // a trial's length of slack, and startup
  nlohmann::json doc = nlohmann::json::parse(slurp(dir / "s.json"));
  BOOST_TEST(doc["findings"].size() >= 1u);
  BOOST_TEST(doc["complete"] == true);
}

// A reproducer names its plugin absolutely: it runs from any directory.
BOOST_AUTO_TEST_CASE(a_reproducer_names_a_relative_plugin_absolutely) {
  ScratchDir dir;
  fs::copy_file(plugin("crashing_plugin"), dir.path / "crash.so");
  ProcessResult r = run_rwstress("--plugin ./crash.so fuzz --lock crash-segv --trials 1 "
                                 "--trial-time 200ms --reproduce 0 --out camp",
                                 "cd " + dir.path.string() + " && ");
  BOOST_TEST(r.exit_code == 4, r.out + r.err);
  const std::string script = slurp(first_repro(dir.path / "camp"));
  BOOST_TEST(script.find("--plugin " + (dir.path / "crash.so").string()) != std::string::npos, script);
}

// Lines no campaign of this header could have written are corruption: one
// line and exit 2, for --resume and for merge, never a finding or a count.
BOOST_AUTO_TEST_CASE(resume_and_merge_refuse_lines_the_campaign_did_not_write) {
  ScratchDir dir;
  const std::string good = dir / "good", other = dir / "other";
  ProcessResult a = run_rwstress("fuzz --trials 3 --seed 11 --lock ticket,xadd --trial-time 100ms --out " + good);
  BOOST_REQUIRE(a.exit_code == 0);
  ProcessResult b = run_rwstress("fuzz --trials 3 --seed 12 --lock ticket,xadd --trial-time 100ms --out " + other);
  BOOST_REQUIRE(b.exit_code == 0);
  const std::vector<std::string> lines = lines_of(fs::path(good) / "trials.jsonl");
  const std::vector<std::string> foreign = lines_of(fs::path(other) / "trials.jsonl");
  BOOST_REQUIRE(lines.size() == 4u);
  auto edited = [&](const std::string& key, const nlohmann::json& value) {
    nlohmann::json j = nlohmann::json::parse(lines[1]);
    j[key] = value;
    return j.dump();
  };
  nlohmann::json header = nlohmann::json::parse(lines[0]);
  header["shard_count"] = 0;
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"a line of another campaign", {lines[0], foreign[1]}},
      {"index 99999", {lines[0], edited("trial", 99999)}},
      {"index -3", {lines[0], edited("trial", -3)}},
      {"index 1e308", {lines[0], edited("trial", 1e308)}},
      {"a duplicate line", {lines[0], lines[1], lines[1]}},
      {"shard_count 0", {header.dump(), lines[1]}},
      {"verdict BOGUS", {lines[0], edited("verdict", "BOGUS")}},
      {"a lock not in the set", {lines[0], edited("lock", "mcs")}},
      // A line that disagrees with itself: a PASS edited to HANG (exit 0,
      // "-> PASS"), an exit code edited, a last line edited, a signal on a
      // PASS, violations on a PASS.
      {"HANG with exit 0", {lines[0], edited("verdict", "HANG")}},
      {"PASS with exit 3", {lines[0], edited("exit_code", 3)}},
      {"PASS saying -> FAIL", {lines[0], edited("last_line", "rwstress --lock xadd -> FAIL")}},
      {"PASS with a signal", {lines[0], edited("signal", "SIGSEGV")}},
      {"PASS with violations", {lines[0], edited("violations", nlohmann::json::array({"writer-exclusion"}))}},
      // No header: a trial's line first (it has an argv too).
      {"no header", {lines[1], lines[2]}},
  };
  int n = 0;
  for (const auto& [what, content] : cases) {
    const std::string bad = dir / ("bad" + std::to_string(n++));
    fs::create_directories(bad);
    std::ofstream out(fs::path(bad) / "trials.jsonl");
    for (const std::string& line : content) out << line << "\n";
    out.close();
    ProcessResult r = run_rwstress("fuzz --resume " + bad);
    BOOST_TEST(r.exit_code == 2, what << ": " << r.out << r.err);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, what << ": " << r.err);
    if (what.find("exit") != std::string::npos || what.find("PASS") != std::string::npos)
      BOOST_TEST(r.err.find("disagrees with itself") != std::string::npos, what << ": " << r.err);
    if (what == "no header")
      BOOST_TEST(r.err.find("no campaign header") != std::string::npos, what << ": " << r.err);
    BOOST_TEST(r.err.find("not expected") == std::string::npos, what << ": " << r.err);
    BOOST_TEST(r.out.find("finding") == std::string::npos, what << ": " << r.out);
    if (what == "a line of another campaign") continue;  // merge cannot redraw a campaign
    ProcessResult m = run_rwstress("fuzz merge " + good + " " + bad);
    BOOST_TEST(m.exit_code == 2, what << " (merge): " << m.out << m.err);
  }
}

// The header stores the campaign's identity; resuming re-reads it and
// must find the same campaign for every value it can hold (a NaN share
// once wrote null and could never be resumed). A campaign with every
// stored field away from its default resumes; lines of text read back are
// shown escaped and cut.
BOOST_AUTO_TEST_CASE(a_campaign_header_round_trips_every_value_it_stores) {
  ScratchDir dir;
  const std::string camp = dir / "odd";
  ProcessResult a = run_rwstress("fuzz --trials 5 --seed 0xfffffffffffffff1 --lock xadd,ticket "
                                 "--trial-time 130ms --explore-share 0.1234567890123 --shard 1/3 "
                                 "--out " + camp);
  BOOST_REQUIRE(a.exit_code == 0);
  const nlohmann::json header = nlohmann::json::parse(lines_of(fs::path(camp) / "trials.jsonl")[0]);
  BOOST_TEST(nlohmann::json::parse(header.dump()) == header);
  BOOST_TEST(header["campaign"]["explore_share"].get<double>() == 0.1234567890123);
  BOOST_TEST(header["campaign"]["seed"].get<std::uint64_t>() == 0xfffffffffffffff1ULL);
  BOOST_TEST(header["campaign"]["trial_time"] == "130ms");
  BOOST_TEST(header["shard_index"] == 1);
  BOOST_TEST(header["shard_count"] == 3);
  ProcessResult again = run_rwstress("fuzz --resume " + camp);
  BOOST_TEST(again.exit_code == 0, again.out << again.err);
  BOOST_TEST(again.err.find("another campaign") == std::string::npos, again.err);
}

}  // namespace
}  // namespace rwstress::test
