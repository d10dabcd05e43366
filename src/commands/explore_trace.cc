// explore_trace.h: a controlled schedule as text and as trace events.
#include "commands/explore_trace.h"

#include <algorithm>
#include <chrono>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platform/duration.h"
#include "run/explore_run.h"

namespace rwstress {

namespace ctl = controlled;

std::string explore_thread_name(const ExploreShape& shape, int t) {
  if (shape.scenario.family != Family::kRwlock) return fmt::format("T{}", t);
  return t < shape.scenario.readers ? fmt::format("R{}", t) : fmt::format("W{}", t);
}

std::string explore_word_name(const ExploredSchedule& e, const ExploreShape& shape,
                              const void* w) {
  if (!w) return "";
  const auto* b = static_cast<const char*>(e.lock_begin);
  const auto* p = static_cast<const char*>(w);
  if (p >= b && p < b + e.lock_size) return fmt::format("lock+{:#x}", p - b);
  if (const ctl::NamedObject* o = ctl::object_of(e.schedule, w)) {
    const auto* ob = static_cast<const char*>(o->begin);
    const std::string who = explore_thread_name(shape, o->thread) + ":" + o->what;
    if (o->from_end) return fmt::format("{}-{:#x}", who, ob + o->size - p);
    return p == ob ? who : fmt::format("{}+{:#x}", who, p - ob);
  }
  return fmt::format("{}", w);
}

namespace {

// A step's value as the trace shows it: what a load read (and, for a
// weak one, what memory held), a store's before and after, a tick, a
// time jump.
std::string step_value(const ctl::Step& s, const ExploreShape& shape) {
  std::string value;
  if (s.older > 0)  // a load that read an older value than memory held
    value = fmt::format("{:#x} (memory: {:#x}; an older store the model allows)", s.after,
                        s.before);
  else if (s.early)  // a store placed before the latest one, which memory keeps
    value = fmt::format("{:#x} -> {:#x} (placed before the latest store, {}'s, unseen by this "
                        "thread: memory keeps {:#x})",
                        s.before, s.after,
                        s.early_of >= 0 ? explore_thread_name(shape, s.early_of) : "another thread",
                        s.before);
  else if (s.has_value)
    value = s.before == s.after ? fmt::format("{:#x}", s.before)
                                : fmt::format("{:#x} -> {:#x}", s.before, s.after);
  if (s.tick) value += std::string(value.empty() ? "" : "  ") + "(a tick: need_resched() is true)";
  if (s.jump_ns > 0)  // (jiffies at the kernel-compat layer's HZ, 1000)
    value += std::string(value.empty() ? "" : "  ") +
             fmt::format("(time jumps: +{}, jiffies +{})",
                         format_duration(std::chrono::nanoseconds(s.jump_ns)),
                         s.jump_ns / 1'000'000);
  if (s.foreign_wake)
    value += std::string(value.empty() ? "" : "  ") +
             "(the task is on another waker's wake_q: woken now, not queued)";
  if (s.interrupt)
    value += std::string(value.empty() ? "" : "  ") +
             "(an interrupt arrives on this CPU: its handler runs next)";
  if (s.arrived)
    value += std::string(value.empty() ? "" : "  ") +
             "(a real-time thread arrives: its first step, preempting its CPU)";
  return value;
}

}  // namespace

std::vector<std::string> explore_trace_lines(const ExploredSchedule& e, const ExploreShape& shape,
                                             int last) {
  const auto& trace = e.schedule.trace;
  auto same = [&](std::size_t i, std::size_t j) {
    const ctl::Step& a = trace[i];
    const ctl::Step& b = trace[j];
    return a.thread == b.thread && std::string_view(a.what) == b.what && a.word == b.word &&
           a.has_value == b.has_value && a.before == b.before && a.after == b.after &&
           a.older == b.older && a.early == b.early && a.tick == b.tick && a.jump_ns == b.jump_ns &&
           a.foreign_wake == b.foreign_wake && a.interrupt == b.interrupt && a.arrived == b.arrived;
  };
  struct Group {
    std::size_t first, count, period;  // `count` times the `period` steps from `first`
  };
  constexpr std::size_t kLongestCycle = 4, kFoldFrom = 3;
  std::vector<Group> groups;  // from the end backwards
  for (std::size_t i = trace.size(); i > 0 && groups.size() < std::size_t(last);) {
    // The period whose block, ending at i, repeats most often backwards.
    Group best{i - 1, 1, 1};
    for (std::size_t p = 1; p <= kLongestCycle && p <= i; ++p) {
      std::size_t times = 1;
      while ((times + 1) * p <= i) {
        const std::size_t from = i - (times + 1) * p;
        bool equal = true;
        for (std::size_t k = 0; k < p && equal; ++k) equal = same(from + k, i - p + k);
        if (!equal) break;
        ++times;
      }
      const bool folds = p == 1 ? times > 1 : times >= kFoldFrom;
      if (folds && times * p > best.count * best.period) best = {i - times * p, times, p};
    }
    groups.push_back(best);
    i = best.first;
  }
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{:>7}  {:<6} {:<22} {:<18} {}", "step", "thread", "point", "word",
                              "value"));
  auto step_line = [&](std::size_t at, const std::string& note) {
    const ctl::Step& s = trace[at];
    std::string value = step_value(s, shape);
    if (!note.empty()) value += (value.empty() ? "" : "  ") + note;
    lines.push_back(fmt::format("{:>7}  {:<6} {:<22} {:<18} {}", at + 1,
                                explore_thread_name(shape, s.thread), s.what,
                                explore_word_name(e, shape, s.word),
                                value));
  };
  // The loads that read an older store, the stores placed before the
  // latest one (the weak steps a memory-model failure turns on) and the
  // ticks (a spinner told to stop) before the window, the last
  // kEarlierOlder of them, so that the trace shows them however long the
  // run went on after.
  constexpr std::size_t kEarlierOlder = 8;
  const std::size_t shown_from = groups.empty() ? trace.size() : groups.back().first;
  std::vector<std::size_t> earlier;
  for (std::size_t i = 0; i < shown_from; ++i)
    if (trace[i].older > 0 || trace[i].early || trace[i].tick || trace[i].jump_ns > 0 ||
        trace[i].foreign_wake || trace[i].interrupt || trace[i].arrived)
      earlier.push_back(i);
  if (!earlier.empty()) {
    const std::size_t skipped = earlier.size() > kEarlierOlder ? earlier.size() - kEarlierOlder : 0;
    lines.push_back(fmt::format("{:>7}  (earlier: the chosen events, loads that read an older "
                                "store, stores placed early, ticks, time jumps, wake-ups from another wake_q, interrupts and arrivals{})",
                                "",
                                skipped ? fmt::format(", the last {} of {}", kEarlierOlder,
                                                      earlier.size())
                                        : ""));
    for (std::size_t k = skipped; k < earlier.size(); ++k) step_line(earlier[k], "");
    lines.push_back(fmt::format("{:>7}  (then the last steps)", ""));
  }
  for (auto g = groups.rbegin(); g != groups.rend(); ++g) {
    if (g->period == 1) {
      step_line(g->first, g->count > 1 ? fmt::format("({} times, to step {})", g->count,
                                                     g->first + g->count)
                                       : "");
      continue;
    }
    for (std::size_t k = 0; k < g->period; ++k) step_line(g->first + k, "");
    lines.push_back(fmt::format("{:>7}  (the {} steps above, {} times in a row, to step {})", "",
                                g->period, g->count, g->first + g->period * g->count));
  }
  return lines;
}

namespace {

// What opens a hold on a thread's track, and its name there; the thread's
// next "released" mark (explore_run.h) closes it.
const char* hold_name(std::string_view point) {
  if (point == "reader inside") return "holds (read)";
  if (point == "writer inside") return "holds (write)";
  if (point == "holder inside") return "holds";
  if (point == "downgraded: reading") return "holds (read, downgraded)";
  return nullptr;
}

// Trace-event times are microseconds: step N (1-based) at N µs.
double step_ts(std::size_t index) { return double(index + 1); }

}  // namespace

void append_trace_events(nlohmann::json& events, const ExploredSchedule& e,
                         const ExploreShape& shape, int pid, const std::string& title,
                         const std::vector<std::string>& findings, std::uint64_t* next_flow) {
  using nlohmann::json;
  const std::vector<ctl::Step>& trace = e.schedule.trace;
  const int threads = shape.scenario.threads();
  const auto tid = [](int thread) { return thread + 1; };
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", title}}}});
  events.push_back(
      {{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
  for (int t = 0; t < threads; ++t) {
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid(t)},
                      {"args", {{"name", explore_thread_name(shape, t)}}}});
    events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid(t)},
                      {"args", {{"sort_index", t}}}});
  }
  // Slices, sorted by start and the longer first, so that a hold encloses
  // the steps it spans in every viewer.
  std::vector<json> slices;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const ctl::Step& s = trace[i];
    json args = {{"step", i + 1}};
    if (s.word) args["word"] = explore_word_name(e, shape, s.word);
    if (std::string value = step_value(s, shape); !value.empty()) args["value"] = value;
    slices.push_back({{"ph", "X"}, {"cat", "step"}, {"name", s.what}, {"pid", pid},
                      {"tid", tid(s.thread)}, {"ts", step_ts(i)}, {"dur", 1}, {"args", args}});
    const char* hold = hold_name(s.what);
    if (!hold) continue;
    std::size_t end = trace.size();  // not released: held to the end
    for (const ctl::Schedule::Mark& m : e.schedule.marks)
      if (m.thread == s.thread && m.after > i && std::string_view(m.what) == "released") {
        end = m.after;
        break;
      }
    slices.push_back({{"ph", "X"}, {"cat", "hold"}, {"name", hold}, {"pid", pid},
                      {"tid", tid(s.thread)}, {"ts", step_ts(i)}, {"dur", double(end - i)},
                      {"args", {{"from step", i + 1}, {"to step", end}}}});
  }
  std::stable_sort(slices.begin(), slices.end(), [](const json& a, const json& b) {
    const double ta = a["ts"].get<double>(), tb = b["ts"].get<double>();
    if (ta != tb) return ta < tb;
    return a["dur"].get<double>() > b["dur"].get<double>();
  });
  for (json& slice : slices) events.push_back(std::move(slice));
  // An arrow from the middle of one step to the middle of another.
  const auto arrow = [&](const char* name, std::size_t from, std::size_t to) {
    const std::uint64_t id = (*next_flow)++;
    events.push_back({{"ph", "s"}, {"cat", "flow"}, {"name", name}, {"id", id}, {"pid", pid},
                      {"tid", tid(trace[from].thread)}, {"ts", step_ts(from) + 0.5}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"cat", "flow"}, {"name", name}, {"id", id},
                      {"pid", pid}, {"tid", tid(trace[to].thread)}, {"ts", step_ts(to) + 0.5}});
  };
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const ctl::Step& s = trace[i];
    for (int t = 0; t < threads && t < 64; ++t) {  // a wake: to the woken thread's next step
      if (!(s.woke >> t & 1)) continue;
      for (std::size_t j = i + 1; j < trace.size(); ++j)
        if (trace[j].thread == t) {
          arrow("wakes", i, j);
          break;
        }
    }
    if (s.older > 0 && s.word)  // a weak load: from the latest step that stored what it read
      for (std::size_t j = i; j-- > 0;) {
        const ctl::Step& w = trace[j];
        if (w.word == s.word && w.has_value && w.after == s.after && w.before != w.after) {
          arrow("read by a later load", j, i);
          break;
        }
      }
  }
  const double end = step_ts(trace.size());
  for (const std::string& f : findings)
    events.push_back(
        {{"ph", "i"}, {"s", "p"}, {"cat", "finding"}, {"name", f}, {"pid", pid}, {"ts", end}});
  for (const ctl::Schedule::ThreadState& t : e.schedule.states)
    events.push_back({{"ph", "i"}, {"s", "t"}, {"cat", "state"},
                      {"name", fmt::format("{}{} at {}", t.kind,
                                           t.word ? " on " + explore_word_name(e, shape, t.word) : "",
                                           t.at)},
                      {"pid", pid}, {"tid", tid(t.thread)}, {"ts", end}});
}
}  // namespace rwstress
