// Runs in a child process: selftest's and validate's scenarios, and a
// session's runs of plugin locks.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "model/run_result.h"

namespace rwstress {

// How a child process ended, and what it wrote.
struct ChildEnd {
  bool forked = false;     // false: no pipe or no fork, nothing ran
  bool timed_out = false;  // no end of output within the limit: SIGKILLed
  int status = 0;          // waitpid's
  double seconds = 0;      // from the fork to the end of its output (or the kill)
  std::string text;        // everything it wrote to the pipe
};

// Runs `fn` (returning a std::string) in a forked child that writes the
// string to a pipe and _exits: a lock that hangs leaves threads that can
// never be joined, and one that crashes takes only the child. The parent
// reads until the pipe's end or `limit`, then kills the child.
template <class Fn>
ChildEnd run_in_child(Fn fn, std::chrono::nanoseconds limit) {
  ChildEnd end;
  int fds[2];
  if (pipe(fds) != 0) return end;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return end;
  }
  if (pid == 0) {
    close(fds[0]);
    const std::string text = fn();
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += std::size_t(n);
    }
    _exit(done == text.size() ? 0 : 1);  // stuck workers of a HANG are not joined
  }
  close(fds[1]);
  end.forked = true;
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline = t0 + limit;
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, int(std::max<long long>(left.count(), 0)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      end.timed_out = true;
      break;
    }
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    end.text.append(buf, std::size_t(n));
  }
  close(fds[0]);
  end.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (end.timed_out) kill(pid, SIGKILL);
  while (waitpid(pid, &end.status, 0) < 0 && errno == EINTR) {
  }
  return end;
}

// selftest's and validate's scenario in a child: its verdict and figures.
// A child that dies by a signal is a CRASH, one that says nothing within
// `limit` a HANG.
struct IsolatedOutcome {
  Verdict verdict = Verdict::kCrash;
  double seconds = 0;
  double others_share = -1;  // RunResult's: other programs' share of the CPUs
  double ops_per_s = 0;      // RunResult's, where the child got that far
  double jain = -1;          // the lower of the readers' and writers' Jain index, -1: none
};

template <class Fn>
IsolatedOutcome run_isolated(Fn fn, std::chrono::seconds limit) {
  const ChildEnd end = run_in_child(
      [&] {
        const IsolatedOutcome mine = fn();
        return std::string(reinterpret_cast<const char*>(&mine), sizeof mine);
      },
      limit);
  IsolatedOutcome out;
  if (!end.forked) return out;  // CRASH: it could not run at all
  if (end.text.size() == sizeof out) {
    std::memcpy(&out, end.text.data(), sizeof out);
    return out;
  }
  out.verdict = Verdict::kHang;
  out.seconds = end.seconds;
  if (WIFSIGNALED(end.status) && WTERMSIG(end.status) != SIGKILL) out.verdict = Verdict::kCrash;
  return out;
}

}  // namespace rwstress
