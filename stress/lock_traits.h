// The lock contract: families, fairness classes and capabilities as typed
// traits (C++20 concepts), so the harness never guesses from names.
#pragma once

#include <concepts>
#include <string>
#include <string_view>

namespace rwstress {

enum class Family { kRwlock, kSemaphore, kMutex };

enum class Fairness {
  kReaderPref,  // readers never wait for waiting writers; writers may starve
  kWriterPref,  // waiting writers block new readers; readers may starve
  kTaskFair,    // FIFO: nobody is overtaken indefinitely
  kPhaseFair,   // read and write phases alternate
  kUnfair,      // stealing allowed; no progress promise to anyone
};

const char* family_name(Family f);
const char* fairness_name(Fairness f);

// Whether the fairness class promises progress to threads of a role: a
// thread of a promised role that gets (almost) nothing is STARVED.
bool promises_progress(Fairness f, bool writer_role);

template <class L>
concept RwLock = requires(L l) {
  l.down_read();
  l.up_read();
  l.down_write();
  l.up_write();
};

template <class L>
concept HasReadTrylock = requires(L l) {
  { l.down_read_trylock() } -> std::same_as<bool>;
};

template <class L>
concept HasWriteTrylock = requires(L l) {
  { l.down_write_trylock() } -> std::same_as<bool>;
};

template <class L>
concept HasDowngrade = requires(L l) { l.downgrade_write(); };

// The trylock where the lock has one; "failed" where it has none. Generic
// code names the call once instead of branching at every site.
template <class L>
bool try_down_read(L& lock) {
  if constexpr (HasReadTrylock<L>)
    return lock.down_read_trylock();
  else
    return false;
}

template <class L>
bool try_down_write(L& lock) {
  if constexpr (HasWriteTrylock<L>)
    return lock.down_write_trylock();
  else
    return false;
}

struct Capabilities {
  bool read_trylock = false;
  bool write_trylock = false;
  bool downgrade = false;

  std::string describe() const;  // "read-trylock,write-trylock,downgrade" or "-"
};

template <class L>
constexpr Capabilities capabilities_of() {
  return Capabilities{HasReadTrylock<L>, HasWriteTrylock<L>, HasDowngrade<L>};
}

struct LockMeta {
  std::string_view name;
  Family family;
  Fairness fairness;
  std::string_view origin;
  Capabilities caps;
  bool busted;  // a deliberately broken lock: excluded from family selections
};

}  // namespace rwstress
