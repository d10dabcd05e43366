// One run in a child process (selftest, validate).
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "model/run_result.h"

namespace rwstress {

// Runs `fn` in a child process: a busted lock that hangs leaves threads
// that can never be joined, and they must not spin on into the runs after
// it. The child reports its verdict through a pipe; a child that dies by a
// signal is a CRASH, one that says nothing within `limit` is a HANG.
struct IsolatedOutcome {
  Verdict verdict = Verdict::kCrash;
  double seconds = 0;
  double others_share = -1;  // RunResult's: other programs' share of the CPUs
  double ops_per_s = 0;      // RunResult's, where the child got that far
  double jain = -1;          // the lower of the readers' and writers' Jain index, -1: none
};

template <class Fn>
IsolatedOutcome run_isolated(Fn fn, std::chrono::seconds limit) {
  IsolatedOutcome out;
  int fds[2];
  if (pipe(fds) != 0) return out;
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return out;
  }
  if (pid == 0) {
    close(fds[0]);
    IsolatedOutcome mine = fn();
    ssize_t written = write(fds[1], &mine, sizeof mine);
    _exit(written == sizeof mine ? 0 : 1);
  }
  close(fds[1]);
  pollfd p{fds[0], POLLIN, 0};
  const auto t0 = std::chrono::steady_clock::now();
  bool got = false;
  if (poll(&p, 1, int(std::chrono::milliseconds(limit).count())) == 1)
    got = read(fds[0], &out, sizeof out) == sizeof out;
  close(fds[0]);
  if (!got) {
    out.verdict = Verdict::kHang;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    kill(pid, SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!got && WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) out.verdict = Verdict::kCrash;
  return out;
}

}  // namespace rwstress
