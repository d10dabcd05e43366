#include "commands/fuzz.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/version.h"
#include "platform/duration.h"
#include "platform/interrupt.h"
#include "platform/splitmix.h"

namespace rwstress {

namespace {

template <class T>
T pick(std::mt19937_64& rng, std::initializer_list<T> choices) {
  return *(choices.begin() + rng() % choices.size());
}

// Zero a third of the time, else log-uniform from 1 to 100000 loop turns.
std::uint64_t loops(std::mt19937_64& rng) {
  if (rng() % 3 == 0) return 0;
  std::uniform_real_distribution<double> exponent(0, std::log(100000.0));
  return std::uint64_t(std::exp(exponent(rng)));
}

// The watchdog of every trial; every pause in the menu stays far under half of it.
constexpr const char* kTrialWatchdog = "2s";

// What one trial came to.
struct TrialOutcome {
  std::string verdict;  // PASS FAIL HANG STARVED CRASH TIMEOUT ERROR INTERRUPTED
  int exit_code = -1;   // -1: ended by a signal
  std::string signal;   // "SIGSEGV" when ended by one
  double seconds = 0;
  std::vector<std::string> kinds;  // violation kinds seen, in order, once each
  std::vector<std::string> first;  // the first violation lines
  std::string last_line;           // the trial's last line of output (its replay line, or an error)
};

constexpr Verdict kRunVerdicts[] = {Verdict::kPass, Verdict::kStarved, Verdict::kFail,
                                    Verdict::kHang, Verdict::kCrash};

// A trial's verdict from rwstress's exit code (exit_code_of's inverse);
// ERROR for 2 (usage) or anything rwstress never exits with.
std::string verdict_of_exit(int code) {
  for (Verdict v : kRunVerdicts)
    if (exit_code_of(v) == code) return verdict_name(v);
  return "ERROR";
}

void parse_output(const std::string& text, TrialOutcome& o) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    if (!line.empty()) o.last_line = line;
    // A plugin lock's crash, in the trial's own child: "... crashed the run: SIGSEGV (...)".
    if (const std::size_t sig = line.find("crashed the run: SIG"); sig != std::string::npos) {
      const std::size_t from = sig + 17;
      o.signal = line.substr(from, line.find(' ', from) - from);
      if (o.first.size() < 3) o.first.push_back(line.substr(line.find_first_not_of(" -")));
      continue;
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

// Runs argv (argv[0] replaced by `exe`) in a child process of its own
// process group that dies with the campaign; kills the group if it outlives
// `limit` (SIGTERM, then SIGKILL a second later).
TrialOutcome run_trial(const std::string& exe, const std::vector<std::string>& argv,
                       std::chrono::nanoseconds limit) {
  TrialOutcome o;
  const auto t0 = std::chrono::steady_clock::now();
  int fds[2];
  if (pipe(fds) != 0) {
    o.verdict = "ERROR";
    o.last_line = fmt::format("pipe: {}", std::strerror(errno));
    return o;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args[0] = const_cast<char*>(exe.c_str());
  args.push_back(nullptr);
  const pid_t parent = getpid();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the campaign died before prctl
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    execv(exe.c_str(), args.data());
    _exit(127);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    o.verdict = "ERROR";
    o.last_line = fmt::format("fork: {}", std::strerror(errno));
    return o;
  }
  setpgid(pid, pid);  // either side may win the race; both set the same
  std::string text;
  const auto deadline = t0 + limit;
  bool killed = false, interrupted = false;
  char buf[16384];
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (!killed && interrupt_signal() != 0) {  // SIGINT/SIGTERM/SIGHUP of the campaign
      kill(-pid, SIGKILL);
      killed = interrupted = true;
    }
    if (now >= deadline && !killed) {
      kill(-pid, SIGTERM);
      std::this_thread::sleep_for(std::chrono::seconds(1));
      kill(-pid, SIGKILL);
      killed = true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    pollfd p{fds[0], POLLIN, 0};
    const int ready =
        poll(&p, 1, killed ? 1000 : int(std::clamp<long long>(left.count(), 1, 100)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      if (killed) break;  // the group is gone; a grandchild may hold the pipe
      continue;
    }
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, std::size_t(n));
    if (text.size() > (1u << 20)) text.erase(0, text.size() - (1u << 19));  // keep the tail
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  parse_output(text, o);
  if (interrupted) {
    o.verdict = "INTERRUPTED";
  } else if (killed) {
    o.verdict = "TIMEOUT";
  } else if (WIFSIGNALED(status)) {
    o.verdict = "CRASH";
    o.signal = signal_name(WTERMSIG(status));
  } else {
    o.exit_code = WEXITSTATUS(status);
    o.verdict = verdict_of_exit(o.exit_code);
  }
  return o;
}

// The campaign's exit code for a trial verdict: rwstress's own for the
// five run verdicts, a HANG's for TIMEOUT, a usage error's for ERROR.
int exit_code_of_verdict(const std::string& v) {
  if (v == "TIMEOUT") return exit_code_of(Verdict::kHang);
  for (Verdict r : kRunVerdicts)
    if (v == verdict_name(r)) return exit_code_of(r);
  return 2;  // ERROR
}

// Durable append: the line and a newline, written whole, then fsync.
std::string append_line(int fd, const std::string& line) {
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::strerror(errno);
    done += std::size_t(n);
  }
  if (fsync(fd) != 0) return std::strerror(errno);
  return "";
}

struct Finding {
  int number = 0;
  std::string lock, verdict;
  std::vector<std::string> kinds;
  std::uint64_t trials = 0;
  std::uint64_t first_trial = 0;
  std::string command;
  std::vector<std::string> first;
};

}  // namespace

const std::vector<std::string>& fuzz_inject_menu() {
  static const std::vector<std::string> menu = {
      "sleep@before-sleep:p=0.2,fixed(200us)",
      "delay@after-enqueue+mid-release:p=0.01,fixed(20us)",
      "sleep@before-wake:p=0.01,fixed(100us)",
      "spurious-wake:p=0.25",
      "sleep@in-cs:p=0.001,fixed(2ms)",
      "yield@in-cs:p=0.01",
      "delay@spin:p=0.01,fixed(5us)",
      "yield@before-release:p=0.05",
      "stutter:every=200ms,for=20ms",
  };
  return menu;
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) line += (line.empty() ? "" : " ") + shell_word(a);
  return line;
}

FuzzTrial fuzz_trial(const RunConfig& cfg, int ncpus, std::uint64_t k) {
  FuzzTrial t;
  t.index = k;
  std::mt19937_64 rng(splitmix64(cfg.seed ^ splitmix64(k + 1)));
  t.seed = rng();
  std::vector<std::string>& a = t.argv;
  a.push_back("rwstress");
  for (const std::string& p : cfg.plugins) a.insert(a.end(), {"--plugin", p});
  const LockMeta& meta = *cfg.locks[rng() % cfg.locks.size()];
  t.lock = std::string(meta.name);
  a.insert(a.end(), {"--lock", t.lock});
  switch (meta.family) {
    case Family::kRwlock: {
      int readers = pick(rng, {0, 1, 2, 3, 4, 6, 8});
      int writers = pick(rng, {0, 1, 1, 2, 3, 4});
      if (readers + writers == 0) writers = 1;
      a.insert(a.end(), {"--readers", std::to_string(readers), "--writers", std::to_string(writers)});
      break;
    }
    case Family::kMutex:
      a.insert(a.end(), {"--threads", std::to_string(pick(rng, {1, 2, 3, 4, 6, 8}))});
      break;
    case Family::kSemaphore: {
      const int threads = pick(rng, {1, 2, 3, 4, 6, 8});
      const int count = 1 + int(rng() % std::uint64_t(threads + 1));
      a.insert(a.end(), {"--threads", std::to_string(threads), "--count", std::to_string(count)});
      break;
    }
  }
  if (rng() % 4 == 0) a.push_back("--sched");
  a.insert(a.end(), {"--duration", format_duration(cfg.fuzz.trial_time)});
  const int cpus = 1 + int(rng() % std::uint64_t(std::max(1, ncpus)));
  a.insert(a.end(), {"--ncpus", std::to_string(cpus), "--placement",
                     pick(rng, {std::string("compact"), std::string("scatter")})});
  a.insert(a.end(), {"--cs-read", std::to_string(loops(rng)), "--cs-write",
                     std::to_string(loops(rng)), "--delay", std::to_string(loops(rng))});
  a.insert(a.end(), {"--try-every", std::to_string(pick(rng, {2, 4, 16, 16, 64}))});
  const std::vector<std::string>& menu = fuzz_inject_menu();
  std::set<std::size_t> chosen;
  for (std::uint64_t n = rng() % 3; chosen.size() < n;) chosen.insert(rng() % menu.size());
  for (std::size_t i : chosen) a.insert(a.end(), {"--inject", menu[i]});
  a.insert(a.end(), {"--watchdog", kTrialWatchdog, "--seed", fmt::format("{:#x}", t.seed)});
  return t;
}

int run_fuzz(const RunConfig& cfg, const Topology& topology, const Output& out) {
  const int ncpus = int(cfg.chosen_cpus(topology).size());
  const RunConfig::Fuzz& f = cfg.fuzz;
  std::string locks;
  for (const LockMeta* m : cfg.locks) locks += (locks.empty() ? "" : ",") + std::string(m->name);
  std::string replay = "rwstress";
  for (const std::string& p : cfg.plugins) replay += " --plugin " + shell_word(p);
  replay += fmt::format(" fuzz --lock {} --seed {:#x} --trial-time {}",
                        cfg.lock_given ? cfg.lock_spec : std::string("all"), cfg.seed,
                        format_duration(f.trial_time));
  replay += f.trials ? fmt::format(" --trials {}", f.trials)
                     : fmt::format(" --time {}", format_duration(f.time));

  if (f.dry_run > 0) {
    for (int k = 0; k < f.dry_run; ++k) out.print(shell_command(fuzz_trial(cfg, ncpus, k).argv));
    return 0;
  }

  char exe_buf[4096];
  const ssize_t exe_len = readlink("/proc/self/exe", exe_buf, sizeof exe_buf - 1);
  if (exe_len <= 0) {
    out.error("fuzz: cannot find this rwstress binary (/proc/self/exe)");
    return 2;
  }
  const std::string exe(exe_buf, std::size_t(exe_len));

  int log_fd = -1;
  if (!f.out_dir.empty()) {
    if (mkdir(f.out_dir.c_str(), 0755) != 0 && errno != EEXIST) {
      out.error(fmt::format("fuzz --out {}: {}", f.out_dir, std::strerror(errno)));
      return 2;
    }
    const std::string log = f.out_dir + "/trials.jsonl";
    log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      out.error(fmt::format("fuzz --out {}: {}: {}{}", f.out_dir, log, std::strerror(errno),
                            errno == EEXIST ? " (a campaign is there already: use a new --out)"
                                            : ""));
      return 2;
    }
    const nlohmann::json head = {{"rwstress_version", kVersion},
                                 {"campaign_seed", cfg.seed},
                                 {"replay", replay},
                                 {"host", topology.summary()},
                                 {"locks", locks}};
    if (std::string err = append_line(log_fd, head.dump()); !err.empty()) {
      out.error(fmt::format("fuzz --out {}: {}", f.out_dir, err));
      return 2;
    }
  }

  out.print(fmt::format("rwstress {} fuzz: campaign seed {:#x}, {} lock(s), {} per trial, {}", kVersion,
                        cfg.seed, cfg.locks.size(), format_duration(f.trial_time),
                        f.trials ? fmt::format("{} trials", f.trials)
                                 : fmt::format("for {}", format_duration(f.time))));
  // The trial's own watchdog reports a hang; this limit is for a trial that
  // cannot even do that.
  const auto limit = f.trial_time + 4 * std::chrono::seconds(2) + std::chrono::seconds(10);
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, std::map<std::string, std::uint64_t>> table;  // lock -> verdict -> trials
  std::map<std::string, Finding> findings;                            // by lock, verdict, kinds
  std::string worst = "PASS";
  std::uint64_t done = 0;
  for (std::uint64_t k = 0;; ++k) {
    if (f.trials ? k >= f.trials : std::chrono::steady_clock::now() - start >= f.time) break;
    if (interrupt_signal() != 0) break;
    const FuzzTrial t = fuzz_trial(cfg, ncpus, k);
    const std::string command = shell_command(t.argv);
    const std::string& lock = t.lock;
    TrialOutcome o = run_trial(exe, t.argv, limit);
    ++done;
    ++table[lock][o.verdict];
    if (log_fd >= 0) {
      const nlohmann::json line = {{"trial", k},           {"seed", t.seed},
                                   {"argv", t.argv},       {"command", command},
                                   {"verdict", o.verdict}, {"exit_code", o.exit_code},
                                   {"signal", o.signal},   {"seconds", o.seconds},
                                   {"violations", o.kinds}, {"first", o.first},
                                   {"last_line", o.last_line}};
      if (std::string err = append_line(log_fd, line.dump()); !err.empty()) {
        out.error(fmt::format("fuzz --out {}: {}", f.out_dir, err));
        return 2;
      }
    }
    if (o.verdict == "INTERRUPTED") break;  // recorded; the summary follows
    if (o.verdict == "PASS") continue;
    if (exit_code_of_verdict(o.verdict) > exit_code_of_verdict(worst)) worst = o.verdict;
    std::string key = lock + " " + o.verdict;
    for (const std::string& kind : o.kinds) key += " " + kind;
    auto [it, fresh] = findings.try_emplace(key);
    Finding& fd = it->second;
    ++fd.trials;
    if (fresh) {
      fd.number = int(findings.size());
      fd.lock = lock;
      fd.verdict = o.verdict;
      fd.kinds = o.kinds;
      fd.first_trial = k;
      fd.command = command;
      fd.first = o.first;
      if (fd.first.empty() && !o.last_line.empty()) fd.first.push_back(o.last_line);
      out.print(fmt::format("trial {}: new finding {}: {} {}{}", k, fd.number, lock, o.verdict,
                            o.signal.empty() ? "" : " (" + o.signal + ")"));
      if (!f.out_dir.empty()) {
        const std::string path = fmt::format("{}/repro-{}.sh", f.out_dir, fd.number);
        const int fd_out = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        if (fd_out >= 0) {
          const std::string script = fmt::format(
              "#!/bin/sh\n# rwstress fuzz finding {}: {} {} (trial {} of campaign {:#x})\n"
              "exec {}\n",
              fd.number, lock, o.verdict, k, cfg.seed,
              shell_command([&] {
                std::vector<std::string> argv = t.argv;
                argv[0] = exe;
                return argv;
              }()));
          (void)append_line(fd_out, script.substr(0, script.size() - 1));
          close(fd_out);
        }
      }
    }
    if (f.stop_on_failure) break;
  }
  if (log_fd >= 0) close(log_fd);

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.print("");
  out.print(fmt::format("{} trials in {:.1f}s ({:.1f} per minute); {} finding(s)", done, seconds,
                        seconds > 0 ? double(done) * 60 / seconds : 0.0, findings.size()));
  const char* verdicts[] = {"PASS", "FAIL", "HANG", "STARVED", "CRASH", "TIMEOUT", "ERROR"};
  // (an INTERRUPTED trial is in the log, not in the table)
  std::string header = fmt::format("{:<26}", "LOCK");
  for (const char* v : verdicts) header += fmt::format(" {:>7}", v);
  out.print(header);
  for (const auto& [lock, counts] : table) {
    std::string row = fmt::format("{:<26}", lock);
    for (const char* v : verdicts) {
      auto c = counts.find(v);
      row += fmt::format(" {:>7}", c == counts.end() ? 0 : c->second);
    }
    out.print(row);
  }
  std::vector<const Finding*> ordered;
  for (const auto& [key, fd] : findings) ordered.push_back(&fd);
  std::sort(ordered.begin(), ordered.end(),
            [](const Finding* a, const Finding* b) { return a->number < b->number; });
  for (const Finding* fd : ordered) {
    std::string kinds;
    for (const std::string& k : fd->kinds) kinds += (kinds.empty() ? "" : ",") + k;
    out.print("");
    out.print(fmt::format("finding {}: {} {}{} in {} trial(s), first trial {}", fd->number, fd->lock,
                          fd->verdict, kinds.empty() ? "" : " [" + kinds + "]", fd->trials,
                          fd->first_trial));
    for (const std::string& line : fd->first) out.print("  " + line);
    out.print("  reproduce: " + fd->command);
  }
  out.print("");
  out.print("campaign: " + replay);
  if (const int sig = interrupt_signal(); sig != 0) {
    out.print(fmt::format("interrupted by {} after {} trials", interrupt_signal_name(sig), done));
    return 128 + sig;
  }
  return exit_code_of_verdict(worst);
}

}  // namespace rwstress
