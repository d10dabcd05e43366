#include "platform/interrupt.h"

#include <signal.h>
#include <string.h>

#include <atomic>
#include <iterator>

namespace rwstress {

namespace {

constexpr int kInterrupts[] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");

struct sigaction g_before[std::size(kInterrupts)];  // the dispositions the process started with
bool g_installed = false;

void on_signal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  for (std::size_t i = 0; i < std::size(kInterrupts); ++i)
    sigaction(kInterrupts[i], &sa, g_installed ? nullptr : &g_before[i]);
  g_installed = true;
}

void release_interrupts() {
  if (!g_installed) return;
  for (std::size_t i = 0; i < std::size(kInterrupts); ++i)
    sigaction(kInterrupts[i], &g_before[i], nullptr);
  g_installed = false;
  if (const int sig = g_signal.load(); sig != 0) raise(sig);
}

int interrupt_signal() { return g_signal.load(std::memory_order_relaxed); }

const char* interrupt_signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string interrupted_text() {
  const int sig = interrupt_signal();
  return sig ? std::string("interrupted by ") + interrupt_signal_name(sig) : std::string();
}

}  // namespace rwstress
