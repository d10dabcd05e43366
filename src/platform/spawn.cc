#include "platform/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "platform/interrupt.h"

extern char** environ;

namespace rwstress {

int run_program(const std::vector<std::string>& argv, const std::string& log_path,
                std::string* error) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  const bool own_group = !log_path.empty();  // (one that prints stays in the terminal's)
  if (own_group) {
    posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    *error = argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  using Clock = std::chrono::steady_clock;
  constexpr auto kGrace = std::chrono::seconds(5);  // then SIGKILL
  Clock::time_point forwarded{};
  bool killed = false;
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      *error = argv[0] + ": " + std::strerror(errno);
      return -1;
    }
    if (const int sig = interrupt_signal(); sig != 0) {
      const pid_t target = own_group ? -pid : pid;
      if (forwarded == Clock::time_point{}) {
        kill(target, sig);
        forwarded = Clock::now();
      } else if (!killed && Clock::now() - forwarded > kGrace) {
        kill(target, SIGKILL);
        killed = true;
      }
    }
    usleep(5000);
  }
  // What the program left in its group (a compiler's cc1) goes with it.
  if (own_group && forwarded != Clock::time_point{}) kill(-pid, SIGKILL);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace rwstress
