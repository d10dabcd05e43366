// rwstress fuzz: trials are drawn from the campaign seed and every one is a
// valid command line; a campaign over a busted lock finds it and writes a
// reproducer that fails the same way; one over correct locks finds nothing;
// a crashing plugin lock is a CRASH trial and the campaign goes on; the log
// is one JSON object per line.
#define BOOST_TEST_MODULE fuzz
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "commands/fuzz.h"
#include "injectors/inject_spec.h"
#include "registry/registry.h"
#include "tests/test_support.h"

namespace rwstress::test {
namespace {

namespace fs = std::filesystem;

// A scratch directory, removed at the end of the test.
struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("rwstress_fuzz_" + std::to_string(getpid()));
  ScratchDir() { fs::remove_all(path); }
  ~ScratchDir() { fs::remove_all(path); }
};

BOOST_AUTO_TEST_CASE(the_menu_parses_and_every_trial_is_a_valid_command_line) {
  for (const std::string& spec : fuzz_inject_menu()) {
    std::string err;
    BOOST_TEST(parse_inject_spec(spec, &err).has_value(), spec << ": " << err);
  }
  CliOutcome campaign = parse_cli({"fuzz", "--seed", "0x5eed", "--trials", "1"});
  BOOST_REQUIRE(campaign.action == CliAction::kFuzz);
  BOOST_TEST(campaign.config.locks.size() > 30u);  // every correct lock by default
  for (std::uint64_t k = 0; k < 300; ++k) {
    const FuzzTrial t = fuzz_trial(campaign.config, 2, k);
    BOOST_REQUIRE(t.argv.size() > 1u);
    const CliOutcome trial = parse_cli(std::vector<std::string>(t.argv.begin() + 1, t.argv.end()));
    BOOST_TEST((trial.action == CliAction::kRun), shell_command(t.argv) << ": " << trial.output);
  }
  // The same seed gives the same trials; another seed, others.
  BOOST_TEST(fuzz_trial(campaign.config, 2, 7).argv == fuzz_trial(campaign.config, 2, 7).argv);
  CliOutcome other = parse_cli({"fuzz", "--seed", "0x5eee", "--trials", "1"});
  BOOST_REQUIRE(other.action == CliAction::kFuzz);
  BOOST_TEST(fuzz_trial(campaign.config, 2, 7).argv != fuzz_trial(other.config, 2, 7).argv);
}

BOOST_AUTO_TEST_CASE(dry_run_prints_the_same_trials_for_the_same_seed) {
  ProcessResult a = run_rwstress("fuzz --dry-run 5 --seed 9 --lock xadd,ticket,kernel-sem");
  ProcessResult b = run_rwstress("fuzz --dry-run 5 --seed 9 --lock xadd,ticket,kernel-sem");
  BOOST_TEST(a.exit_code == 0, a.err);
  BOOST_TEST(a.out == b.out);
  int lines = 0;
  for (char c : a.out) lines += c == '\n';
  BOOST_TEST(lines == 5);
  BOOST_TEST(a.out.rfind("rwstress --lock ", 0) == 0u, a.out);
}

BOOST_AUTO_TEST_CASE(a_busted_lock_is_a_finding_with_a_reproducer_that_fails_again) {
  ScratchDir dir;
  ProcessResult r = run_rwstress("fuzz --trials 10 --seed 1 --lock busted-racy-tas"
                                 " --trial-time 200ms --out " + dir.path.string());
  BOOST_TEST(r.exit_code == 1, r.out + r.err);
  BOOST_TEST(r.out.find("finding 1: busted-racy-tas FAIL [writer-exclusion") != std::string::npos,
             r.out);
  std::ifstream log(dir.path / "trials.jsonl");
  int lines = 0;
  for (std::string line; std::getline(log, line); ++lines)
    BOOST_TEST(nlohmann::json::accept(line), line);
  BOOST_TEST(lines == 11);  // the header and one line per trial
  const fs::path repro = dir.path / "repro-1.sh";
  BOOST_REQUIRE(fs::exists(repro));
  // A data race: the reproducer fails in at least one of three runs.
  bool failed_again = false;
  for (int i = 0; i < 3 && !failed_again; ++i) {
    const int status = std::system(("sh " + repro.string() + " >/dev/null 2>&1").c_str());
    failed_again = WIFEXITED(status) && WEXITSTATUS(status) == 1;
  }
  BOOST_TEST(failed_again);
  // An --out that holds a campaign already is refused, not overwritten.
  ProcessResult again = run_rwstress("fuzz --trials 1 --lock ticket --out " + dir.path.string());
  BOOST_TEST(again.exit_code == 2);
  BOOST_TEST(again.err.find("a campaign is there already") != std::string::npos, again.err);
}

BOOST_AUTO_TEST_CASE(correct_locks_give_no_finding) {
  ProcessResult r = run_rwstress("fuzz --trials 8 --seed 3 --lock ticket,xadd,kernel-sem,qrwlock"
                                 " --trial-time 200ms");
  BOOST_TEST(r.exit_code == 0, r.out + r.err);
  BOOST_TEST(r.out.find("8 trials in") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("0 finding(s)") != std::string::npos, r.out);
}

// The trial's command line carries --plugin; the crash is the trial's, the
// campaign goes on to the next trial.
BOOST_AUTO_TEST_CASE(a_crashing_plugin_lock_is_a_crash_trial_and_the_campaign_goes_on) {
  ProcessResult r = run_rwstress("--plugin " + plugin("crashing_plugin") +
                                 " fuzz --trials 2 --seed 4 --lock crash-segv --trial-time 300ms");
  BOOST_TEST(r.exit_code == 4, r.out + r.err);
  BOOST_TEST(r.out.find("2 trials in") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("finding 1: crash-segv CRASH") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("reproduce: rwstress --plugin " + plugin("crashing_plugin")) !=
                 std::string::npos,
             r.out);
}

// SIGINT ends the running trial (recorded as interrupted), prints the
// summary and exits 128 + 2; every line of the log parses. --foreground:
// otherwise timeout signals its whole process group as well, and a second
// SIGINT kills at once, by design.
BOOST_AUTO_TEST_CASE(sigint_stops_the_campaign_cleanly) {
  ScratchDir dir;
  ProcessResult r = run_rwstress("fuzz --trials 50 --seed 5 --lock ticket,xadd --trial-time 500ms"
                                 " --out " + dir.path.string(),
                                 "timeout --foreground --preserve-status -s INT 2 ");
  BOOST_TEST(r.exit_code == 130, r.out + r.err);
  BOOST_TEST(r.out.find("interrupted by SIGINT after") != std::string::npos, r.out);
  std::ifstream log(dir.path / "trials.jsonl");
  std::string line, last;
  int lines = 0;
  for (; std::getline(log, line); ++lines) {
    BOOST_TEST(nlohmann::json::accept(line), line);
    last = line;
  }
  BOOST_TEST(lines >= 2);
  BOOST_TEST(last.find("\"verdict\":\"INTERRUPTED\"") != std::string::npos, last);
}

}  // namespace
}  // namespace rwstress::test
