#include "injectors/inject_spec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "platform/duration.h"

namespace rwstress {

namespace {

// Everything about a kind, declared once: its name and help, whether it
// fires on a timer (global) or at points, whether it takes a duration, the
// only point it may fire at, and its defaults. The parser, describe(), the
// pause guard and `rwstress list injectors` read this table.
struct KindInfo {
  InjectKind kind;
  const char* name;
  const char* help;  // what it does; the defaults are added from the fields below
  bool global = false;  // fires on a timer for every worker (every=, for=), not at points
  bool timed = false;   // takes a duration: fixed(), uniform(), exp()
  std::optional<InjectPoint> only_at = std::nullopt;  // the one point it fires at (the default)
  double p = 1;                          // point kinds: probability per visit
  std::chrono::nanoseconds dist{0};      // timed kinds: fixed(dist)
  std::chrono::nanoseconds every{0};     // global kinds
  std::chrono::nanoseconds span{0};      // global kinds but shuffle: for=
};

using namespace std::chrono_literals;

constexpr KindInfo kKinds[] = {
    {InjectKind::kYield, "yield", "sched_yield() at the point"},
    {InjectKind::kDelay, "delay", "busy-wait a sampled time at the point", false, true,
     std::nullopt, 1, 1us},
    {InjectKind::kSleep, "sleep", "sleep a sampled time at the point, as a preemption would",
     false, true, std::nullopt, 1, 100us},
    {InjectKind::kLongHold, "long-hold", "an occasional very long critical section", false, true,
     InjectPoint::kInCs, 0.001, 10ms},
    {InjectKind::kStall, "stall", "freeze one thread at a time mid-operation", false, true,
     std::nullopt, 0.0001, 100ms},
    {InjectKind::kSpuriousWake, "spurious-wake", "futex_wait returns without a wake", false, false,
     InjectPoint::kFutexWait, 0.1},
    {InjectKind::kStutter, "stutter", "pause every worker together, release together", true,
     false, std::nullopt, 1, 0ns, 500ms, 50ms},
    {InjectKind::kShuffle, "shuffle", "re-pin the threads to other CPUs", true, false,
     std::nullopt, 1, 0ns, 200ms},
    {InjectKind::kCpuOffline, "cpu-offline",
     "take one CPU from every thread's allowed set for a while", true, false, std::nullopt, 1, 0ns,
     500ms, 100ms},
    {InjectKind::kPriority, "priority",
     "one thread, for a while: reniced to 19, or every other time a SCHED_FIFO burst where "
     "permitted",
     true, false, std::nullopt, 1, 0ns, 300ms, 100ms},
    {InjectKind::kSignal, "signal",
     "a fatal signal for a task of a kernel-compat plugin that goes to sleep: a killable or "
     "interruptible wait wakes and bails out (-EINTR), an uninterruptible one keeps it pending; "
     "nothing for other locks",
     false, false, InjectPoint::kBeforeSleep, 0.05},
    {InjectKind::kResched, "resched",
     "need_resched() says yes at a kernel-compat plugin's check, as when the scheduler wants the "
     "CPU: optimistic spinners stop and sleep; nothing for other locks",
     false, false, InjectPoint::kNeedResched, 0.01},
};

const KindInfo& info(InjectKind k) { return kKinds[int(k)]; }

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
    {InjectPoint::kWaitUnlock, "wait-unlock",
     "lock: its internal spin lock (the wait-list lock) just dropped, the decision taken under "
     "it not yet acted on"},
    {InjectPoint::kFastPath, "fast-path",
     "lock: a fast path between its check and its act (the kernel-compat layer's "
     "percpu_down_read: rcu_sync idle, count not yet raised)"},
    {InjectPoint::kFutexWait, "futex-wait", "the futex wrapper (spurious-wake only)"},
    {InjectPoint::kNeedResched, "need-resched",
     "kernel-compat layer: a need_resched() check (resched only)"},
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
std::string inject_kind_help(InjectKind k) {
  // The defaults, from the table: "(in-cs only; default p=0.001, fixed(10ms))".
  const KindInfo& i = info(k);
  std::vector<std::string> defaults;
  if (i.global) {
    defaults.push_back("every=" + format_duration(i.every));
    if (i.span.count()) defaults.push_back("for=" + format_duration(i.span));
  } else {
    defaults.push_back(fmt::format("p={}", i.p));
    if (i.timed) defaults.push_back(fmt::format("fixed({})", format_duration(i.dist)));
  }
  return fmt::format("{} ({}default {})", i.help,
                     i.only_at ? fmt::format("{} only; ", inject_point_name(*i.only_at)) : "",
                     fmt::join(defaults, ", "));
}
const char* inject_point_name(InjectPoint p) { return kPoints[int(p)].name; }
const char* inject_point_help(InjectPoint p) { return kPoints[int(p)].help; }

bool is_global(InjectKind k) { return info(k).global; }

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
  if (info(kind).timed) return dist.max();
  return kind == InjectKind::kStutter ? span : std::chrono::nanoseconds(0);  // every worker paused
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
    if (info(kind).timed) params.push_back(dist.describe());
  }
  out += ":";
  for (size_t i = 0; i < params.size(); ++i) out += (i ? "," : "") + params[i];
  return out;
}

namespace {

// One --inject spec being parsed: where it is, and how to say what is wrong.
struct SpecParser {
  std::string_view text;
  std::string* error;
  InjectSpec spec;
  bool has_dist = false;
  bool has_p = false, has_every = false, has_for = false;  // each said once, p= and every= not both

  bool bad(const std::string& why, std::string_view where) {
    *error = fmt::format("--inject '{}': {}{}", text, why,
                         where.empty() ? "" : fmt::format(" at '{}'", where));
    return false;
  }

  // KIND[@POINT[+POINT...]]; the kind's defaults from its row of kKinds.
  bool head(std::string_view head) {
    const size_t at = head.find('@');
    const std::string_view kind_name = head.substr(0, at);
    const KindInfo* kind = nullptr;
    for (const auto& k : kKinds)
      if (kind_name == k.name) kind = &k;
    if (!kind) {
      std::string names;
      for (const auto& k : kKinds) names += fmt::format("{}{}", names.empty() ? "" : ", ", k.name);
      return bad(fmt::format("unknown injector (one of: {})", names), kind_name);
    }
    spec.kind = kind->kind;
    spec.p = kind->p;
    spec.dist.a = kind->dist;
    spec.every = kind->every;
    spec.span = kind->span;
    if (at == head.npos) return true;
    if (kind->global) return bad("a global injector takes no point", head.substr(at));
    std::string_view rest = head.substr(at + 1);
    while (true) {
      const size_t plus = rest.find('+');
      const std::string_view name = rest.substr(0, plus);
      const PointInfo* point = nullptr;
      for (const auto& p : kPoints)
        if (name == p.name) point = &p;
      if (!point) return bad("unknown point (see rwstress list injectors)", name);
      // A point named twice would fire twice per visit: 8000 in-cs made
      // a 0.1 s run take 5.6 s and print 380 MB.
      if (std::find(spec.points.begin(), spec.points.end(), point->point) != spec.points.end())
        return bad("a point named twice", name);
      spec.points.push_back(point->point);
      if (plus == rest.npos) return true;
      rest = rest.substr(plus + 1);
    }
  }

  std::optional<std::chrono::nanoseconds> duration(std::string_view s, std::string_view param) {
    std::string err;
    auto d = parse_duration(std::string(s), &err, kShortest);
    if (!d) bad(err, param);
    return d;
  }

  // p=, every=, for=, fixed(), uniform(), exp().
  bool param(std::string_view param) {
    const bool global = info(spec.kind).global;
    auto dist_arg = [&](std::string_view name) -> std::optional<std::string_view> {
      if (param.substr(0, name.size()) != name || param.back() != ')') return std::nullopt;
      return param.substr(name.size(), param.size() - name.size() - 1);
    };
    // Each parameter once, and one way of saying how often: a second value
    // would silently replace the first.
    const bool is_p = param.substr(0, 2) == "p=", is_every = param.substr(0, 6) == "every=";
    const bool is_for = param.substr(0, 4) == "for=";
    const bool is_dist = dist_arg("fixed(") || dist_arg("exp(") || dist_arg("uniform(");
    if ((is_p && has_p) || (is_every && has_every) || (is_for && has_for) || (is_dist && has_dist))
      return bad(is_dist ? "one distribution per spec (fixed(), uniform() or exp())"
                         : "a parameter given twice",
                 param);
    if ((is_p && has_every) || (is_every && has_p && !global))
      return bad("p= (a probability) and every= (a count of visits) are one choice; give one", param);
    has_p |= is_p;
    has_every |= is_every;
    has_for |= is_for;
    if (is_p) {
      if (global) return bad("a global injector has no probability", param);
      std::string num(param.substr(2));
      char* end = nullptr;
      double p = std::strtod(num.c_str(), &end);
      if (num.empty() || *end != '\0' || !(p > 0 && p <= 1))
        return bad("p must be a probability in (0, 1]", param);
      spec.p = p;
    } else if (param.substr(0, 6) == "every=") {
      std::string value(param.substr(6));
      if (global) {
        auto d = duration(value, param);
        if (!d) return false;
        spec.every = *d;
      } else {
        std::uint64_t n = 0;
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n == 0)
          return bad("every= takes a count of visits (1, 2, ... up to 2^64-1) at a point", param);
        spec.every_visits = n;
        spec.p = 0;
      }
    } else if (param.substr(0, 4) == "for=") {
      if (!global || spec.kind == InjectKind::kShuffle)
        return bad("for= is for stutter, cpu-offline and priority", param);
      auto d = duration(param.substr(4), param);
      if (!d) return false;
      spec.span = *d;
    } else if (auto arg = dist_arg("fixed(")) {
      auto d = duration(*arg, param);
      if (!d) return false;
      spec.dist = {Distribution::Shape::kFixed, *d, {}};
      has_dist = true;
    } else if (auto arg = dist_arg("exp(")) {
      auto d = duration(*arg, param);
      if (!d) return false;
      spec.dist = {Distribution::Shape::kExp, *d, {}};
      has_dist = true;
    } else if (auto arg = dist_arg("uniform(")) {
      const size_t comma = arg->find(',');
      if (comma == arg->npos) return bad("uniform takes two durations: uniform(1us,5us)", param);
      auto lo = duration(arg->substr(0, comma), param);
      if (!lo) return false;
      auto hi = duration(arg->substr(comma + 1), param);
      if (!hi) return false;
      if (*hi < *lo) return bad("uniform(low,high) with high below low", param);
      spec.dist = {Distribution::Shape::kUniform, *lo, *hi};
      has_dist = true;
    } else {
      return bad("unknown parameter (p=, every=, for=, fixed(), uniform(), exp())", param);
    }
    return true;
  }

  // What the kind requires or forbids, from its row of kKinds.
  bool rules(std::string_view head, std::string_view params) {
    const KindInfo& k = info(spec.kind);
    if (has_dist && !k.timed) return bad(fmt::format("{} takes no duration", k.name), params);
    if (k.global) {
      if (k.span.count() && spec.span >= spec.every)
        return bad("for= must be shorter than every=", params);
      return true;
    }
    if (k.only_at) {
      if (spec.points.empty()) spec.points.push_back(*k.only_at);
      for (InjectPoint p : spec.points)
        if (p != *k.only_at)
          return bad(fmt::format("{} fires only at {}", k.name, inject_point_name(*k.only_at)),
                     inject_point_name(p));
      return true;
    }
    if (spec.points.empty())
      return bad(fmt::format("{} needs a point: {}@POINT (see rwstress list injectors)", k.name,
                             k.name),
                 head);
    for (InjectPoint p : spec.points)
      if (p == InjectPoint::kFutexWait)
        return bad("futex-wait is for spurious-wake only", inject_point_name(p));
      else if (p == InjectPoint::kNeedResched)
        return bad("need-resched is for resched only", inject_point_name(p));
    return true;
  }
};

}  // namespace

std::optional<InjectSpec> parse_inject_spec(std::string_view text, std::string* error) {
  SpecParser parser{text, error, {}};
  parser.spec.text = std::string(text);
  const size_t colon = text.find(':');
  const std::string_view head = text.substr(0, colon);
  const std::string_view params = colon == text.npos ? std::string_view() : text.substr(colon + 1);
  if (!parser.head(head)) return std::nullopt;
  if (!params.empty())
    for (std::string_view param : split_params(params))
      if (!parser.param(param)) return std::nullopt;
  if (!parser.rules(head, params)) return std::nullopt;
  return parser.spec;
}

std::string describe_injectors() {
  std::string out = "injectors (--inject KIND[@POINT[+POINT...]][:PARAM,...]):\n";
  for (const auto& k : kKinds) out += fmt::format("  {:<14} {}\n", k.name, inject_kind_help(k.kind));
  out += "\npoints:\n";
  for (const auto& p : kPoints) out += fmt::format("  {:<15} {}\n", p.name, p.help);
  out +=
      "\nparameters: p=PROBABILITY | every=N (visits; a duration for global injectors) | "
      "for=DURATION\n            | fixed(D) | uniform(D1,D2) | exp(MEAN)\n"
      "examples: yield@in-cs:p=0.01   delay@before-sleep:exp(2us)   stutter:every=500ms,for=50ms\n";
  return out;
}

}  // namespace rwstress
