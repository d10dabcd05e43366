// The one grammar for fault injection (docs/injection.md), parsed once into
// typed values:
//
//   SPEC  := KIND [ '@' POINT { '+' POINT } ] [ ':' PARAM { ',' PARAM } ]
//   PARAM := 'p=' PROBABILITY | 'every=' (COUNT | DURATION) | 'for=' DURATION
//          | 'fixed(' DURATION ')' | 'uniform(' DURATION ',' DURATION ')'
//          | 'exp(' DURATION ')'
//
//   yield@in-cs:p=0.01
//   delay@before-sleep+after-enqueue:exp(2us)
//   stutter:every=500ms,for=50ms
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "locks/hooks.h"

namespace rwstress {

enum class InjectKind : std::uint8_t {
  kYield,         // sched_yield() at a point
  kDelay,         // busy-wait for a sampled time
  kSleep,         // sleep for a sampled time: the thread is "preempted"
  kLongHold,      // an occasional very long critical section (in-cs only)
  kStall,         // one thread at a time frozen mid-operation for a while
  kSpuriousWake,  // futex_wait returns without a wake
  kStutter,       // all workers paused together, released together
  kShuffle,       // threads re-pinned to other CPUs
  kCpuOffline,    // one CPU taken from every thread for a while
  kPriority,      // a thread's nice value raised for a while
  kSignal,        // a fatal signal for a kernel-layer task about to sleep
  kResched,       // need_resched() says yes at a kernel-layer check
};
inline constexpr int kInjectKindCount = 12;

// Worker-loop points first, then the lock hook points in HookPoint order,
// then the futex wrapper and the kernel layer's need_resched().
enum class InjectPoint : std::uint8_t {
  kBeforeAcquire,
  kInCs,
  kBeforeRelease,
  kAfterRelease,
  kBetweenPasses,
  kAfterEnqueue,
  kBeforeSleep,
  kAfterWake,
  kBeforeWake,
  kSpin,
  kMidRelease,
  kWaitUnlock,
  kFastPath,
  kFutexWait,
  kNeedResched,  // a kernel-compat plugin's need_resched() check (resched only)
};
inline constexpr int kInjectPointCount = 15;
inline constexpr int kFirstHookPoint = int(InjectPoint::kAfterEnqueue);

constexpr InjectPoint inject_point_of(HookPoint p) {
  return InjectPoint(kFirstHookPoint + int(p));
}

const char* inject_kind_name(InjectKind k);
const char* inject_point_name(InjectPoint p);
std::string inject_kind_help(InjectKind k);  // with its defaults
const char* inject_point_help(InjectPoint p);
bool is_global(InjectKind k);  // fires on a timer, not at points

struct Distribution {
  enum class Shape : std::uint8_t { kFixed, kUniform, kExp };
  Shape shape = Shape::kFixed;
  std::chrono::nanoseconds a{0};  // fixed value, uniform low, exponential mean
  std::chrono::nanoseconds b{0};  // uniform high

  // Exponential samples are cut at kExpCut means (a draw beyond it has
  // probability e^-20, about 2e-9), so that every distribution has a
  // largest value the watchdog guard can check.
  static constexpr int kExpCut = 20;

  std::chrono::nanoseconds sample(std::mt19937_64& rng) const;
  std::chrono::nanoseconds max() const;  // the largest value sample() returns
  std::string describe() const;  // "fixed(2us)", "uniform(1us,5us)", "exp(2us)"
};

struct InjectSpec {
  InjectKind kind = InjectKind::kYield;
  std::vector<InjectPoint> points;  // empty for global kinds
  double p = 0;                      // per visit; 0 with `every_visits`
  std::uint64_t every_visits = 0;    // point kinds: every Nth visit
  std::chrono::nanoseconds every{0};  // global kinds: period
  std::chrono::nanoseconds span{0};   // global kinds: `for=`
  Distribution dist;
  std::string text;  // the spec as written, for reports

  std::string describe() const;  // canonical form, parses back to the same spec

  // The longest a single firing keeps a thread (or, for stutter, every
  // thread) from progressing; 0 for kinds that do not pause.
  std::chrono::nanoseconds longest_pause() const;
};

// Parses one spec. On error returns nullopt and sets *error to one line
// that names what is wrong and where ("... at 'exp(2x)'").
std::optional<InjectSpec> parse_inject_spec(std::string_view text, std::string* error);

// `rwstress list injectors`: every kind and every point, with defaults.
std::string describe_injectors();

// A run's --inject specs, in the order given.
struct InjectionPlan {
  std::vector<InjectSpec> specs;

  bool empty() const { return specs.empty(); }
};

}  // namespace rwstress
