// Trials of rwstress fuzz, each a child process that execs the trial's own
// command line in a process group of its own, dies with the campaign, and
// is killed for sure past its deadline. A TrialPool runs several side by
// side (fuzz --jobs) and hands back each one's outcome as it ends.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rwstress {

// What one trial came to.
struct TrialOutcome {
  std::string verdict;  // PASS FAIL HANG STARVED CRASH TIMEOUT ERROR INTERRUPTED
  int exit_code = -1;   // -1: ended by a signal, or killed
  std::string signal;   // "SIGSEGV" when a signal ended it (or a plugin run inside it)
  double seconds = 0;
  std::vector<std::string> kinds;  // violation kinds seen, in order, once each
  std::vector<std::string> first;  // the first violation lines (three at most)
  std::string last_line;           // its last line of output (the replay line, or an error)
  std::string digest;              // the injection schedule digest it printed, if any
  bool exec_failed = false;        // the child could not exec: no trial ran
};

// Reads a trial's output: violation kinds and lines, a plugin crash's
// signal, the schedule digest, the last line.
void parse_trial_output(const std::string& text, TrialOutcome& o);

// A trial's verdict from rwstress's exit code; ERROR for 2 (usage) or any
// code rwstress never exits with.
std::string verdict_of_exit(int code);

// The campaign's exit code for a trial verdict: rwstress's own for the five
// run verdicts, a HANG's for TIMEOUT, a usage error's for ERROR.
int exit_code_of_verdict(const std::string& verdict);

struct TrialLimits {
  std::chrono::nanoseconds wall{};  // the deadline: SIGTERM, then SIGKILL a second later
  std::uint64_t memory = 0;         // RLIMIT_AS in bytes; 0: none
  std::uint64_t cpu_seconds = 0;    // RLIMIT_CPU; 0: none
};

class TrialPool {
 public:
  TrialPool(std::string exe, TrialLimits limits);
  TrialPool(const TrialPool&) = delete;
  TrialPool& operator=(const TrialPool&) = delete;
  ~TrialPool();

  // Starts argv (argv[0] is replaced by the rwstress binary) under `tag`,
  // which comes back with its outcome.
  void start(int tag, const std::vector<std::string>& argv);
  int running() const { return int(children_.size()); }

  // Waits up to `most` for a trial to end: its tag and outcome. A pending
  // SIGINT/SIGTERM/SIGHUP of the campaign kills every trial's group; those
  // come back INTERRUPTED.
  std::optional<std::pair<int, TrialOutcome>> wait(std::chrono::milliseconds most);

 private:
  struct Child {
    int tag = 0;
    pid_t pid = -1;
    int fd = -1;  // the read end of its output; -1 after its end
    std::chrono::steady_clock::time_point started, deadline, term_sent;
    bool terminated = false, killed = false, interrupted = false;
    std::string text;
    TrialOutcome early;  // a trial that never started: its ERROR
    bool failed_to_start = false;
  };
  void drain(Child& c);
  TrialOutcome finish(Child& c, int status);

  std::string exe_;
  int exe_fd_;  // the binary, opened once: trials run it even if the file is replaced
  TrialLimits limits_;
  std::vector<Child> children_;
};

// Runs one trial to its end.
TrialOutcome run_one_trial(const std::string& exe, const std::vector<std::string>& argv,
                           const TrialLimits& limits);

}  // namespace rwstress
