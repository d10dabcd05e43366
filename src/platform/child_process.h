// Runs a function in a forked child process and reads back the string it
// returns: how plugin loading, a plugin lock's runs, selftest's and
// validate's scenarios are isolated from the process that judges them.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "platform/interrupt.h"

namespace rwstress {

// How a child process ended, and what it handed back.
struct ChildEnd {
  bool forked = false;     // false: no pipe or no fork, nothing ran
  bool timed_out = false;  // no result and no exit within the limit: SIGKILLed
  bool answered = false;   // the whole result arrived (text holds it)
  int status = 0;          // waitpid's
  double seconds = 0;      // from the fork to the result (or the exit, or the kill)
  std::string text;        // the result, when answered
};

namespace child_detail {

inline bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= std::size_t(w);
  }
  return true;
}

}  // namespace child_detail

// Runs `fn` (returning a std::string) in a forked child that sends the
// string, framed by its length, and _exits: a lock that hangs leaves threads
// that can never be joined, and one that crashes or calls exit() takes only
// the child. The result counts when its last byte arrives, not when every
// process holding the pipe has closed it (a lock may fork a grandchild that
// outlives the run); a child that exits without it has ended all the same.
// After `limit` with neither, the child is killed. A signal that
// interrupts this process is passed on to the child.
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
    const std::uint64_t size = text.size();
    const bool sent = child_detail::write_all(fds[1], reinterpret_cast<const char*>(&size), sizeof size) &&
                      child_detail::write_all(fds[1], text.data(), text.size());
    _exit(sent ? 0 : 1);  // stuck workers of a HANG are not joined
  }
  close(fds[1]);
  end.forked = true;
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline = t0 + limit;
  std::string got;
  bool reaped = false, eof = false;
  char buf[65536];
  const auto complete = [&] {
    std::uint64_t size = 0;
    if (got.size() < sizeof size) return false;
    std::memcpy(&size, got.data(), sizeof size);
    return got.size() - sizeof size >= size;
  };
  bool forwarded = false;
  while (!complete()) {
    // The session's SIGINT/SIGTERM/SIGHUP reaches the child too (a
    // `kill -INT` names this process alone): it ends its run INTERRUPTED
    // and hands that back.
    if (!forwarded && !reaped && interrupt_signal() != 0) {
      kill(pid, interrupt_signal());
      forwarded = true;
    }
    if (!reaped) {
      const pid_t w = waitpid(pid, &end.status, WNOHANG);
      reaped = w == pid;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      end.timed_out = !reaped;
      break;
    }
    if (eof) {
      if (reaped) break;
      usleep(10000);  // the pipe is closed: wait for the exit alone
      continue;
    }
    pollfd p{fds[0], POLLIN, 0};
    // In short slices while the child lives: it may exit with a descendant
    // still holding the pipe, and then no end of file comes.
    const int ready = poll(&p, 1, int(std::min<long long>(left.count(), reaped ? 50 : 100)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      if (reaped) break;  // exited, and nothing more is coming
      continue;
    }
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
      continue;
    }
    got.append(buf, std::size_t(n));
  }
  close(fds[0]);
  end.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (complete()) {
    end.answered = true;
    end.text = got.substr(sizeof(std::uint64_t), got.size() - sizeof(std::uint64_t));
  }
  if (!reaped) {
    if (end.timed_out) kill(pid, SIGKILL);
    while (waitpid(pid, &end.status, 0) < 0 && errno == EINTR) {
    }
  }
  return end;
}

// Why a child gave no result, in words: "crashed: SIGSEGV (Segmentation
// fault)", "exited with status 0", "gave nothing within 10s and was killed".
inline std::string child_end_text(const ChildEnd& end, double limit_s) {
  if (end.timed_out) return fmt::format("gave nothing within {:.0f}s and was killed", limit_s);
  if (WIFSIGNALED(end.status))
    return fmt::format("crashed: {} ({})", signal_name(WTERMSIG(end.status)), strsignal(WTERMSIG(end.status)));
  if (WIFEXITED(end.status)) return fmt::format("exited with status {}", WEXITSTATUS(end.status));
  return "ended";
}

}  // namespace rwstress
