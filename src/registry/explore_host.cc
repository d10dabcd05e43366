// What a plugin's own scheduling points call (include/rwstress/explore.h):
// the controlled scheduler inside a controlled run, the futex system call
// and the steady clock outside one.
#include "registry/explore_host.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "platform/controlled.h"

namespace rwstress {

namespace {

namespace ctl = controlled;

int active() { return ctl::active() ? 1 : 0; }

int access(unsigned long word, const char* what) {
  if (!ctl::active()) return 0;
  ctl::access(reinterpret_cast<const void*>(word), what);
  return 1;
}

void accessed(unsigned long long before, unsigned long long after) { ctl::accessed(before, after); }

void point(const char* what) { ctl::point(what); }

void spin(const char* what) { ctl::spin(what); }

// A 32-bit futex word, as the controlled scheduler names it. The object is
// the plugin's plain unsigned: std::atomic<std::uint32_t> has its layout.
const std::atomic<std::uint32_t>* as_word(const unsigned* word) {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(unsigned));
  return reinterpret_cast<const std::atomic<std::uint32_t>*>(word);
}

void futex_wait(const unsigned* word, unsigned expected, unsigned long long timeout_ns,
                const char* what) {
  if (ctl::active()) {
    if (timeout_ns == 0)
      ctl::futex_wait(as_word(word), expected, what);
    else
      ctl::futex_wait_for(as_word(word), expected, timeout_ns, what);
    if (ctl::woke_spuriously()) kernel_woken_spuriously();
    return;
  }
  timespec ts{time_t(timeout_ns / 1'000'000'000ULL), long(timeout_ns % 1'000'000'000ULL)};
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, timeout_ns ? &ts : nullptr, nullptr, 0);
}

int futex_wake(const unsigned* word, int n) {
  if (ctl::active()) return ctl::futex_wake(word, n);
  return int(syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, nullptr, nullptr, 0));
}

unsigned long long now_ns() { return ctl::now_ns(); }

void op_end() {
  if (ctl::active()) kernel_op_end();
}

const rwstress_explore_host kHost = {
    RWSTRESS_EXPLORE_HOST_ABI, active, access, accessed, point, spin, futex_wait, futex_wake,
    now_ns, op_end,
};

}  // namespace

const rwstress_explore_host& explore_host() { return kHost; }

}  // namespace rwstress
