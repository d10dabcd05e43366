#include "commands/fuzz_child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "model/run_result.h"
#include "platform/interrupt.h"

namespace rwstress {

namespace {

// The verdicts a trial's exit code names (an interrupted trial exits 128 +
// its signal, which the caller sees first).
constexpr Verdict kRunVerdicts[] = {Verdict::kPass, Verdict::kStarved, Verdict::kFail,
                                    Verdict::kHang, Verdict::kCrash};

// What a child that could not exec says, and exits 127 with.
constexpr const char* kExecFailed = "rwstress fuzz: cannot exec the trial";

// Output kept per trial: its tail, when a trial writes more than this.
constexpr std::size_t kKeep = 1u << 20;

}  // namespace

std::string verdict_of_exit(int code) {
  for (Verdict v : kRunVerdicts)
    if (exit_code_of(v) == code) return verdict_name(v);
  return "ERROR";
}

int exit_code_of_verdict(const std::string& verdict) {
  if (verdict == "TIMEOUT") return exit_code_of(Verdict::kHang);
  for (Verdict r : kRunVerdicts)
    if (verdict == verdict_name(r)) return exit_code_of(r);
  return 2;  // ERROR
}

void parse_trial_output(const std::string& text, TrialOutcome& o) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    if (!line.empty()) o.last_line = line;
    if (const std::size_t d = line.find("injection schedule digest "); d != std::string::npos) {
      o.digest = line.substr(d + 26);
      continue;
    }
    // A plugin lock's crash, in the trial's own child: "... crashed the run: SIGSEGV (...)".
    if (const std::size_t sig = line.find("crashed the run: SIG"); sig != std::string::npos) {
      const std::size_t from = sig + 17;
      o.signal = line.substr(from, line.find(' ', from) - from);
      if (o.first.size() < 3) o.first.push_back(line.substr(line.find_first_not_of(" -")));
      continue;
    }
    // A STARVED run's "  ! starved thread 2 (reader): ..." and a HANG's
    // "  !   thread 3 (writer): ..." say what happened when no violation does.
    // ("  ~ starved ..." is reported, not judged: a PASS may have it, and a
    // PASS trial's record has nothing here.)
    if (line.rfind("  ! starved ", 0) == 0 || (line.rfind("  !   ", 0) == 0 && line[6] != '[')) {
      if (o.first.size() < 3) o.first.push_back(line.substr(4));
      continue;
    }
    // A controlled trial's (rwstress explore) findings: "  writer-exclusion
    // (thread 2): ..." and "  deadlock: every unfinished thread is blocked".
    if (line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      bool found = false;
      for (int k = 0; k < kViolationKindCount && !found; ++k) {
        const std::string kind = violation_kind_name(ViolationKind(k));
        if (line.compare(2, kind.size() + 2, kind + " (") != 0) continue;
        found = true;
        if (std::find(o.kinds.begin(), o.kinds.end(), kind) == o.kinds.end()) o.kinds.push_back(kind);
      }
      for (const char* what : {"deadlock: ", "livelock: "})
        found = found || line.rfind(std::string("  ") + what, 0) == 0;
      if (found) {
        if (o.first.size() < 3) o.first.push_back(line.substr(2));
        continue;
      }
    }
    // "  !   [writer-exclusion] thread 4: ..."
    const std::size_t open = line.find("!   [");
    if (open == std::string::npos) continue;
    const std::size_t close = line.find(']', open);
    if (close == std::string::npos) continue;
    const std::string kind = line.substr(open + 5, close - open - 5);
    if (std::find(o.kinds.begin(), o.kinds.end(), kind) == o.kinds.end()) o.kinds.push_back(kind);
    if (o.first.size() < 3) o.first.push_back(line.substr(open + 4));
  }
}

TrialPool::TrialPool(std::string exe, TrialLimits limits)
    : exe_(std::move(exe)), exe_fd_(open(exe_.c_str(), O_RDONLY | O_CLOEXEC)), limits_(limits) {}

TrialPool::~TrialPool() {
  if (exe_fd_ >= 0) close(exe_fd_);
  for (Child& c : children_) {
    if (c.pid > 0) {
      kill(-c.pid, SIGKILL);
      while (waitpid(c.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    if (c.fd >= 0) close(c.fd);
  }
}

void TrialPool::start(int tag, const std::vector<std::string>& argv) {
  Child c;
  c.tag = tag;
  c.started = std::chrono::steady_clock::now();
  c.deadline = c.started + limits_.wall;
  const auto fail = [&](const char* what) {
    c.failed_to_start = true;
    c.early.verdict = "ERROR";
    c.early.last_line = fmt::format("{}: {}", what, std::strerror(errno));
    children_.push_back(std::move(c));
  };
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return fail("pipe");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args[0] = const_cast<char*>(exe_.c_str());
  args.push_back(nullptr);
  const pid_t parent = getpid();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the campaign died before prctl
    if (limits_.memory > 0) {
      const rlimit r{limits_.memory, limits_.memory};
      setrlimit(RLIMIT_AS, &r);
    }
    if (limits_.cpu_seconds > 0) {
      const rlimit r{limits_.cpu_seconds, limits_.cpu_seconds + 1};
      setrlimit(RLIMIT_CPU, &r);
    }
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    // The binary as it was when the pool began, even if a rebuild has
    // replaced the file since; argv[0] names the path for the reproducer.
    if (exe_fd_ >= 0) fexecve(exe_fd_, args.data(), environ);
    execv(exe_.c_str(), args.data());
    const std::string why = fmt::format("{}: {}\n", kExecFailed, std::strerror(errno));
    (void)!write(STDOUT_FILENO, why.data(), why.size());
    _exit(127);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return fail("fork");
  }
  setpgid(pid, pid);  // either side may win the race; both set the same
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  c.pid = pid;
  c.fd = fds[0];
  children_.push_back(std::move(c));
}

void TrialPool::drain(Child& c) {
  char buf[16384];
  while (c.fd >= 0) {
    const ssize_t n = read(c.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {  // the end of its output
      close(c.fd);
      c.fd = -1;
      return;
    }
    c.text.append(buf, std::size_t(n));
    if (c.text.size() > 2 * kKeep) c.text.erase(0, c.text.size() - kKeep);
  }
}

TrialOutcome TrialPool::finish(Child& c, int status) {
  drain(c);  // it has ended: what it wrote is in the pipe already
  if (c.fd >= 0) close(c.fd);  // a straggler of its group may hold the pipe
  c.fd = -1;
  TrialOutcome o;
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.started).count();
  parse_trial_output(c.text, o);
  if (c.interrupted) {
    o.verdict = "INTERRUPTED";
  } else if (c.terminated) {
    o.verdict = "TIMEOUT";
  } else if (WIFSIGNALED(status)) {
    o.verdict = "CRASH";
    o.signal = signal_name(WTERMSIG(status));
  } else {
    o.exit_code = WEXITSTATUS(status);
    o.verdict = verdict_of_exit(o.exit_code);
    o.exec_failed = o.exit_code == 127 && o.last_line.rfind(kExecFailed, 0) == 0;
  }
  kill(-c.pid, SIGKILL);  // what is left of its group
  return o;
}

std::optional<std::pair<int, TrialOutcome>> TrialPool::wait(std::chrono::milliseconds most) {
  const auto until = std::chrono::steady_clock::now() + most;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < children_.size(); ++i) {
      Child& c = children_[i];
      if (c.failed_to_start) {
        std::pair<int, TrialOutcome> done{c.tag, c.early};
        children_.erase(children_.begin() + std::ptrdiff_t(i));
        return done;
      }
      if (!c.killed && interrupt_signal() != 0) {  // the campaign's SIGINT/SIGTERM/SIGHUP
        kill(-c.pid, SIGKILL);
        c.killed = c.interrupted = true;
      }
      if (!c.terminated && !c.killed && now >= c.deadline) {
        kill(-c.pid, SIGTERM);
        c.terminated = true;
        c.term_sent = now;
      }
      if (c.terminated && !c.killed && now - c.term_sent >= std::chrono::seconds(1)) {
        kill(-c.pid, SIGKILL);
        c.killed = true;
      }
      drain(c);
      int status = 0;
      const pid_t r = waitpid(c.pid, &status, WNOHANG);
      if (r == c.pid) {
        std::pair<int, TrialOutcome> done{c.tag, finish(c, status)};
        children_.erase(children_.begin() + std::ptrdiff_t(i));
        return done;
      }
    }
    if (children_.empty() || now >= until) return std::nullopt;
    std::vector<pollfd> fds;
    bool any_closed = false;
    for (const Child& c : children_) {
      if (c.fd >= 0)
        fds.push_back({c.fd, POLLIN, 0});
      else
        any_closed = true;  // its output ended; its exit is near
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
    const int timeout = int(std::clamp<long long>(left, 0, any_closed ? 1 : 50));
    if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) return std::nullopt;
  }
}

TrialOutcome run_one_trial(const std::string& exe, const std::vector<std::string>& argv,
                           const TrialLimits& limits) {
  TrialPool pool(exe, limits);
  pool.start(0, argv);
  for (;;)
    if (auto done = pool.wait(std::chrono::seconds(1))) return done->second;
}

}  // namespace rwstress
