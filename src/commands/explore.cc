// rwstress explore (explore.h): the command. It runs the searches of
// explore_search.h, prints what they found (traces: explore_trace.h),
// shrinks and replays a failure, writes --outcome and --trace-json, and
// joins the shards' outcomes (explore merge); validate's exploration
// stage and fuzz's controlled trials call it as explore_quietly.
#include "commands/explore.h"
#include "commands/explore_search.h"
#include "commands/explore_trace.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "explore/memory_model.h"
#include "platform/duration.h"
#include "platform/interrupt.h"
#include "registry/registry.h"
#include "report/report.h"
#include "run/explore_run.h"

namespace rwstress {

namespace {

namespace ctl = controlled;
using namespace explore_search;  // Search, search_for, shrink, crash::arm, ...

std::string shape_text(const ExploreShape& shape) {
  const Scenario& sc = shape.scenario;
  std::string who =
      sc.family == Family::kRwlock
          ? fmt::format("{} reader{}, {} writer{}", sc.readers, sc.readers == 1 ? "" : "s",
                        sc.writers, sc.writers == 1 ? "" : "s")
          : fmt::format("{} thread{}", sc.writers, sc.writers == 1 ? "" : "s");
  if (sc.family == Family::kSemaphore) who += fmt::format(", count {}", sc.count);
  return fmt::format("{}, {} operation{} each", who, shape.ops, shape.ops == 1 ? "" : "s");
}

// The command that runs a schedule again: the plugin it came from first.
std::string replay_flags(const LockMeta& meta, const ExploreShape& shape,
                         const RunConfig::Explore& x) {
  const Scenario& sc = shape.scenario;
  constexpr std::string_view kPlugin = "plugin ";  // a plugin lock's origin: "plugin PATH"
  std::string f = meta.plugin && meta.origin.substr(0, kPlugin.size()) == kPlugin
                      ? fmt::format("--plugin {} explore", meta.origin.substr(kPlugin.size()))
                      : std::string("explore");
  f += fmt::format(" --lock {}", meta.name);
  if (sc.family == Family::kRwlock)
    f += fmt::format(" --readers {} --writers {}", sc.readers, sc.writers);
  else
    f += fmt::format(" --threads {}", sc.writers);
  if (sc.family == Family::kSemaphore) f += fmt::format(" --count {}", sc.count);
  for (const Knob& k : kKnobs)  // the knobs this lock reads, where not the default
    if (sc.tuning.*k.field != LockTuning{}.*k.field && reads_knob(k, meta.name))
      f += fmt::format(" --{} {}", k.flag, knob_text(k, sc.tuning.*k.field));
  // The clock's settings where not the defaults: a replay's times are the
  // recording's (a timed wait's deadline, a jump's length).
  const RunConfig::Explore defaults;
  if (x.step_ns != defaults.step_ns)
    f += " --step-time " + format_duration(std::chrono::nanoseconds(x.step_ns));
  if (x.time_jump_ns != defaults.time_jump_ns)
    f += " --time-jump " + format_duration(std::chrono::nanoseconds(x.time_jump_ns));
  if (x.handoff_after_ns != defaults.handoff_after_ns)
    f += " --handoff-after " + format_duration(std::chrono::nanoseconds(x.handoff_after_ns));
  // The CPUs and priorities decide who may run: a replay's are the recording's.
  if (x.virtual_cpus > 0) f += fmt::format(" --virtual-cpus {}", x.virtual_cpus);
  if (x.rt_threads > 0) f += fmt::format(" --rt-threads {}", x.rt_threads);
  return f + fmt::format(" --ops {}{}{}", shape.ops, x.signals ? " --signals" : "",
                         x.memory != ExploreMemory::kSc
                             ? fmt::format(" --memory {}", memory_name(x.memory))
                             : "");
}

// What a schedule that did not pass shows: the checkers' findings, or the
// threads' states at a deadlock or livelock.
std::vector<std::string> finding_lines(const ExploredSchedule& e, const ExploreShape& shape) {
  std::vector<std::string> lines;
  for (const Violation& v : e.violations)
    lines.push_back(fmt::format("{} ({}): {}", violation_kind_name(v.kind),
                                violation_source(v.thread), v.detail));
  if (e.schedule.outcome != ctl::Outcome::kDone) {
    lines.push_back(e.schedule.outcome == ctl::Outcome::kDeadlock
                        ? "deadlock: every unfinished thread is blocked"
                        : std::string(ctl::outcome_name(e.schedule.outcome)) +
                              ": no thread can make progress");
    for (const ctl::Schedule::ThreadState& t : e.schedule.states)
      lines.push_back(fmt::format("  thread {}: {}{} at {}", explore_thread_name(shape, t.thread), t.kind,
                                  t.word ? " on " + explore_word_name(e, shape, t.word) : "", t.at));
  }
  return lines;
}

ExploreShape shape_of(const RunConfig& cfg, const LockMeta& meta) {
  ExploreShape shape;
  shape.scenario = cfg.scenario_for(meta);
  shape.ops = cfg.explore.ops;
  shape.fairness = meta.fairness;
  shape.handoff_after_ns = cfg.explore.handoff_after_ns;
  return shape;
}

// The command (after "rwstress ") that replays a failing schedule.
std::string replay_command(const RunConfig& cfg, const LockMeta& meta, const ExploreShape& shape,
                           const ExploredSchedule& failure) {
  return fmt::format("{} --replay {}", replay_flags(meta, shape, cfg.explore),
                     encode_replay(failure.schedule.digest, replay_settings(cfg.explore),
                                   ctl::essential_choices(failure.schedule)));
}

void arm_crash(const RunConfig& cfg, const LockMeta& meta, const ExploreShape& shape) {
  crash::arm(fmt::format("{}: CRASH", meta.name),
             fmt::format("  replay: rwstress {} --replay ", replay_flags(meta, shape, cfg.explore)),
             replay_settings_text(replay_settings(cfg.explore)));
}

// ,reduce: what partial-order reduction did at the last bound ("" where
// it did not run here: off, or the shards' work).
std::string reduction_text(const Search& search) {
  if (search.executions_at_bound == 0) return "";
  return fmt::format("; partial-order reduction: {} state{} reached again not searched again, "
                     "{} distinct executions",
                     search.reduced_at_bound, search.reduced_at_bound == 1 ? "" : "s",
                     search.executions_at_bound);
}

std::string strategy_text(const RunConfig::Explore& x) {
  if (x.exhaustive)
    return fmt::format("exhaustive:preemptions={}{}", x.preemptions, x.reduce ? ",reduce" : "");
  if (x.pct) return fmt::format("pct:depth={}{}", x.depth, x.conflicts ? ",conflicts" : "");
  return "random";
}

void print_failure(const RunConfig& cfg, const ExploredSchedule& e, const ExploreShape& shape,
                   const Output& out) {
  for (const std::string& l : finding_lines(e, shape)) out.print("  " + l);
  out.print(fmt::format("  the last steps of {} ({} preemption{}; repeats folded):",
                        e.schedule.trace.size(), e.schedule.preemptions,
                        e.schedule.preemptions == 1 ? "" : "s"));
  for (const std::string& l : explore_trace_lines(e, shape, cfg.explore.trace_steps))
    out.print("  " + l);
}

// --trace-json FILE: schedules as Chrome trace events, one process each
// (explore_trace.h), written with the other files at the command's end.
struct TraceFile {
  nlohmann::json events = nlohmann::json::array();
  std::uint64_t next_flow = 1;
  int schedules = 0;

  void add(const ExploredSchedule& e, const ExploreShape& shape, const std::string& title) {
    append_trace_events(events, e, shape, ++schedules, title, finding_lines(e, shape), &next_flow);
  }
  // Writes it where asked, when there is a schedule to show; "" or why not.
  std::string write(const RunConfig& cfg, const Output& out) const {
    const std::string& path = cfg.explore.trace_json_path;
    if (path.empty()) return "";
    if (schedules == 0) {
      out.print(fmt::format("  --trace-json {}: not written (no failing schedule to show)", path));
      return "";
    }
    const nlohmann::json doc = {{"traceEvents", events},
                                {"displayTimeUnit", "ns"},
                                {"otherData", {{"tool", "rwstress explore"},
                                               {"time axis", "1 us = 1 step of the schedule"}}}};
    if (std::string why = write_report_file(path, doc.dump() + "\n"); !why.empty())
      return fmt::format("explore --trace-json {}: {}", path, why);
    out.print(fmt::format("  trace: {} ({} schedule{}; open it in Perfetto or chrome://tracing)",
                          path, schedules, schedules == 1 ? "" : "s"));
    return "";
  }
};

// --replay: one schedule, step for step.
int replay_one(const RunConfig& cfg, const LockMeta& meta, const LockEntry& entry,
               const ExploreShape& shape, const Output& out) {
  std::uint64_t digest = 0;
  std::vector<int> choices;
  ReplaySettings found;
  if (std::string err = decode_replay(cfg.explore.replay, &digest, &found, &choices); !err.empty()) {
    out.error("explore --replay: " + err);
    return 2;
  }
  // The code's settings are what its schedule means: replayed under
  // others, a FAIL under the model would pass, step for step.
  // (Time jumps are the code's alone: --time-jumps is a search's budget,
  // refused with --replay; the replay lets time jump where the code did.)
  if (const ReplaySettings given = {cfg.explore.memory, cfg.explore.signals, found.jumps,
                                     found.interrupts, found.fair};
      !(given == found)) {
    std::vector<std::string> differ;
    if (given.memory != found.memory)
      differ.push_back(found.memory == ExploreMemory::kSc
                           ? fmt::format("without a memory model (this command gives --memory {})",
                                         memory_name(given.memory))
                           : fmt::format("under --memory {} (this command gives {})",
                                         memory_name(found.memory),
                                         given.memory == ExploreMemory::kSc
                                             ? std::string("none")
                                             : "--memory " + std::string(memory_name(given.memory))));
    if (given.signals != found.signals)
      differ.push_back(found.signals ? "with --signals (this command has none)"
                                     : "without --signals (this command gives it)");
    out.error(fmt::format("explore --replay: the schedule was recorded {}: give the options of "
                          "its replay line",
                          fmt::join(differ, " and ")));
    return 2;
  }
  ctl::Options o = base_options(cfg);
  o.strategy = ctl::Strategy::kFirst;
  o.replay = choices;
  o.time_jumps = found.jumps ? 1 : 0;  // (a replay takes the jumps its choices record)
  o.interrupts = found.interrupts ? 1 : 0;  // (and its interrupts; work is posted for them)
  o.fair_turns = found.fair ? kFairTurnsPerThread : 0;  // (its forced turns are choices too)
  crash::g_schedule.store(1, std::memory_order_relaxed);
  ExploredSchedule e = entry.explore(shape, o);
  out.print(fmt::format("rwstress explore: replaying a schedule of {} recorded choices on {} ({})",
                        choices.size(), meta.name, shape_text(shape)));
  if (e.schedule.outcome == ctl::Outcome::kReplayDiverged) {
    out.error(fmt::format("explore --replay: the schedule does not replay on {} with this shape "
                          "(it left the recorded steps at step {}); give the lock, the shape and "
                          "the knobs of its replay line",
                          meta.name, std::min(e.schedule.trace.size(), choices.size())));
    return 2;
  }
  if (e.schedule.digest != digest) {
    // Every recorded choice was taken, but the steps themselves (points,
    // words, values) were not the recorded ones.
    out.error(fmt::format("explore --replay: the schedule does not replay on {} with this shape: "
                          "all {} recorded choices were taken, but the steps differ from the "
                          "recorded ones (digest {:016x}, recorded {:016x}): the lock's code, the "
                          "shape, its knobs, --ops, --step-time or --max-steps are not those of "
                          "the run that found it",
                          meta.name, choices.size(), e.schedule.digest, digest));
    return 2;
  }
  out.print(fmt::format("{}: {} (the recorded schedule, step for step: digest {:016x})", meta.name,
                        verdict_name(e.verdict), digest));
  if (e.verdict != Verdict::kPass) print_failure(cfg, e, shape, out);
  TraceFile trace;  // a replay is shown whatever its verdict
  trace.add(e, shape, fmt::format("{}: {}, replayed ({})", meta.name, verdict_name(e.verdict),
                                  shape_text(shape)));
  if (std::string why = trace.write(cfg, out); !why.empty()) {
    out.error(why);
    return e.verdict == Verdict::kPass ? 2 : exit_code_of(e.verdict);
  }
  return exit_code_of(e.verdict);
}

}  // namespace

std::string parse_explore_strategy(const std::string& text, RunConfig::Explore* out) {
  const std::string want =
      "--strategy: want random, pct[:depth=D][,conflicts] (D 1 to 10) or "
      "exhaustive[:preemptions=C][,reduce] (C 0 to 10)";
  auto number = [&](std::string_view s, std::string_view key, int* v) {
    if (s.substr(0, key.size()) != key) return false;
    s.remove_prefix(key.size());
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size() && *v >= 0 && *v <= 10;
  };
  // A strategy's options: comma-separated items, each taken by `take`
  // (false: not one it knows, or given twice); an empty one (nothing
  // after the colon, a trailing comma) is none.
  const auto each_item = [](std::string_view rest, const auto& take) {
    for (;;) {
      const std::size_t comma = rest.find(',');
      if (!take(rest.substr(0, comma))) return false;
      if (comma == std::string_view::npos) return true;
      rest.remove_prefix(comma + 1);
    }
  };
  const std::string_view t = text;
  RunConfig::Explore x = *out;
  x.strategy_text = text;
  x.exhaustive = x.pct = x.conflicts = false;
  x.reduce = false;
  if (t == "random") {
  } else if (t == "pct") {
    x.pct = true;
  } else if (t.substr(0, 4) == "pct:") {
    x.pct = true;
    // depth=D and conflicts, either or both, each once
    bool depth = false;
    const bool ok = each_item(t.substr(4), [&](std::string_view item) {
      if (item == "conflicts" && !x.conflicts) return x.conflicts = true;
      if (!depth && number(item, "depth=", &x.depth) && x.depth >= 1) return depth = true;
      return false;
    });
    if (!ok) return want;
  } else if (t == "exhaustive") {
    x.exhaustive = true;
  } else if (t.substr(0, 11) == "exhaustive:") {
    x.exhaustive = true;
    // preemptions=C and reduce, either or both, each once
    bool bound = false;
    const bool ok = each_item(t.substr(11), [&](std::string_view item) {
      if (item == "reduce" && !x.reduce) return x.reduce = true;
      if (!bound && number(item, "preemptions=", &x.preemptions)) return bound = true;
      return false;
    });
    if (!ok) return want;
  } else {
    return want;
  }
  *out = x;
  return "";
}

ReplaySettings replay_settings(const RunConfig::Explore& x) {
  return {x.memory, x.signals, x.time_jumps > 0, x.interrupts > 0, x.fair};
}

std::string replay_settings_text(const ReplaySettings& s) {
  return std::string(memory_name(s.memory)) + (s.signals ? "+signals" : "") +
         (s.jumps ? "+jumps" : "") + (s.interrupts ? "+irq" : "") + (s.fair ? "+fair" : "");
}

std::string encode_replay(std::uint64_t digest, const ReplaySettings& settings,
                          const std::vector<int>& choices) {
  std::string code = fmt::format("{:016x}:{}:", digest, replay_settings_text(settings));
  for (std::size_t i = 0; i < choices.size();) {
    std::size_t j = i;
    while (j < choices.size() && choices[j] == choices[i]) ++j;
    if (i > 0) code += '.';
    code += std::to_string(choices[i]);
    if (j - i > 1) code += fmt::format("x{}", j - i);
    i = j;
  }
  return code;
}

std::string decode_replay(const std::string& code, std::uint64_t* digest,
                          ReplaySettings* settings, std::vector<int>* choices) {
  const std::string want = "want DIGEST:SETTINGS:T[xN].T[xN]... as a replay line gives it";
  const std::size_t colon = code.find(':');
  if (colon != 16) return want;
  auto [p, ec] = std::from_chars(code.data(), code.data() + 16, *digest, 16);
  if (ec != std::errc() || p != code.data() + 16) return want;
  const std::size_t second = code.find(':', 17);
  if (second == std::string::npos)
    return "the code does not say the memory model and signals it was found under (a code "
           "made before codes carried them has DIGEST:CHOICES): run the search again for a new one";
  const std::string text = code.substr(17, second - 17);
  bool known = false;
  for (ExploreMemory m : {ExploreMemory::kSc, ExploreMemory::kC11, ExploreMemory::kTso})
    for (bool sig : {false, true})
      for (bool jumps : {false, true})
        for (bool irq : {false, true})
          for (bool fair : {false, true})
            if (text == replay_settings_text({m, sig, jumps, irq, fair}))
              *settings = {m, sig, jumps, irq, fair}, known = true;
  if (!known)
    return want + " (SETTINGS: sc, c11 or tso, +signals where signals were on, +jumps where "
                  "time could jump, +irq where interrupts could arrive, +fair where schedules "
                  "were fair)";
  choices->clear();
  std::stringstream tokens(code.substr(second + 1));
  for (std::string tok; std::getline(tokens, tok, '.');) {
    int thread = 0;
    std::uint64_t times = 1;
    const char* b = tok.data();
    const char* e = b + tok.size();
    auto [q, ec1] = std::from_chars(b, e, thread);
    if (ec1 != std::errc() || thread < 0 ||
        thread >= (ctl::MemoryModel::kMaxOlder + 1) * ctl::kReadChoice)
      return want;
    if (q != e) {
      if (*q != 'x') return want;
      auto [r, ec2] = std::from_chars(q + 1, e, times);
      if (ec2 != std::errc() || r != e || times == 0 || times > 100'000'000) return want;
    }
    if (choices->size() + times > 100'000'000) return want;
    choices->insert(choices->end(), std::size_t(times), thread);
  }
  return "";  // no choices: the schedule a replay makes by itself
}

// Why a search that found nothing stopped before its end: "" for a
// sampling search that ran its schedules, or "; not complete: ..." with
// how far an exhaustive search got.
std::string not_complete_text(const RunConfig& cfg, const Search& search) {
  const std::string why = search.out_of_time
                              ? fmt::format("--time ({}) ran out",
                                            format_duration(std::chrono::nanoseconds(cfg.explore.time_ns)))
                              : "--schedules ran out";
  if (!cfg.explore.exhaustive) return search.out_of_time ? "; stopped: " + why : "";
  return fmt::format("; not complete: {} before the bound did{}", why,
                     search.bound_done >= 0
                         ? fmt::format(" (every schedule within bound {} ran)", search.bound_done)
                         : "");
}

// How the search is split: ", 2 processes", ", shard 1/4" or "".
std::string split_text(const RunConfig::Explore& x) {
  std::string text;
  if (x.jobs > 1) text += fmt::format(", {} processes side by side", x.jobs);
  if (x.shard_count > 1)
    text += fmt::format(", shard {}/{} (this share of the search only)", x.shard_index, x.shard_count);
  return text;
}

// One lock's search as --outcome records it.
nlohmann::json outcome_of(const RunConfig& cfg, const LockMeta& meta, const Search& search,
                          Verdict verdict, double seconds, const std::string& replay) {
  nlohmann::json j;
  j["lock"] = std::string(meta.name);
  j["verdict"] = verdict_name(verdict);
  j["strategy"] = strategy_text(cfg.explore);
  j["seed"] = cfg.seed;
  j["schedules"] = search.schedules;
  j["steps"] = search.steps;
  j["seconds"] = seconds;
  j["found_at"] = search.found ? search.found_at : 0;
  j["complete"] = search.complete && !search.found;
  // exhaustive: the largest bound every schedule of which ran (-1: none)
  j["bound_done"] = search.bound_done;
  j["out_of_time"] = search.out_of_time;
  j["replay"] = replay;
  j["jobs"] = cfg.explore.jobs;
  j["shard"] = fmt::format("{}/{}", cfg.explore.shard_index, cfg.explore.shard_count);
  return j;
}

// explore merge: the --outcome files of one search's shards, joined. Each
// file must be an explore outcome of the same search (the same locks in
// the same order, strategy and seed) and shard i of the same N, each i
// once. Per lock: a failure in any shard is the search's (the lowest
// schedule number kept, with its replay line); an interrupted shard
// proves nothing; with shards missing, a search that found nothing is not
// a PASS (exit 2, after the lines that say what ran); else a PASS whose
// schedules are the shards' sum, complete when every shard's is.
int merge_outcomes(const RunConfig& cfg, const Output& out) {
  struct Run {
    std::string lock, verdict, strategy, replay;
    std::uint64_t seed = 0, schedules = 0, found_at = 0;
    double seconds = 0;
    bool complete = false, out_of_time = false;
    int bound_done = -1;
  };
  struct Shard {
    std::string file;
    int index = 0, count = 1;
    std::vector<Run> runs;
  };
  std::vector<Shard> shards;
  for (const std::string& file : cfg.explore.merge) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      out.error(fmt::format("explore merge: {}: cannot be read", file));
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    Shard shard;
    shard.file = file;
    try {
      const nlohmann::json doc = nlohmann::json::parse(text.str());
      if (doc.value("rwstress_explore_outcome", 0) != 1) throw std::runtime_error("not an explore --outcome file");
      for (const nlohmann::json& r : doc.at("runs")) {
        Run run;
        run.lock = r.at("lock").get<std::string>();
        run.verdict = r.at("verdict").get<std::string>();
        run.strategy = r.at("strategy").get<std::string>();
        run.replay = r.at("replay").get<std::string>();
        run.seed = r.at("seed").get<std::uint64_t>();
        run.schedules = r.at("schedules").get<std::uint64_t>();
        run.found_at = r.at("found_at").get<std::uint64_t>();
        run.seconds = r.at("seconds").get<double>();
        run.complete = r.at("complete").get<bool>();
        run.out_of_time = r.at("out_of_time").get<bool>();
        run.bound_done = r.at("bound_done").get<int>();
        const std::string split = r.value("shard", std::string("0/1"));
        int i = 0, n = 1;
        if (!parse_shard(split, &i, &n)) throw std::runtime_error("shard \"" + split + "\" is not i/N");
        if (!shard.runs.empty() && (i != shard.index || n != shard.count))
          throw std::runtime_error("its runs name different shards");
        shard.index = i;
        shard.count = n;
        shard.runs.push_back(run);
      }
      if (shard.runs.empty()) throw std::runtime_error("it records no search");
    } catch (const std::exception& e) {  // (nlohmann's errors are std::exceptions)
      std::string why = e.what();
      std::replace(why.begin(), why.end(), '\n', ' ');
      out.error(fmt::format("explore merge: {}: {}", file, why));
      return 2;
    }
    shards.push_back(std::move(shard));
  }
  const Shard& first = shards.front();
  std::vector<const Shard*> by_index(std::size_t(first.count), nullptr);
  for (const Shard& sh : shards) {
    bool same = sh.count == first.count && sh.runs.size() == first.runs.size();
    for (std::size_t k = 0; same && k < sh.runs.size(); ++k)
      same = sh.runs[k].lock == first.runs[k].lock && sh.runs[k].strategy == first.runs[k].strategy &&
             sh.runs[k].seed == first.runs[k].seed;
    if (!same) {
      out.error(fmt::format("explore merge: {} and {} are not shards of one search (the locks, "
                            "strategy, seed and N of --shard i/N must be the same)",
                            first.file, sh.file));
      return 2;
    }
    const Shard*& slot = by_index[std::size_t(sh.index)];
    if (slot != nullptr) {
      out.error(fmt::format("explore merge: shard {}/{} is in both {} and {}", sh.index, sh.count,
                            slot->file, sh.file));
      return 2;
    }
    slot = &sh;
  }
  std::vector<int> missing;
  for (std::size_t i = 0; i < by_index.size(); ++i)
    if (by_index[i] == nullptr) missing.push_back(int(i));
  out.print(fmt::format("rwstress explore merge: {} outcome file{}, {} of {} shard{}{}", shards.size(),
                        shards.size() == 1 ? "" : "s", shards.size(), first.count,
                        first.count == 1 ? "" : "s",
                        missing.empty() ? "" : fmt::format(" (missing: {})", fmt::join(missing, ", "))));
  Verdict worst = Verdict::kPass;
  bool unjudged = false;
  for (std::size_t k = 0; k < first.runs.size(); ++k) {
    const std::string& lock = first.runs[k].lock;
    std::uint64_t schedules = 0;
    bool complete = missing.empty(), out_of_time = false;
    int bound_done = std::numeric_limits<int>::max();
    const Run* failed = nullptr;
    const Shard* failed_in = nullptr;
    const Shard* interrupted = nullptr;
    for (const Shard& sh : shards) {
      const Run& r = sh.runs[k];
      schedules += r.schedules;
      complete = complete && r.complete;
      out_of_time = out_of_time || r.out_of_time;
      bound_done = std::min(bound_done, r.bound_done);
      if (r.verdict == verdict_name(Verdict::kInterrupted)) {
        interrupted = interrupted ? interrupted : &sh;
      } else if (r.verdict != verdict_name(Verdict::kPass) &&
                 (failed == nullptr || r.found_at < failed->found_at)) {
        failed = &r;
        failed_in = &sh;
      }
    }
    if (failed != nullptr) {
      Verdict v = Verdict::kFail;
      for (Verdict c : {Verdict::kStarved, Verdict::kFail, Verdict::kHang, Verdict::kCrash})
        if (failed->verdict == verdict_name(c)) v = c;
      worst = worse(worst, v);
      out.print(fmt::format("{}: {} at schedule {} (shard {}/{}, {})", lock, failed->verdict,
                            failed->found_at, failed_in->index, failed_in->count, failed_in->file));
      if (!failed->replay.empty()) out.print("  replay: rwstress " + failed->replay);
    } else if (interrupted != nullptr) {
      worst = worse(worst, Verdict::kInterrupted);
      out.print(fmt::format("{}: INTERRUPTED: shard {}/{} ({}) was cut short; {} schedules ran and "
                            "none failed, which proves nothing",
                            lock, interrupted->index, interrupted->count, interrupted->file, schedules));
    } else if (!missing.empty()) {
      unjudged = true;
      out.print(fmt::format("{}: not judged: {} schedules in the {} shard{} given found nothing, "
                            "but shard{} {} of {} {} missing",
                            lock, schedules, shards.size(), shards.size() == 1 ? "" : "s",
                            missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), first.count,
                            missing.size() == 1 ? "is" : "are"));
    } else if (complete) {
      out.print(fmt::format("{}: PASS, complete: every shard ran every schedule of its share "
                            "({} schedules over {} shard{}, run over bounds 0 to {})",
                            lock, schedules, first.count, first.count == 1 ? "" : "s", bound_done));
    } else {
      out.print(fmt::format("{}: PASS, {} schedules over {} shards, no failure{}", lock, schedules,
                            first.count,
                            first.runs[k].strategy.rfind("exhaustive", 0) == 0
                                ? fmt::format("; not complete: a shard stopped before its share "
                                              "did{}",
                                              bound_done >= 0 ? fmt::format(" (every schedule within "
                                                                            "bound {} ran)",
                                                                            bound_done)
                                                              : "")
                                : out_of_time ? "; a shard stopped at its --time" : ""));
    }
  }
  if (worst == Verdict::kPass && unjudged) {
    out.error(fmt::format("explore merge: shard{} {} of {} missing: give every shard's --outcome",
                          missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), first.count));
    return 2;
  }
  return exit_code_of(worst);
}

int run_explore(const RunConfig& cfg, const Output& out) {
  if (!cfg.explore.merge.empty()) return merge_outcomes(cfg, out);
  Verdict worst = Verdict::kPass;
  nlohmann::json runs = nlohmann::json::array();
  TraceFile trace;
  // --outcome and --trace-json: written whatever ends the command (a
  // verdict, a signal).
  const auto done = [&](int code) {
    if (std::string why = trace.write(cfg, out); !why.empty()) {
      out.error(why);
      if (code == 0) code = 2;
    }
    if (cfg.explore.outcome_path.empty() || !cfg.explore.replay.empty()) return code;
    nlohmann::json doc;
    doc["rwstress_explore_outcome"] = 1;
    doc["exit_code"] = code;
    doc["runs"] = runs;
    if (std::string why = write_report_file(cfg.explore.outcome_path, doc.dump(2) + "\n");
        !why.empty()) {
      out.error(fmt::format("explore --outcome {}: {}", cfg.explore.outcome_path, why));
      return code == 0 ? 2 : code;
    }
    return code;
  };
  for (const LockMeta* meta : cfg.locks) {
    const LockEntry& entry = entry_of(*meta);
    const ExploreShape shape = shape_of(cfg, *meta);
    arm_crash(cfg, *meta, shape);
    if (!cfg.explore.replay.empty()) return replay_one(cfg, *meta, entry, shape, out);

    out.print(fmt::format("rwstress explore: {} ({}), {}{}, at most {}, seed {:#x}",
                          meta->name, shape_text(shape), strategy_text(cfg.explore),
                          std::string(cfg.explore.signals ? ", fatal signals (at spurious wake-ups and signal checks)" : "") +
                              (cfg.explore.fair
                                   ? fmt::format(", fair (every runnable thread runs within {} "
                                                 "steps{})",
                                                 kFairTurnsPerThread * shape.scenario.threads(),
                                                 meta->fairness == Fairness::kHandoff
                                                     ? "; hand-off waits judged"
                                                     : "")
                                   : std::string()) +
                              (cfg.explore.memory != ExploreMemory::kSc
                                   ? fmt::format(", memory model {}", memory_name(cfg.explore.memory))
                                   : "") +
                              (cfg.explore.virtual_cpus > 0
                                   ? fmt::format(", on {} CPU{}", cfg.explore.virtual_cpus,
                                                 cfg.explore.virtual_cpus == 1 ? "" : "s")
                                   : "") +
                              (cfg.explore.rt_threads > 0
                                   ? fmt::format(", the last {} real-time (arriving at a step)",
                                                 cfg.explore.rt_threads)
                                   : "") +
                              split_text(cfg.explore),
                          cfg.explore.time_ns > 0
                              ? fmt::format("{} schedules or {}", cfg.explore.schedules,
                                            format_duration(std::chrono::nanoseconds(cfg.explore.time_ns)))
                              : fmt::format("{} schedules", cfg.explore.schedules),
                          cfg.seed));
    Search search;
    const auto start = Clock::now();
    // Split among processes, or in one process of its own where an
    // --outcome is asked for: a lock that crashes takes its process with
    // it, and this one then still writes how much ran.
    if (cfg.explore.jobs > 1 || !cfg.explore.outcome_path.empty()) {
      if (std::string lost = search_side_by_side(cfg, entry, shape, search); !lost.empty()) {
        out.error(fmt::format("explore --jobs {}: {}", cfg.explore.jobs, lost));
        return done(2);
      }
    } else {
      search_for(cfg, entry, shape, search);
      // A shard's counts are its own schedules (the shards' add up).
      search.schedules -= search.shared;
      search.at_bound -= search.shared_at_bound;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (search.crashed) {  // (the crash, its schedule and its replay line are above)
      out.print(fmt::format("{}: CRASH at schedule {}, after {} schedule{} in all ({:.1f} s)",
                            meta->name, search.found_at, search.schedules,
                            search.schedules == 1 ? "" : "s", seconds));
      search.found = true;  // (found_at: the crash's)
      runs.push_back(outcome_of(cfg, *meta, search, Verdict::kCrash, seconds,
                                search.crash_code.empty()
                                    ? ""
                                    : fmt::format("{} --replay {}",
                                                  replay_flags(*meta, shape, cfg.explore),
                                                  search.crash_code)));
      worst = worse(worst, Verdict::kCrash);
      continue;
    }
    const std::string speed =
        fmt::format("{} steps, {:.0f} steps/s", search.steps,
                    seconds > 0 ? double(search.steps) / seconds : 0.0);
    if (cfg.explore.pct && !cfg.explore.exhaustive)
      out.print(fmt::format("  PCT at depth {}: a bug of that depth shows with probability at "
                            "least 1/(n k^(d-1)) = {:.3g} per schedule (n {} threads, k {} {})",
                            cfg.explore.depth,
                            ctl::pct_bound(shape.scenario.threads(), search.k, cfg.explore.depth),
                            shape.scenario.threads(), search.k,
                            cfg.explore.conflicts ? "conflicting steps: accesses to a word "
                                                    "another thread touched"
                                                  : "steps"));
    // An event asked for that no schedule could take: the option changed
    // nothing for this lock (in-tree locks are refused before; a plugin's
    // points show only as it runs).
    if (cfg.explore.ticks > 0 && !search.met_tick_check)
      out.print(fmt::format("  note: --ticks {} changed nothing: {} met no need_resched() check in "
                            "{} schedules",
                            cfg.explore.ticks, meta->name, search.schedules));
    if (cfg.explore.time_jumps > 0 && !search.met_clock_read)
      out.print(fmt::format("  note: --time-jumps {} changed nothing: {} read no clock in {} "
                            "schedules",
                            cfg.explore.time_jumps, meta->name, search.schedules));
    if (cfg.explore.expiries > 0 && !search.met_timed_wait)
      out.print(fmt::format("  note: --expiries {} changed nothing: {} met no timed wait in {} "
                            "schedules",
                            cfg.explore.expiries, meta->name, search.schedules));
    if (cfg.explore.interrupts > 0 && !search.met_interrupt_offer)
      out.print(fmt::format("  note: --interrupts {} changed nothing: {} gave an interrupt "
                            "handler no work in {} schedules",
                            cfg.explore.interrupts, meta->name, search.schedules));
    if (cfg.explore.signals && !search.met_signal_check)
      out.print(fmt::format("  note: --signals changed nothing: {} met no signal check (a "
                            "killable or interruptible wait) in {} schedules",
                            meta->name, search.schedules));
    if (!search.found && interrupt_signal() != 0) {
      // Cut short: what ran found nothing, which proves nothing.
      out.print(fmt::format("{}: INTERRUPTED by {} after {} schedule{}: none failed, and the "
                            "search did not finish{} ({}, {:.1f} s)",
                            meta->name, interrupt_signal_name(interrupt_signal()), search.schedules,
                            search.schedules == 1 ? "" : "s",
                            cfg.explore.exhaustive ? " (not complete)" : "", speed, seconds));
      runs.push_back(outcome_of(cfg, *meta, search, Verdict::kInterrupted, seconds, ""));
      return done(128 + interrupt_signal());
    }
    if (!search.found) {
      if (search.complete)
        out.print(fmt::format("{}: PASS, complete{}: {} schedules, every schedule with at most {} "
                              "({} run over bounds 0 to {}{}; {}, {:.1f} s)",
                              meta->name,
                              cfg.explore.shard_count > 1
                                  ? fmt::format(" (shard {}/{}: its share)", cfg.explore.shard_index,
                                                cfg.explore.shard_count)
                                  : "",
                              search.at_bound, exhaustive_bounds(cfg),
                              search.schedules, exhaustive_limits(cfg).largest(),
                              reduction_text(search), speed, seconds));
      else
        out.print(fmt::format("{}: PASS, {} schedules, no failure{} ({}, {:.1f} s)", meta->name,
                              search.schedules, not_complete_text(cfg, search), speed, seconds));
      runs.push_back(outcome_of(cfg, *meta, search, Verdict::kPass, seconds, ""));
      continue;
    }
    worst = worse(worst, search.failure.verdict);
    std::vector<std::string> notes;
    const std::size_t first_steps = search.failure.schedule.trace.size();
    const int first_preempts = search.failure.schedule.preemptions;
    if (shrinks(cfg, search)) shrink(cfg, entry, shape, search, notes);
    out.print(fmt::format("{}: {} at schedule {} ({} steps, {} preemption{}; {}, {:.1f} s)",
                          meta->name, verdict_name(search.failure.verdict), search.found_at,
                          first_steps, first_preempts, first_preempts == 1 ? "" : "s", speed,
                          seconds));
    for (const std::string& n : notes) out.print("  " + n);
    print_failure(cfg, search.failure, shape, out);
    trace.add(search.failure, shape,
              fmt::format("{}: {} at schedule {} ({})", meta->name,
                          verdict_name(search.failure.verdict), search.found_at, shape_text(shape)));
    const int same = replays_matching(cfg, entry, shape, search.failure, cfg.explore.replays);
    if (interrupt_signal() == 0)
      out.print(fmt::format("  replayed {} times: {} the same step for step (digest {:016x})",
                            cfg.explore.replays, same, search.failure.schedule.digest));
    else
      out.print(fmt::format("  not replayed {} times: {}", cfg.explore.replays,
                            interrupted_text()));
    const std::string replay = replay_command(cfg, *meta, shape, search.failure);
    out.print("  replay: rwstress " + replay);
    runs.push_back(outcome_of(cfg, *meta, search, search.failure.verdict, seconds, replay));
    if (const int sig = interrupt_signal()) {
      out.print(fmt::format("rwstress explore: {} after {}: the locks after it were not "
                            "explored", interrupted_text(), meta->name));
      return done(128 + sig);
    }
  }
  return done(exit_code_of(worst));
}

std::string why_not_explorable(const LockMeta& meta) {
  if (entry_of(meta).explore) return "";
  if (!meta.plugin) return "a library's lock runs code the scheduler cannot stop at";
  if (meta.kernel_layer)
    return "build the kernel files with -DRWSTRESS_KERNEL_EXPLORE (rwstress kernel --explore "
           "does), so that the layer's atomics and sleeps are scheduling points";
  return "the plugin does not mark its scheduling points (include <rwstress/explore.h> and "
         "declare RWSTRESS_LOCK_CONTROLLED)";
}

RunConfig explore_config(RunConfig base, const LockMeta& meta, int readers, int writers, int count) {
  base.lock_spec = std::string(meta.name);
  base.locks = {&meta};
  base.readers = readers;
  base.writers = writers;
  base.threads = writers;
  if (count > 0) base.count = count;
  base.injection.specs.clear();
  base.tuning.spin_limit = kExploreSpinLimit;
  base.explore = RunConfig::Explore{};
  return base;
}

ExploreOutcome explore_quietly(const RunConfig& cfg, const LockMeta& meta) {
  const LockEntry& entry = entry_of(meta);
  const ExploreShape shape = shape_of(cfg, meta);
  arm_crash(cfg, meta, shape);
  Search search;
  const auto start = Clock::now();
  search_for(cfg, entry, shape, search);
  ExploreOutcome o;
  o.schedules = search.schedules;
  o.complete = search.complete && !search.found;
  o.complete_schedules = o.complete ? search.at_bound : 0;
  if (search.found) {
    o.verdict = search.failure.verdict;
    o.found_at = search.found_at;
    std::vector<std::string> notes;
    if (shrinks(cfg, search)) shrink(cfg, entry, shape, search, notes);
    const std::vector<std::string> lines = finding_lines(search.failure, shape);
    if (!lines.empty()) o.finding = lines.front();
    o.replay = replay_command(cfg, meta, shape, search.failure);
  }
  if (!search.found && interrupt_signal() != 0) o.verdict = Verdict::kInterrupted, o.complete = false;
  o.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return o;
}

std::string explore_command(const RunConfig& cfg, const LockMeta& meta) {
  // The choices' budgets where not the defaults (a replay line's codes
  // carry the choices themselves; the search needs the budgets).
  const RunConfig::Explore& x = cfg.explore;
  const RunConfig::Explore defaults;
  std::string budgets;
  if (x.stale_reads != defaults.stale_reads && x.memory != ExploreMemory::kSc)
    budgets += fmt::format(" --stale-reads {}", x.stale_reads);
  if (x.ticks >= 0) budgets += fmt::format(" --ticks {}", x.ticks);
  if (x.spurious_wakes >= 0) budgets += fmt::format(" --spurious-wakes {}", x.spurious_wakes);
  if (x.expiries >= 0) budgets += fmt::format(" --expiries {}", x.expiries);
  if (x.time_jumps > 0) budgets += fmt::format(" --time-jumps {}", x.time_jumps);
  if (x.interrupts > 0) budgets += fmt::format(" --interrupts {}", x.interrupts);
  if (x.fair) budgets += " --fair";
  // (validate's stage: a share of its time budget, schedules unbounded)
  if (x.time_ns > 0)
    budgets += " --time " + format_duration(std::chrono::nanoseconds(x.time_ns));
  return fmt::format("{} --strategy {} --schedules {}{} --seed {:#x}",
                     replay_flags(meta, shape_of(cfg, meta), x), strategy_text(x), x.schedules,
                     budgets, cfg.seed);
}

}  // namespace rwstress
