#include "injectors/inject_spec.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "platform/duration.h"

namespace rwstress {

namespace {

struct KindInfo {
  InjectKind kind;
  const char* name;
  const char* help;
};

constexpr KindInfo kKinds[] = {
    {InjectKind::kYield, "yield", "sched_yield() at the point (default p=1)"},
    {InjectKind::kDelay, "delay", "busy-wait a sampled time at the point (default fixed(1us))"},
    {InjectKind::kSleep, "sleep",
     "sleep a sampled time at the point, as a preemption would (default fixed(100us))"},
    {InjectKind::kLongHold, "long-hold",
     "an occasional very long critical section; in-cs only (default p=0.001, fixed(10ms))"},
    {InjectKind::kStall, "stall",
     "freeze one thread at a time mid-operation (default p=0.0001, fixed(100ms))"},
    {InjectKind::kSpuriousWake, "spurious-wake",
     "futex_wait returns without a wake; point futex-wait (default p=0.1)"},
    {InjectKind::kStutter, "stutter",
     "pause every worker together, release together (every=, for=; default 500ms, 50ms)"},
    {InjectKind::kShuffle, "shuffle", "re-pin the threads to other CPUs (every=; default 200ms)"},
    {InjectKind::kCpuOffline, "cpu-offline",
     "take one CPU from every thread's allowed set for a while (every=, for=; default 500ms, "
     "100ms)"},
    {InjectKind::kPriority, "priority",
     "one thread, for a while: reniced to 19, or every other time a SCHED_FIFO burst where "
     "permitted (every=, for=; default 300ms, 100ms)"},
};

struct PointInfo {
  InjectPoint point;
  const char* name;
  const char* help;
};

constexpr PointInfo kPoints[] = {
    {InjectPoint::kBeforeAcquire, "before-acquire", "worker loop: about to take the lock"},
    {InjectPoint::kInCs, "in-cs", "worker loop: inside the critical section (the holder)"},
    {InjectPoint::kBeforeRelease, "before-release", "worker loop: about to release"},
    {InjectPoint::kAfterRelease, "after-release", "worker loop: just released"},
    {InjectPoint::kBetweenPasses, "between-passes", "worker loop: between two passes"},
    {InjectPoint::kAfterEnqueue, "after-enqueue", "lock: waiter queued, not yet asleep"},
    {InjectPoint::kBeforeSleep, "before-sleep", "lock: about to park in futex_wait"},
    {InjectPoint::kAfterWake, "after-wake", "lock: futex_wait returned"},
    {InjectPoint::kBeforeWake, "before-wake", "lock: a releaser is about to wake waiters"},
    {InjectPoint::kSpin, "spin", "lock: one turn of a busy-wait loop"},
    {InjectPoint::kMidRelease, "mid-release", "lock: between two steps of a release"},
    {InjectPoint::kFutexWait, "futex-wait", "the futex wrapper (spurious-wake only)"},
};

// Splits at top-level commas (not inside parentheses).
std::vector<std::string_view> split_params(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (s[i] == ',' && depth == 0)) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    } else if (s[i] == '(') {
      ++depth;
    } else if (s[i] == ')') {
      --depth;
    }
  }
  return out;
}

constexpr auto kShortest = std::chrono::nanoseconds(1);

}  // namespace

const char* inject_kind_name(InjectKind k) { return kKinds[int(k)].name; }
const char* inject_kind_help(InjectKind k) { return kKinds[int(k)].help; }
const char* inject_point_name(InjectPoint p) { return kPoints[int(p)].name; }
const char* inject_point_help(InjectPoint p) { return kPoints[int(p)].help; }

bool is_global(InjectKind k) {
  return k == InjectKind::kStutter || k == InjectKind::kShuffle || k == InjectKind::kCpuOffline ||
         k == InjectKind::kPriority;
}

std::chrono::nanoseconds Distribution::sample(std::mt19937_64& rng) const {
  switch (shape) {
    case Shape::kFixed: return a;
    case Shape::kUniform:
      return std::chrono::nanoseconds(
          std::uniform_int_distribution<std::int64_t>(a.count(), b.count())(rng));
    case Shape::kExp:
      return std::min(max(), std::chrono::nanoseconds(std::int64_t(std::llround(
                                 std::exponential_distribution<double>(1.0 / double(a.count()))(rng)))));
  }
  return a;
}

std::chrono::nanoseconds Distribution::max() const {
  switch (shape) {
    case Shape::kFixed: return a;
    case Shape::kUniform: return b;
    case Shape::kExp: return a * kExpCut;
  }
  return a;
}

std::chrono::nanoseconds InjectSpec::longest_pause() const {
  switch (kind) {
    case InjectKind::kDelay:
    case InjectKind::kSleep:
    case InjectKind::kLongHold:
    case InjectKind::kStall: return dist.max();
    case InjectKind::kStutter: return span;
    default: return std::chrono::nanoseconds(0);
  }
}

std::string Distribution::describe() const {
  switch (shape) {
    case Shape::kFixed: return fmt::format("fixed({})", format_duration(a));
    case Shape::kUniform: return fmt::format("uniform({},{})", format_duration(a), format_duration(b));
    case Shape::kExp: return fmt::format("exp({})", format_duration(a));
  }
  return "?";
}

std::string InjectSpec::describe() const {
  std::string out = inject_kind_name(kind);
  for (size_t i = 0; i < points.size(); ++i)
    out += fmt::format("{}{}", i == 0 ? "@" : "+", inject_point_name(points[i]));
  std::vector<std::string> params;
  if (is_global(kind)) {
    params.push_back("every=" + format_duration(every));
    if (kind != InjectKind::kShuffle) params.push_back("for=" + format_duration(span));
  } else {
    params.push_back(every_visits ? fmt::format("every={}", every_visits) : fmt::format("p={}", p));
    if (kind != InjectKind::kYield && kind != InjectKind::kSpuriousWake)
      params.push_back(dist.describe());
  }
  out += ":";
  for (size_t i = 0; i < params.size(); ++i) out += (i ? "," : "") + params[i];
  return out;
}

std::optional<InjectSpec> parse_inject_spec(std::string_view text, std::string* error) {
  auto bad = [&](std::string why, std::string_view where) -> std::optional<InjectSpec> {
    *error = fmt::format("--inject '{}': {}{}", text, why,
                         where.empty() ? "" : fmt::format(" at '{}'", where));
    return std::nullopt;
  };
  InjectSpec spec;
  spec.text = std::string(text);
  const size_t colon = text.find(':');
  std::string_view head = text.substr(0, colon);
  std::string_view params = colon == text.npos ? std::string_view() : text.substr(colon + 1);
  const size_t at = head.find('@');
  std::string_view kind_name = head.substr(0, at);

  bool known_kind = false;
  for (const auto& k : kKinds)
    if (kind_name == k.name) {
      spec.kind = k.kind;
      known_kind = true;
    }
  if (!known_kind) {
    std::string names;
    for (const auto& k : kKinds) names += fmt::format("{}{}", names.empty() ? "" : ", ", k.name);
    return bad(fmt::format("unknown injector (one of: {})", names), kind_name);
  }

  if (at != head.npos) {
    if (is_global(spec.kind)) return bad("a global injector takes no point", head.substr(at));
    std::string_view rest = head.substr(at + 1);
    while (true) {
      size_t plus = rest.find('+');
      std::string_view name = rest.substr(0, plus);
      bool found = false;
      for (const auto& p : kPoints)
        if (name == p.name) {
          spec.points.push_back(p.point);
          found = true;
        }
      if (!found) return bad("unknown point (see rwstress list injectors)", name);
      if (plus == rest.npos) break;
      rest = rest.substr(plus + 1);
    }
  }

  // Defaults, then the parameters.
  using namespace std::chrono_literals;
  spec.p = 1;
  switch (spec.kind) {
    case InjectKind::kDelay: spec.dist.a = 1us; break;
    case InjectKind::kSleep: spec.dist.a = 100us; break;
    case InjectKind::kLongHold:
      spec.p = 0.001;
      spec.dist.a = 10ms;
      break;
    case InjectKind::kStall:
      spec.p = 0.0001;
      spec.dist.a = 100ms;
      break;
    case InjectKind::kSpuriousWake: spec.p = 0.1; break;
    case InjectKind::kStutter:
      spec.every = 500ms;
      spec.span = 50ms;
      break;
    case InjectKind::kShuffle: spec.every = 200ms; break;
    case InjectKind::kCpuOffline:
      spec.every = 500ms;
      spec.span = 100ms;
      break;
    case InjectKind::kPriority:
      spec.every = 300ms;
      spec.span = 100ms;
      break;
    default: break;
  }

  bool has_dist = false, has_rate = false;
  if (!params.empty()) {
    for (std::string_view param : split_params(params)) {
      auto duration = [&](std::string_view s) -> std::optional<std::chrono::nanoseconds> {
        std::string err;
        auto d = parse_duration(std::string(s), &err, kShortest);
        if (!d) bad(err, param);
        return d;
      };
      auto dist_arg = [&](std::string_view name) -> std::optional<std::string_view> {
        if (param.substr(0, name.size()) != name || param.back() != ')') return std::nullopt;
        return param.substr(name.size(), param.size() - name.size() - 1);
      };
      if (param.substr(0, 2) == "p=") {
        if (is_global(spec.kind)) return bad("a global injector has no probability", param);
        std::string num(param.substr(2));
        char* end = nullptr;
        double p = std::strtod(num.c_str(), &end);
        if (num.empty() || *end != '\0' || !(p > 0 && p <= 1))
          return bad("p must be a probability in (0, 1]", param);
        spec.p = p;
        has_rate = true;
      } else if (param.substr(0, 6) == "every=") {
        std::string value(param.substr(6));
        if (is_global(spec.kind)) {
          auto d = duration(value);
          if (!d) return std::nullopt;
          spec.every = *d;
        } else {
          std::uint64_t n = 0;
          auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
          if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n == 0)
            return bad("every= takes a count of visits (1, 2, ... up to 2^64-1) at a point", param);
          spec.every_visits = n;
          spec.p = 0;
        }
        has_rate = true;
      } else if (param.substr(0, 4) == "for=") {
        if (!is_global(spec.kind) || spec.kind == InjectKind::kShuffle)
          return bad("for= is for stutter, cpu-offline and priority", param);
        auto d = duration(param.substr(4));
        if (!d) return std::nullopt;
        spec.span = *d;
      } else if (auto arg = dist_arg("fixed(")) {
        auto d = duration(*arg);
        if (!d) return std::nullopt;
        spec.dist = {Distribution::Shape::kFixed, *d, {}};
        has_dist = true;
      } else if (auto arg = dist_arg("exp(")) {
        auto d = duration(*arg);
        if (!d) return std::nullopt;
        spec.dist = {Distribution::Shape::kExp, *d, {}};
        has_dist = true;
      } else if (auto arg = dist_arg("uniform(")) {
        size_t comma = arg->find(',');
        if (comma == arg->npos) return bad("uniform takes two durations: uniform(1us,5us)", param);
        auto lo = duration(arg->substr(0, comma));
        if (!lo) return std::nullopt;
        auto hi = duration(arg->substr(comma + 1));
        if (!hi) return std::nullopt;
        if (*hi < *lo) return bad("uniform(low,high) with high below low", param);
        spec.dist = {Distribution::Shape::kUniform, *lo, *hi};
        has_dist = true;
      } else {
        return bad("unknown parameter (p=, every=, for=, fixed(), uniform(), exp())", param);
      }
    }
  }
  (void)has_rate;

  // What each kind requires or forbids.
  const bool timed = spec.kind == InjectKind::kDelay || spec.kind == InjectKind::kSleep ||
                     spec.kind == InjectKind::kLongHold || spec.kind == InjectKind::kStall;
  if (has_dist && !timed) return bad(fmt::format("{} takes no duration", kind_name), params);
  if (is_global(spec.kind)) {
    if (spec.span >= spec.every && spec.kind != InjectKind::kShuffle)
      return bad("for= must be shorter than every=", params);
    return spec;
  }
  if (spec.kind == InjectKind::kSpuriousWake) {
    if (spec.points.empty()) spec.points.push_back(InjectPoint::kFutexWait);
    for (InjectPoint p : spec.points)
      if (p != InjectPoint::kFutexWait)
        return bad("spurious-wake fires only at futex-wait", inject_point_name(p));
    return spec;
  }
  if (spec.kind == InjectKind::kLongHold) {
    if (spec.points.empty()) spec.points.push_back(InjectPoint::kInCs);
    for (InjectPoint p : spec.points)
      if (p != InjectPoint::kInCs) return bad("long-hold fires only at in-cs", inject_point_name(p));
    return spec;
  }
  if (spec.points.empty())
    return bad(fmt::format("{} needs a point: {}@POINT (see rwstress list injectors)", kind_name,
                           kind_name),
               head);
  for (InjectPoint p : spec.points)
    if (p == InjectPoint::kFutexWait)
      return bad("futex-wait is for spurious-wake only", inject_point_name(p));
  return spec;
}

std::string describe_injectors() {
  std::string out = "injectors (--inject KIND[@POINT[+POINT...]][:PARAM,...]):\n";
  for (const auto& k : kKinds) out += fmt::format("  {:<14} {}\n", k.name, k.help);
  out += "\npoints:\n";
  for (const auto& p : kPoints) out += fmt::format("  {:<15} {}\n", p.name, p.help);
  out +=
      "\nparameters: p=PROBABILITY | every=N (visits; a duration for global injectors) | "
      "for=DURATION\n            | fixed(D) | uniform(D1,D2) | exp(MEAN)\n"
      "examples: yield@in-cs:p=0.01   delay@before-sleep:exp(2us)   stutter:every=500ms,for=50ms\n";
  return out;
}

}  // namespace rwstress
