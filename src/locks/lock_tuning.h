// Run-time knobs of the locks that have them. A lock that takes a
// LockTuning in its constructor reads it once there; the others ignore it.
//
// A knob is declared once, in kKnobs below: the CLI option, its help and
// check, the replay line, the scenario key (and so compare's --ignore), the
// JSON document and the fuzzer's draws and shrinking are all made from that row. Adding
// one is a field here and a row there.
#pragma once

#include <algorithm>

#include <span>
#include <string>
#include <string_view>

namespace rwstress {

struct LockTuning {
  // Modern rwsem: a waiter that has waited longer than handoff_after_us sets
  // the HANDOFF bit, after which nobody may steal the lock from it.
  int handoff = 1;
  int handoff_after_us = 4000;  // the kernel's RWSEM_WAIT_TIMEOUT: 4 ms (not a knob)
  // Modern rwsem: a reader arriving while others read may take the lock
  // even if writers wait (reader lock stealing).
  int reader_steal = 1;
  // Spin-before-sleep limit of the optimistic spinners (modern rwsem):
  // turns of cpu_relax on one owner, the userspace stand-in for the
  // kernel's "while owner->on_cpu".
  int spin_limit = 2000;
  // XADD rwsem (xadd): wake every queued reader when the head is a reader
  // (the slightly-unfair wake of the 2001 rwsem benchmark), instead of the
  // head run.
  int xadd_unfair_wake = 0;
  // XADD rwsem: a waker that backs out of its 0 -> 1 claim retries only if
  // the whole count went to 0, as 2.4.4's lib/rwsem.c did; that count is
  // never 0 while anyone waits, so a holder that left while the claim was
  // up strands the queue until the next locker arrives (off: retry whenever
  // the active part is 0, which closes the strand).
  int xadd_original_retry = 0;
};

// One word a choice knob accepts on the command line, and its value.
struct KnobChoice {
  std::string_view word;
  int value;
};

struct Knob {
  std::string_view flag;  // the CLI option without "--"
  std::string_view key;   // its part of the scenario key (key=word), and compare --ignore's name
  std::string_view json;  // its name under "tuning" in the JSON document
  int LockTuning::*field;
  // A choice knob takes one of these words (JSON: true/false when the
  // values are 0 and 1); with none, an integer in [min, max].
  std::span<const KnobChoice> choices;
  int min = 0;
  int max = 0;
  std::string_view locks;  // the registered locks that read it, space-separated
  std::string_view help;
  // Whether fuzz trials draw it: not a knob whose other setting is a
  // historical bug kept for reproducing it.
  bool drawn = true;
};

// Whether lock `lock` (a registered name) reads knob `k`.
inline bool reads_knob(const Knob& k, std::string_view lock) {
  std::string_view rest = k.locks;
  while (!rest.empty()) {
    const std::size_t space = std::min(rest.find(' '), rest.size());
    if (rest.substr(0, space) == lock) return true;
    rest.remove_prefix(std::min(space + 1, rest.size()));
  }
  return false;
}

inline constexpr KnobChoice kOnOff[] = {{"on", 1}, {"off", 0}};
inline constexpr KnobChoice kXaddWake[] = {{"fair", 0}, {"unfair", 1}};
inline constexpr KnobChoice kXaddRetry[] = {{"active", 0}, {"original", 1}};

inline constexpr Knob kKnobs[] = {
    {"rwsem-handoff", "handoff", "rwsem_handoff", &LockTuning::handoff, kOnOff, 0, 0,
     "linux-rwsem", "modern rwsem (linux-rwsem): hand the lock to a waiter that waited too long"},
    {"rwsem-reader-steal", "reader-steal", "rwsem_reader_steal", &LockTuning::reader_steal, kOnOff,
     0, 0, "linux-rwsem", "modern rwsem: readers may take a read-held lock past waiting writers"},
    {"spin-limit", "spin-limit", "spin_limit", &LockTuning::spin_limit, {}, 0, 1 << 24,
     "linux-rwsem",
     "optimistic spinning on one lock owner before sleeping, in pause turns "
     "(modern rwsem: the stand-in for owner->on_cpu)"},
    {"xadd-wake", "xadd-wake", "xadd_unfair_wake", &LockTuning::xadd_unfair_wake, kXaddWake, 0, 0,
     "xadd", "xadd's wake: fair (the head run of readers) or unfair (every queued reader)"},
    {"xadd-retry", "xadd-retry", "xadd_original_retry", &LockTuning::xadd_original_retry,
     kXaddRetry, 0, 0, "xadd",
     "xadd's wake claim: active (retry when the active part is 0) or original "
     "(2.4.4: only when the whole count is 0, which can strand the queue)",
     false},
};

// How a knob's value is written on the replay line and in the scenario key:
// its word, or the number.
inline std::string knob_text(const Knob& k, int value) {
  for (const KnobChoice& c : k.choices)
    if (c.value == value) return std::string(c.word);
  return std::to_string(value);
}

// Whether a choice knob is a switch (its values 0 and 1): JSON says true/false.
inline bool knob_is_switch(const Knob& k) noexcept {
  return k.choices.size() == 2 && k.choices[0].value + k.choices[1].value == 1 &&
         k.choices[0].value * k.choices[1].value == 0;
}

// The knobs that differ from their defaults, each written as `prefix name
// sep word`: the replay line's " --xadd-wake unfair" and the scenario key's
// " xadd-wake=unfair"; empty when none differs.
inline std::string changed_knobs(const LockTuning& t, bool as_flags) {
  const LockTuning defaults;
  std::string out;
  for (const Knob& k : kKnobs)
    if (t.*k.field != defaults.*k.field)
      out += (as_flags ? " --" : " ") + std::string(as_flags ? k.flag : k.key) +
             (as_flags ? " " : "=") + knob_text(k, t.*k.field);
  return out;
}
inline std::string knob_flags(const LockTuning& t) { return changed_knobs(t, true); }
inline std::string knob_key(const LockTuning& t) { return changed_knobs(t, false); }

}  // namespace rwstress
