#include "cli/cli.h"

#include <sched.h>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands/explore.h"
#include "commands/kernel.h"
#include "platform/printable.h"
#include "report/report.h"
#include "registry/registry.h"
#include "run/run_driver.h"

namespace rwstress {

namespace {

constexpr const char* kExamples = R"(
Examples:
  rwstress --readers 4 --writers 2 --sched        every rwlock, 4 readers + 2 writers,
                                                  sched_yield() after each pass
  rwstress --lock xadd,generic-spin --duration 500ms
  rwstress --lock semaphore --count 2 --threads 4 every semaphore, 4 threads, count 2
  rwstress --lock mutex --threads 3              every mutex and spinlock
  rwstress selftest                               every busted lock must be caught
  rwstress --lock busted-noop --readers 2 --writers 2 --duration 2   (must FAIL)
  rwstress --cpus 0-3,8 --placement scatter --cs-read 200 --json run.json
  rwstress list                                   every implementation, with its
                                                  family, fairness and origin
  rwstress --lock xadd --inject yield@in-cs:p=0.01 --inject delay@before-sleep:exp(2us)
  rwstress list injectors                         every injector and injection point
  rwstress --lock xadd,linux-rwsem --lockstat     lockmeter table (the 2002 lockmeter report)
  rwstress --lock bkl,sem-mutex --threads 4 --hist hold --plot out
                                                  hold-time histograms side by side (the 1999 kernel_lock report)
  rwstress sweep --cpus 1,2,4,8 --lock ticket,mcs throughput per CPU count, scaling, linear
  rwstress suite rwsem-test                       the 2001 rwsem benchmark's table for today's rwsems
  rwstress suite bkl                              the 2000 BKL report: spinning BKL vs semaphore
  rwstress --lock xadd --repeat 5 --json a.json   then: rwstress compare a.json b.json

Exit codes: 0 PASS, 1 FAIL (invariant violated), 2 bad usage, 3 HANG,
4 CRASH (a plugin lock crashed its run), 5 STARVED; 128 + the signal (130,
143, 129) after SIGINT, SIGTERM or SIGHUP: the run cut short is INTERRUPTED.
With several locks, the worst verdict decides.
)";

// A whole number in [lo, hi], said as such ("1e3" and "-1" are not one:
// CLI11's Range would call 1e3 a value out of range).
CLI::Validator whole(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator(
      [lo, hi](const std::string& text) {
        std::uint64_t v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
          return fmt::format("'{}' is not a whole number from {} to {}", text, lo, hi);
        return std::string();
      },
      fmt::format("INT in [{} - {}]", lo, hi));
}

// One option per declared knob (locks/lock_tuning.h): a choice knob takes
// its words, a number knob a number in its range.
void add_knob_options(CLI::App& app, LockTuning& tuning) {
  const LockTuning defaults;
  for (const Knob& k : kKnobs) {
    const std::string name = "--" + std::string(k.flag);
    if (k.choices.empty()) {
      app.add_option(name, tuning.*k.field, std::string(k.help))
          ->check(whole(k.min, k.max))
          ->default_val(defaults.*k.field);
      continue;
    }
    std::vector<std::string> words;
    for (const KnobChoice& c : k.choices) words.emplace_back(c.word);
    int* field = &(tuning.*k.field);
    app.add_option_function<std::string>(
           name,
           [field, &k](const std::string& word) {
             for (const KnobChoice& c : k.choices)
               if (c.word == word) *field = c.value;
           },
           std::string(k.help))
        ->check(CLI::IsMember(words))
        ->default_str(knob_text(k, defaults.*k.field));
  }
}

// A usage error is one line, whatever the user typed into a value: control
// characters (a newline inside --seed, a path, a spec) are shown escaped.
CliOutcome usage_error(const std::string& message) {
  CliOutcome out;
  out.action = CliAction::kExit;
  out.exit_code = 2;
  out.output = "rwstress: error: " + printable(message) + " (see rwstress --help)";
  return out;
}

// CLI11 messages can span lines; a usage error is one line.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The CPUs this process may run on (at least 1), without loading the
// topology: what "all CPUs" means while parsing.
int allowed_cpu_count() {
  cpu_set_t allowed;
  const int n = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
  return std::max(n, 1);
}

// Below this, sampling gaps and time slices alone look like a hang.
constexpr std::chrono::nanoseconds kShortestWatchdog = std::chrono::milliseconds(100);
// Work under this many loop turns is far below any allowed watchdog on any
// CPU (a turn is at least a cycle), so it is not timed.
constexpr std::uint64_t kLoopsWorthTiming = 1000000;

// Every main-run option given (before or after the command: they fall
// through) that `command` does not read is a usage error: nothing a user
// types is silently ignored. `reads` lists what it reads.
std::string unread_options(const CLI::App& app, const std::string& command,
                           const std::vector<std::string>& reads) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->count() == 0) continue;
    const std::string name = o->get_name();
    if (name == "--help" || name == "--version") continue;
    if (std::find(reads.begin(), reads.end(), name) != reads.end()) continue;
    return reads.empty()
               ? fmt::format("{} does not apply to {}: it takes no run options", name, command)
               : fmt::format("{} does not apply to {}: it reads only {}", name, command,
                             fmt::join(reads, ", "));
  }
  return "";
}

// fuzz's options that shape a campaign: a resumed campaign takes them from
// its directory and a merge has none.
const std::vector<const char*> kCampaignOptions = {
    "--time",  "--trials", "--trial-time", "--out",         "--stop-on-failure", "--dry-run", "--jobs",
    "--shard", "--resume", "--reproduce",  "--shrink-time", "--trial-memory",    "--trial-cpu",
    "--explore-share"};

// The options of a command (sub) given at all, out of `names`: the first.
std::string first_given(const CLI::App& sub, const std::vector<const char*>& names,
                        std::string_view except = {}) {
  for (const char* n : names)
    if (sub.count(n) > 0 && n != except) return n;
  return "";
}

// Where the reports go, checked before anything runs: no empty path, no
// two reports on one file (the second would silently replace the first),
// and a --plot prefix whose directory exists and holds no character that
// a gnuplot script or a terminal would act on.
std::string output_paths_error(const RunConfig& cfg, const CLI::App& app) {
  namespace fs = std::filesystem;
  std::vector<std::pair<const char*, const std::string*>> files = {
      {"--json", &cfg.json_path}, {"--csv", &cfg.csv_path}, {"--junit", &cfg.junit_path}};
  // Compared by the file each names (device and inode, or the path a chain
  // of links leads to), not by spelling: `--csv link` to the --json file is
  // the same file.
  std::vector<std::pair<const char*, std::string>> seen;
  for (auto [flag, path] : files) {
    if (app.count(flag) == 0) continue;
    if (path->empty()) return fmt::format("{}: an empty path", flag);
    const std::string id = file_identity(*path);
    for (const auto& [other, other_id] : seen)
      if (other_id == id) return fmt::format("{} and {} name the same file '{}'", other, flag, *path);
    seen.emplace_back(flag, id);
  }
  // --plot PREFIX makes PREFIX-NAME.dat, .gp, .svg and .png: none of them
  // may be a report file.
  if (app.count("--plot") > 0 && !cfg.plot_prefix.empty()) {
    const fs::path prefix = resolved_path(cfg.plot_prefix);
    for (auto [flag, path] : files) {
      if (app.count(flag) == 0) continue;
      const fs::path file = resolved_path(*path);
      const std::string name = file.filename().string(), stem = prefix.filename().string() + "-";
      const std::string ext = file.extension().string();
      if (file.parent_path() == prefix.parent_path() && name.rfind(stem, 0) == 0 &&
          (ext == ".dat" || ext == ".gp" || ext == ".svg" || ext == ".png"))
        return fmt::format("{} '{}' is one of the files --plot {} makes", flag, *path, cfg.plot_prefix);
    }
  }
  if (app.count("--plot") > 0) {
    const std::string& prefix = cfg.plot_prefix;
    if (prefix.empty() || prefix.back() == '/')
      return "--plot: give a file name prefix such as out or plots/run1";
    for (unsigned char c : prefix)
      if (c < 0x20 || c == 0x7f || c == '`')
        return fmt::format("--plot '{}': no control characters or backquotes in a prefix", prefix);
    const fs::path dir = fs::path(prefix).parent_path().empty() ? fs::path(".")
                                                                 : fs::path(prefix).parent_path();
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || access(dir.c_str(), W_OK) != 0)
      return fmt::format("--plot '{}': '{}' is not a directory this process can write to", prefix,
                         dir.string());
  }
  return {};
}

// A size in bytes: a number with an optional K, M, G or T (powers of 1024).
std::optional<std::uint64_t> parse_size(const std::string& text) {
  std::size_t used = 0;
  unsigned long long n = 0;
  try {
    if (text.empty() || !std::isdigit((unsigned char)text[0])) return std::nullopt;
    n = std::stoull(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = text.substr(used);
  int shift = 0;
  if (unit == "K" || unit == "k") shift = 10;
  else if (unit == "M" || unit == "m") shift = 20;
  else if (unit == "G" || unit == "g") shift = 30;
  else if (unit == "T" || unit == "t") shift = 40;
  else if (!unit.empty()) return std::nullopt;
  if (n > (~0ULL >> shift)) return std::nullopt;
  return std::uint64_t(n) << shift;
}

// The run seed: decimal or 0x hex, 0 to 2^64-1, nothing else.
std::optional<std::uint64_t> parse_seed(const std::string& text) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* first = text.data() + (hex ? 2 : 0);
  const char* last = text.data() + text.size();
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(first, last, v, hex ? 16 : 10);
  if (first == last || ec != std::errc() || end != last) return std::nullopt;
  return v;
}

// An estimate, said in whole milliseconds (format_duration prints it exactly).
std::chrono::nanoseconds round_up_ms(std::chrono::nanoseconds d) {
  return std::chrono::ceil<std::chrono::milliseconds>(d);
}

// What must produce a false HANG is refused up front: a watchdog shorter
// than the gaps a correct run has, or a pass that may pause for half the
// watchdog (an injected pause, or critical-section and outside work).
std::string watchdog_guard(const RunConfig& cfg) {
  using namespace std::chrono_literals;
  if (cfg.watchdog < kShortestWatchdog)
    return fmt::format("--watchdog {}: at least {} (it samples progress every 5ms or more, and a "
                       "time slice on an oversubscribed CPU lasts tens of ms: a correct lock "
                       "would be reported as HANG)",
                       format_duration(cfg.watchdog), format_duration(kShortestWatchdog));
  std::chrono::nanoseconds per_pass{0};
  const InjectSpec* longest = nullptr;
  for (const InjectSpec& spec : cfg.injection.specs) {
    // One firing per point a pass visits; a hook point (spin, before-sleep)
    // may be visited more often, which is why the bound is half the watchdog.
    auto pause = spec.longest_pause() * std::max<std::size_t>(1, spec.points.size());
    if (!longest || pause > longest->longest_pause()) longest = &spec;
    per_pass += pause;
  }
  if (per_pass * 2 >= cfg.watchdog)  // strictly under half, as docs/injection.md promises
    return fmt::format("--inject '{}': its pauses (up to {} per pass{}) need a --watchdog over {}",
                       longest->text, format_duration(per_pass),
                       cfg.injection.specs.size() > 1 ? ", all specs together" : "",
                       format_duration(per_pass * 2));
  // A reader may wait out a write hold and then do its own: both must fit,
  // stretched by the threads that share each CPU.
  const std::uint64_t loops = std::max(cfg.cs_read_loops, cfg.cs_write_loops) * 2 + cfg.delay_loops;
  if (loops > kLoopsWorthTiming) {
    const int cpus = cfg.cpus.count > 0      ? cfg.cpus.count
                     : !cfg.cpus.list.empty() ? int(cfg.cpus.list.size())
                                              : allowed_cpu_count();
    int threads = 1;
    for (const LockMeta* m : cfg.locks) threads = std::max(threads, cfg.threads_for(m->family));
    const double sharing = std::ceil(double(threads) / double(std::min(threads, cpus)));
    const auto work =
        std::chrono::nanoseconds(std::int64_t(double(loops) * spin_turn_ns() * sharing));
    if (work * 2 > cfg.watchdog)
      return fmt::format("--cs-read {} / --cs-write {} / --delay {}: about {} of work per pass "
                         "here ({:.0f} threads per CPU), which needs a --watchdog over {}",
                         cfg.cs_read_loops, cfg.cs_write_loops, cfg.delay_loops,
                         format_duration(round_up_ms(work)), sharing,
                         format_duration(round_up_ms(work * 2)));
  }
  return {};
}

// What the options hold before they are checked and turned into the
// typed RunConfig: the text of the options that need parsing, and the
// subcommands.
struct RawOptions {
  std::string duration = "4s", watchdog = "10s", cpus, placement = "compact", seed;
  int ncpus = 0;
  bool no_check = false;
  std::vector<std::string> hist_what;
  std::string hist_bucket = "log2";
  std::string acq_writer_lim;
  std::vector<std::string> inject_specs;
  std::string list_what;
  std::string sweep_cpus = "1..N", sweep_placements = "compact", beyond = "skip";
  std::string validate_time = "2m";
  std::string fuzz_time = "10m", fuzz_trial_time = "500ms", fuzz_shard, fuzz_shrink_time = "1m",
              fuzz_memory, fuzz_cpu;
  CLI::App* list = nullptr;
  CLI::App* selftest = nullptr;
  CLI::App* sweep = nullptr;
  CLI::App* suite = nullptr;
  CLI::App* compare = nullptr;
  CLI::App* validate = nullptr;
  CLI::App* fuzz = nullptr;
  CLI::App* fuzz_merge = nullptr;
  std::string kernel_time = "1m";
  std::string kernel_explore_time = "3m";
  std::string explore_time;
  std::string validate_explore_time;
  std::vector<std::string> kernel_files, kernel_config;  // each repeatable, comma-separated
  bool kernel_no_validate = false;
  bool validate_no_explore = false;
  CLI::App* kernel = nullptr;
  std::string explore_step_time = "1us";
  std::string explore_time_jump = "20ms";
  std::string explore_handoff_after = "8ms";
  bool explore_no_shrink = false;
  std::string explore_shard;
  CLI::App* explore_merge = nullptr;
  CLI::App* explore = nullptr;
};

// The main run's options (which sweep and suite share).
void add_run_options(CLI::App& app, RunConfig& cfg, RawOptions& raw) {
  app.add_option("--plugin", cfg.plugins,
                 "PATH.so: load the locks of a plugin (include/rwstress/plugin.h, "
                 "docs/plugins.md); repeatable")
      ->type_name("PATH")
      ->take_all();
  app.add_option("--lock", cfg.lock_spec,
                 "NAME[,NAME...]: implementations, a family (rwlock, semaphore, mutex), 'all' "
                 "or 'busted'")
      ->default_val("rwlock");
  app.add_option("--readers", cfg.readers, "reader threads")
      ->check(whole(0, kMaxThreads))
      ->default_val(4);
  app.add_option("--writers", cfg.writers,
                 "writer threads; for a semaphore or a mutex, the same as --threads")
      ->check(whole(0, kMaxThreads))
      ->default_val(2);
  app.add_option("--threads", cfg.threads,
                                     "semaphores and mutexes: threads doing down/up or lock/unlock")
                          ->check(whole(1, kMaxThreads))
                          ->default_val(4);
  app.add_option("--count", cfg.count, "semaphores: the initial count")
                        ->check(whole(1, kMaxThreads))
                        ->default_val(2);
  add_knob_options(app, cfg.tuning);
  app.add_flag("--sched", cfg.sched, "sched_yield() after each pass through the loop");
  app.add_option("--rt-threads", cfg.rt_threads,
                 "N: the last N threads run SCHED_FIFO (priority 1) above the others, a guard "
                 "taking them off it for 10 ms where they kept a CPU 190 ms of 200, as the "
                 "kernel's RT throttling does (needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO; "
                 "default 0)")
      ->check(whole(0, kMaxThreads));
  app.add_flag("--writer-fifo", cfg.writer_fifo,
               "every writer (every thread of a mutex or semaphore) runs SCHED_FIFO, as "
               "locktorture's writer_fifo; the same guard as --rt-threads");
  app.add_option("--nested-locks", cfg.nested_locks,
                 "N: N more locks of the kind under test; each pass of a writer (of every "
                 "thread of a mutex or semaphore) first takes a drawn subset of them in "
                 "ascending order, and lets go of them after the lock, as locktorture's "
                 "nested_locks (0 to 8; default 0)")
      ->check(whole(0, kMaxNestedLocks));
  app.add_option("--duration", raw.duration, "per lock: 2, 2s, 500ms")->default_val("4s");
  app.add_option("--cpus", raw.cpus, "CPU numbers, as taskset takes them: 0, 0-3,8; default: all allowed");
  app.add_option("--ncpus", raw.ncpus, "a number of CPUs: the first N of the placement order")
      ->check(whole(1, 65536));
  app.add_option("--placement", raw.placement, "compact | scatter | smt")->default_val("compact");
  app.add_option("--cs-read", cfg.cs_read_loops, "work inside a read hold, in loop turns")
      ->check(whole(std::uint64_t(0), std::uint64_t(1) << 32));
  app.add_option("--cs-write", cfg.cs_write_loops, "work inside a write hold, in loop turns")
      ->check(whole(std::uint64_t(0), std::uint64_t(1) << 32));
  app.add_option("--delay", cfg.delay_loops, "work between acquisitions, in loop turns")
      ->check(whole(std::uint64_t(0), std::uint64_t(1) << 32));
  app.add_option("--try-every", cfg.try_every,
                 "one acquisition in N goes through the trylock (where the lock has one) and "
                 "one write hold in N ends in downgrade_write (N a power of two; default 16)")
      ->check(CLI::Validator(
          [](const std::string& text) {
            unsigned long n = 0;
            try {
              n = std::stoul(text);
            } catch (const std::exception&) {
              return std::string("not a number");
            }
            return n >= 1 && n <= 65536 && (n & (n - 1)) == 0
                       ? std::string()
                       : std::string("must be a power of two from 1 to 65536");
          },
          "POW2"));
  app.add_option("--killable-every", cfg.killable_every,
                 "one acquisition in N takes a killable or interruptible entry point, where "
                 "the lock has them (the kernel's own files: rwstress kernel); 0: none; "
                 "default 4")
      ->check(whole(0, 65536));
  app.add_option("--seed", raw.seed, "run seed (decimal or 0x hex); default: random, printed");
  app.add_option("--json", cfg.json_path, "also write the results as JSON (schema 1) to PATH");
  app.add_option("--watchdog", raw.watchdog, "HANG after this long without progress")
      ->default_val("10s");
  app.add_flag("--fail-fast", cfg.fail_fast, "stop at the first violation");
  app.add_flag("--verbose,-v", cfg.verbose, "per-thread results under each row");
  app.add_flag("--rusage", cfg.rusage,
               "context switches, user/sys CPU time, idle share and time per operation under "
               "each row (always in --json)");
  app.add_flag("--no-check", raw.no_check,
               "measure only: the loop of liburcu's test_rwlock (acquire, work, release), no "
               "invariant checks and no trylock/downgrade mix; HANG and STARVED still judged");
  app.add_flag("--lockstat", cfg.measure.lockstat,
               "lockmeter table (the 2002 lockmeter report) per lock: UTIL, CON, HOLD and WAIT mean(max), TOTAL, "
               "NOWAIT, SPIN, RJECT, per read/write, from a calibrated clock");
  app.add_option("--hist", raw.hist_what, "hold, wait or hold,wait: time histograms (the 1999 kernel_lock report)")
      ->delimiter(',')
      ->check(CLI::IsMember({"hold", "wait"}));
  app.add_option("--acq-writer-lim", raw.acq_writer_lim,
                 "a write acquisition (a writer of an rwlock, any thread of a mutex or "
                 "semaphore) that waits longer than this, like 10ms, is a violation "
                 "(acquire-limit: FAIL), as locktorture's acq_writer_lim; the wait is from the "
                 "call to its return, preemption included, so give the host's room");
  app.add_option("--hist-bucket", raw.hist_bucket,
                 "log2 (default), or a bucket width (128ns, 1us) for linear buckets");
  app.add_option("--hist-buckets", cfg.measure.hist.buckets,
                 "linear buckets before the overflow count")
      ->check(whole(1, 4096))
      ->default_val(64);
  app.add_option("--repeat", cfg.repeat, "run each lock N times (for compare)")
      ->check(whole(1, 1000))
      ->default_val(1);
  app.add_option("--csv", cfg.csv_path, "also write one CSV row per run to PATH");
  app.add_option("--junit", cfg.junit_path, "also write JUnit XML (one test case per run) to PATH");
  app.add_option("--plot", cfg.plot_prefix,
                 "PREFIX: plots as PREFIX-*.svg and .png through gnuplot (histograms, sweeps)");
  app.add_option("--inject", raw.inject_specs,
                 "KIND[@POINT[+POINT...]][:PARAM,...], repeatable; see rwstress list injectors")
      ->take_all();
}

// list, selftest, sweep, suite and compare, with their own options.
void add_subcommands(CLI::App& app, RunConfig& cfg, RawOptions& raw) {
  raw.list = app.add_subcommand("list", "list every lock implementation");
  raw.list->fallthrough();  // a run option given after it is named and refused, not taken as 'what'

  raw.list->add_option("what", raw.list_what, "'injectors': every injector and injection point")
      ->check(CLI::IsMember({"locks", "injectors"}));
  CLI::App* selftest = raw.selftest = app.add_subcommand(
      "selftest", "run every busted lock where it must be caught and every correct lock as a control");
  selftest->add_flag("--short", cfg.selftest_short, "shorter runs (CI): controls 100 ms, caps 2 s");
  CLI::App* sweep = raw.sweep = app.add_subcommand(
      "sweep", "the scenario over CPU counts and placements: throughput, scaling, linear");
  sweep->fallthrough();
  sweep->footer(
      "Every run option applies (--lock, --duration, --repeat, --json, --plot, ...). In a sweep "
      "--readers, --writers and --threads count per CPU: one reader (or thread) per CPU unless "
      "given.");
  sweep->add_option("--cpus", raw.sweep_cpus, "CPU counts: 1,2,4,8 or 1..8 or 1..16x2; N: all")
      ->default_val("1..N");
  sweep->add_option("--placements", raw.sweep_placements, "compact, scatter, smt, or a list")
      ->default_val("compact");
  sweep->add_option("--beyond", raw.beyond,
                    "counts over this machine's CPUs: skip (say so) or oversubscribe (run "
                    "that many CPUs' threads on the CPUs there are, marked)")
      ->check(CLI::IsMember({"skip", "oversubscribe"}))
      ->default_val("skip");
  CLI::App* suite = raw.suite = app.add_subcommand("suite", "a named scenario set: rwsem-test, bkl");
  suite->fallthrough();
  suite->footer("rwsem-test: the 2001 rwsem benchmark (1 s per run, 2 runs; --lock adds rwlocks). bkl: the 2000 BKL report "
                "over 1..all CPUs. --duration, --repeat, --json, --csv, --junit, --plot apply.");
  suite->add_option("name", cfg.suite, "rwsem-test | bkl | list")->required();
  CLI::App* validate = raw.validate = app.add_subcommand(
      "validate", "is this lock ready to port? the battery of scenarios that catch each bug class");
  validate->fallthrough();
  validate->footer("--lock names the lock(s), --plugin loads them; --seed, --cpus, --placement and "
                   "--watchdog apply. Each scenario runs in a child process; then, for a lock the "
                   "controlled scheduler sees inside, an exploration stage (docs/explore.md).");
  validate->add_option("--time", raw.validate_time, "the budget per lock, shared by its scenarios")
      ->default_val("2m");
  validate->add_flag("--no-explore", raw.validate_no_explore,
                     "skip the exploration stage (the controlled scheduler's runs of a lock it sees "
                     "inside: in-tree locks, explore builds of plugins)");
  validate->add_option("--explore-schedules", cfg.validate_explore_schedules,
                       "at least this many schedules per exploration run, then on within its share "
                       "of --explore-time (default 1000; five times as many for the exhaustive search)")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(100'000'000)));
  validate->add_option("--explore-time", raw.validate_explore_time,
                       "the exploration stage's budget per lock, on top of --time, shared by its "
                       "runs as they go (default: a quarter of --time)");
  CLI::App* kernel = raw.kernel = app.add_subcommand(
      "kernel", "a kernel tree's own locking files (and your patches to them), built on the "
                "kernel-compat layer and validated");
  kernel->footer("One of --source and --version. The table names each lock by its kernel "
                 "(k6.18-rwsem) and the plugin that holds it; the exit code is the worst verdict, "
                 "125 when a file does not compile against the layer (docs/plugins.md).");
  kernel->add_option("--source", cfg.kernel.source, "DIR: a kernel tree (kernel/locking/ and Makefile)");
  kernel->add_option("--version", cfg.kernel.version,
                     "6.18 or 6.18.15: fetch Debian's linux source of that version (cached)");
  kernel->add_option("--patch", cfg.kernel.patches,
                     "FILE: a patch to kernel/locking/, applied with patch -p1; repeatable, in order")
      ->take_all();
  kernel->add_option("--files", raw.kernel_files,
                     "rwsem,mutex,ww-mutex,semaphore,qrwlock,percpu-rwsem: the files to build (default: all "
                     "of them)")
      ->delimiter(',');
  kernel->add_option("--config", raw.kernel_config,
                     "RWSEM_SPIN_ON_OWNER=y|n,MUTEX_SPIN_ON_OWNER=y|n: the CONFIG_ options the "
                     "files are built with")
      ->delimiter(',');
  kernel->add_option("--time", raw.kernel_time, "validate's budget per lock (default 1m)");
  kernel->add_flag("--explore", cfg.kernel.explore,
                   "also build each file with -DRWSTRESS_KERNEL_EXPLORE and run rwstress explore on "
                   "each lock: PCT and a bounded exhaustive search at 2-3 threads (docs/explore.md)");
  kernel->add_option("--explore-time", raw.kernel_explore_time,
                     "with --explore: the time each lock's portfolio of searches (shapes, "
                     "strategies, events, memory models) may take (default 3m)");
  kernel->add_option("--explore-schedules", cfg.kernel.explore_schedules,
                     "with --explore, instead of --explore-time: run each search of the "
                     "portfolio once, this many schedules (the same schedules every time)")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(100'000'000)));
  kernel->add_flag("--no-validate", raw.kernel_no_validate, "with --explore: explore only");
  kernel->add_option("--cache", cfg.kernel.cache_dir,
                     "DIR: sources and built plugins (default $XDG_CACHE_HOME/rwstress/kernel)");
  CLI::App* explore = raw.explore = app.add_subcommand(
      "explore", "controlled scheduling: the lock's threads one at a time, every interleaving "
                 "decided by a strategy; finds, shrinks and replays a failing schedule");
  explore->fallthrough();
  explore->footer("--lock names the lock(s) (in-tree locks: the scheduler sees inside them), "
                  "--readers/--writers or --threads and --count give the shape, the lock knobs "
                  "and --seed (default 0) apply (docs/explore.md).");
  explore->add_option("--strategy", cfg.explore.strategy_text,
                      "random | pct[:depth=D][,conflicts] | exhaustive[:preemptions=C][,reduce] (default pct:depth=3; "
                      "conflicts: change points only at accesses to a word another thread touched)");
  explore->add_option("--schedules", cfg.explore.schedules, "at most this many schedules (default 1000)")
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 40));
  explore->add_option("--time", raw.explore_time,
                      "and for at most this long: the search stops there and says how far it "
                      "got (default: no limit)");
  explore->add_option("--outcome", cfg.explore.outcome_path,
                      "FILE: the search's result as one JSON object (verdict, schedules, "
                      "complete, the preemption bound searched completely, replay), for scripts");
  explore->add_option("--trace-json", cfg.explore.trace_json_path,
                      "FILE: the failing schedule (or the --replay one) in the Chrome trace-event "
                      "format Perfetto and chrome://tracing open: a track per thread, a slice per "
                      "step and hold, arrows for wake-ups and for the store a weak load read");
  explore->add_option("--ops", cfg.explore.ops, "operations per thread (default 2)")
      ->check(CLI::Range(1, 1000));
  explore->add_option("--virtual-cpus", cfg.explore.virtual_cpus,
                      "K: the threads share K CPUs (thread i on CPU i mod K); on a CPU only its "
                      "highest-priority runnable threads run, and a thread with preemption or "
                      "interrupts off (the kernel layer's preempt_disable(), spin locks) is "
                      "not preempted (default: a CPU each)")
      ->check(CLI::Range(1, 64));
  explore->add_option("--rt-threads", cfg.explore.rt_threads,
                      "N: the last N threads are real-time (SCHED_FIFO; the kernel layer's "
                      "rt_task() is true for them), above the others on a shared CPU (default 0)")
      ->check(CLI::Range(0, 64));
  explore->add_option("--replay", cfg.explore.replay,
                      "DIGEST:CHOICES: run one recorded schedule step for step (a replay line's)");
  explore->add_option("--step-time", raw.explore_step_time,
                      "how far the run's clock moves per step: timeouts are reached by steps "
                      "(default 1us)");
  explore->add_option("--max-steps", cfg.explore.max_steps,
                      "a schedule longer than this is a livelock (default 200000)")
      ->check(CLI::Range(std::uint64_t(100), std::uint64_t(1) << 32));
  explore->add_option("--trace", cfg.explore.trace_steps,
                      "lines of a failing schedule's trace to print, a repeated step one line "
                      "(default 40)")
      ->check(CLI::Range(1, 1000000));
  explore->add_option("--replays", cfg.explore.replays,
                      "times a failing schedule is replayed to check it reproduces (default 10)")
      ->check(CLI::Range(0, 100000));
  explore->add_option("--spurious-wakes", cfg.explore.spurious_wakes,
                      "spurious wake-ups a schedule may deliver, each a choice (default 2; "
                      "exhaustive: 0, and every one offered is searched)")
      ->check(CLI::Range(0, 1000));
  explore->add_option("--expiries", cfg.explore.expiries,
                      "timed waits (a semaphore's down_timeout) a schedule may end by their "
                      "timeout expiring, each a choice: the run's clock jumps to the deadline "
                      "(default 2; exhaustive: 0, and every one offered is searched)")
      ->check(CLI::Range(0, 1000));
  explore->add_option("--ticks", cfg.explore.ticks,
                      "kernel-compat layer plugins and linux-rwsem: scheduler ticks a schedule may "
                      "deliver at need_resched() checks, each a choice (a spinner then stops spinning while "
                      "the owner runs; default 2; exhaustive: 0, and every one offered is searched)")
      ->check(CLI::Range(0, 1000));
  explore->add_option("--time-jumps", cfg.explore.time_jumps,
                      "kernel-compat layer plugins, linux-rwsem, kernel-sem: times a schedule may "
                      "let --time-jump pass at a clock read of the lock's (jiffies, "
                      "sched_clock(), its hand-off's wait), each a choice: code "
                      "that waits for time (rwsem.c's HANDOFF after 4 jiffies) gets there "
                      "(default 0; exhaustive: every one offered is searched, N at most)")
      ->check(CLI::Range(0, 1000));
  explore->add_option("--interrupts", cfg.explore.interrupts,
                      "kernel-compat layer plugins whose glue gives work to an interrupt handler "
                      "(percpu-rwsem: a read hold released by a completion): interrupts a "
                      "schedule may deliver, each a choice, in the middle of a per-CPU "
                      "read-modify-write that is not interrupt-safe (__this_cpu_inc); the work "
                      "runs there, on that CPU (default 0: in task context; exhaustive: every "
                      "one offered is searched, N at most)")
      ->check(CLI::Range(0, 1000));
  explore->add_option("--time-jump", raw.explore_time_jump,
                      "how much time one jump lets pass (default 20ms: 20 jiffies at the "
                      "layer's HZ 1000, far short of a down_timeout's 1 s)");
  explore->add_flag("--fair", cfg.explore.fair,
                    "random and pct: every runnable thread runs within 2 steps per thread (the "
                    "strategy chooses the rest), and a hand-off lock's waiter that waited "
                    "--handoff-after of the run's clock and is then overtaken more than 4 times "
                    "per thread is STARVED (give --ops enough for the others to come back)");
  explore->add_option("--handoff-after", raw.explore_handoff_after,
                      "with --fair: how long of the run's clock a hand-off lock's waiter waits "
                      "before the lock owes it the hand-off and overtakes count (default 8ms: "
                      "twice rwsem.c's 4 jiffies; 0 for a lock whose woken top waiter asks at "
                      "once, as mutex.c's)");
  explore->add_flag("--signals", cfg.explore.signals,
                    "kernel-compat layer plugins: one acquisition in two is killable or "
                    "interruptible, and a spurious wake-up of its sleep is a fatal signal (its "
                    "bail-out path runs; the killed task goes away until another completes an "
                    "operation)");
  explore
      ->add_option_function<std::string>(
          "--memory",
          [&cfg](const std::string& m) {
            cfg.explore.memory = m == "c11"   ? ExploreMemory::kC11
                                 : m == "tso" ? ExploreMemory::kTso
                                              : ExploreMemory::kSc;
          },
          "sc (default): one thread at a time, every access seen at once; c11: the "
          "release/acquire memory model (loads may read older stores it allows, and each holder "
          "must have the last write hold's data in its view); tso: x86's store buffers "
          "(docs/explore.md, \"Memory models\")")
      ->check(CLI::IsMember({"sc", "c11", "tso"}));
  explore
      ->add_option("--stale-reads", cfg.explore.stale_reads,
                   "under --memory c11 or tso: how many weak choices a random or pct schedule "
                   "may make (a load that reads an older value the model allows; under c11 "
                   "also a store placed before one its thread has not seen); default 4")
      ->check(CLI::Range(0, 1000));
  explore->add_flag("--no-shrink", raw.explore_no_shrink,
                    "report the first failing schedule as found, not shrunk to fewer preemptions");
  explore->add_option("--jobs", cfg.explore.jobs,
                      "split the search among N processes side by side, the first failure "
                      "stopping the rest (default 1; 0: one per CPU this process may use)")
      ->check(CLI::Range(0, 1024));
  explore->add_option("--shard", raw.explore_shard,
                      "i/N: this machine's share of a search split among N (sampling: every "
                      "N-th schedule from the i-th; exhaustive: every N-th subtree; then: "
                      "explore merge)");
  CLI::App* explore_merge = raw.explore_merge = explore->add_subcommand(
      "merge", "join the --outcome files of a search's shards (--shard i/N) into one verdict");
  explore_merge->add_option("outcomes", cfg.explore.merge, "the shards' --outcome files")->required();
  CLI::App* fuzz = raw.fuzz = app.add_subcommand(
      "fuzz", "a campaign of random trials, each in a child process; failures grouped into findings");
  fuzz->fallthrough();
  fuzz->footer("--lock (default: every correct lock), --plugin and --seed apply. Each trial runs its "
               "own replay command line (docs/fuzzing.md).");
  fuzz->add_option("--time", raw.fuzz_time, "the campaign's budget (default 10m)");
  fuzz->add_option("--trials", cfg.fuzz.trials, "run this many trials instead of a budget")
      ->check(whole(std::uint64_t(1), std::uint64_t(1) << 40));
  fuzz->add_option("--trial-time", raw.fuzz_trial_time, "each trial's --duration (default 500ms; at least 2s for a hand-off lock, whose waits are judged)");
  fuzz->add_option("--out", cfg.fuzz.out_dir,
                   "DIR: trials.jsonl (a line per trial, fsynced) and repro-N.sh per finding");
  fuzz->add_flag("--stop-on-failure", cfg.fuzz.stop_on_failure, "stop at the first finding");
  fuzz->add_option("--dry-run", cfg.fuzz.dry_run, "print the first N trials' command lines and exit")
      ->check(whole(1, 1000000));
  fuzz->add_option("--jobs", cfg.fuzz.jobs,
                   "trials side by side, each on its own CPUs (default: one per 4 CPUs)")
      ->check(whole(1, 65536));
  fuzz->add_option("--shard", raw.fuzz_shard,
                   "i/N: this machine's share, the trials k with k mod N == i (then: fuzz merge)");
  fuzz->add_option("--resume", cfg.fuzz.resume,
                   "DIR: continue the campaign in DIR (its options come from DIR)");
  fuzz->add_option("--reproduce", cfg.fuzz.reproduce,
                   "K: rerun each finding K times, and shrink it while it fails in one of K "
                   "(default 5; 0: neither)")
      ->check(whole(0, 1000));
  fuzz->add_option("--shrink-time", raw.fuzz_shrink_time,
                   "shrinking's budget per finding (default 1m; 0: do not shrink)");
  fuzz->add_option("--trial-memory", raw.fuzz_memory,
                   "SIZE: each trial's address-space limit, like 2G or 512M (default: none)");
  fuzz->add_option("--trial-cpu", raw.fuzz_cpu, "each trial's CPU-time limit, like 30s (default: none)");
  fuzz->add_option("--explore-share", cfg.fuzz.explore_share,
                   "the share of the trials that are controlled ones over the explorable locks "
                   "(rwstress explore), between the timed ones (default 0.25, 0: none)")
      ->check(CLI::Range(0.0, 1.0));
  CLI::App* merge = raw.fuzz_merge = fuzz->add_subcommand(
      "merge", "join the logs of a campaign's shards into one summary and one set of findings");
  merge->fallthrough();
  merge->add_option("dirs", cfg.fuzz.merge, "the shards' --out directories")->required();
  CLI::App* compare = raw.compare = app.add_subcommand(
      "compare", "mean (stddev), % difference and Welch's t-test of two --json results");
  compare->add_option("a", cfg.compare_a, "the baseline (A.json)")->required();
  compare->add_option("b", cfg.compare_b, "the one compared (B.json)")->required();
  const std::vector<std::string> key_parts = scenario_key_parts();
  compare->add_option("--ignore", cfg.compare_ignore,
                      fmt::format("match scenarios without these parts: {}",
                                  fmt::join(key_parts, ", ")))
      ->delimiter(',')
      ->check(CLI::IsMember(key_parts));
  compare->add_option("--alpha", cfg.compare_alpha, "significance level")
      ->check(CLI::Range(1e-6, 0.5))
      ->default_val(0.05);
}

// sweep: CPU counts, placements, and thread counts per CPU. "" or why not.
std::string finish_sweep(const CLI::App& app, const RawOptions& raw, RunConfig& cfg) {
  std::string counts_text = raw.sweep_cpus;  // N: every CPU this process may use
  std::string error;
  if (app.count("--cpus") > 0 || app.count("--ncpus") > 0)
    return "sweep takes its CPU counts from 'sweep --cpus'; give --cpus after sweep";
  if (counts_text.find('N') != std::string::npos) {
    std::string all = std::to_string(allowed_cpu_count());
    for (size_t at; (at = counts_text.find('N')) != std::string::npos;)
      counts_text.replace(at, 1, all);
  }
  auto counts = parse_cpu_counts(counts_text, &error);
  if (!counts) return error;
  auto placements = parse_placements(raw.sweep_placements, &error);
  if (!placements) return "sweep --placements: " + error;
  cfg.sweep_cpus = *counts;
  cfg.sweep_placements = *placements;
  cfg.sweep_oversubscribe = raw.beyond == "oversubscribe";
  // Thread counts are per CPU in a sweep; one reader (or holder) per CPU
  // unless given.
  if (app.count("--readers") == 0 && app.count("--writers") == 0) {
    cfg.readers = 1;
    cfg.writers = 0;
  } else {
    if (app.count("--readers") == 0) cfg.readers = 0;
    if (app.count("--writers") == 0) cfg.writers = 0;
  }
  if (app.count("--threads") == 0 && app.count("--writers") == 0) cfg.threads = 1;
  const int per_cpu = std::max(cfg.readers + cfg.writers, cfg.threads);
  if (std::int64_t(per_cpu) * cfg.sweep_cpus.back() > kMaxThreads)
    return fmt::format("sweep: {} CPUs x {} threads per CPU is over {} threads",
                       cfg.sweep_cpus.back(), per_cpu, kMaxThreads);
  return "";
}

// --hist, --hist-bucket and --hist-buckets. "" or why not.
std::string finish_histograms(const CLI::App& app, const RawOptions& raw, RunConfig& cfg) {
  std::string error;
  if (!raw.hist_what.empty()) {
    for (const auto& w : raw.hist_what) (w == "hold" ? cfg.measure.hist_hold : cfg.measure.hist_wait) = true;
  }
  if (raw.hist_what.empty() && (app.count("--hist-bucket") > 0 || app.count("--hist-buckets") > 0))
    return "--hist-bucket and --hist-buckets shape a histogram: add --hist hold or "
           "--hist wait";
  if (app.count("--hist-buckets") > 0 && raw.hist_bucket == "log2")
    return "--hist-buckets counts linear buckets; log2 buckets cover every time: give "
           "--hist-bucket WIDTH (like 128ns) with it, or leave it out";
  if (raw.hist_bucket != "log2") {
    auto width = parse_duration(raw.hist_bucket, &error, std::chrono::nanoseconds(1));
    if (!width || width->count() < 1)
      return "--hist-bucket '" + raw.hist_bucket + "': use log2 or a width such as 128ns";
    cfg.measure.hist.mode = HistSpec::Mode::kLinear;
    cfg.measure.hist.width_ns = std::uint64_t(width->count());
  }
  if (app.count("--acq-writer-lim") > 0) {
    auto limit = parse_duration(raw.acq_writer_lim, &error, std::chrono::nanoseconds(1));
    if (!limit || limit->count() < 1)
      return "--acq-writer-lim '" + raw.acq_writer_lim + "': " +
             (error.empty() ? std::string("give a time above zero, like 10ms") : error);
    cfg.measure.acq_writer_limit_ns = std::uint64_t(limit->count());
  }
  return "";
}

// Thread roles per family. "" or why not.
std::string finish_roles(const CLI::App& app, RunConfig& cfg) {
  // Thread roles per family: rwlocks have readers and writers; semaphores
  // and mutexes have only --threads (or --writers, read as the same).
  const bool rw = cfg.selects(Family::kRwlock);
  const bool exclusive = cfg.selects(Family::kSemaphore) || cfg.selects(Family::kMutex);
  const bool writers_given = app.count("--writers") > 0, threads_given = app.count("--threads") > 0;
  if (!rw && app.count("--readers") > 0)
    return fmt::format("--readers: '{}' has no shared mode; give the threads with "
                       "--threads N",
                       cfg.lock_spec);
  if (!exclusive && threads_given)
    return "--threads is for semaphores and mutexes; rwlocks take --readers and "
           "--writers";
  if (!cfg.selects(Family::kSemaphore) && app.count("--count") > 0)
    return "--count is for semaphores; no semaphore is selected";
  if (exclusive && !rw && writers_given) {
    if (threads_given && cfg.threads != cfg.writers)
      return fmt::format("--threads {} and --writers {} disagree", cfg.threads,
                         cfg.writers);
    if (cfg.writers == 0) return "--writers 0: a semaphore or mutex run needs threads";
    cfg.threads = cfg.writers;
  }
  if (rw && cfg.readers + cfg.writers == 0) return "--readers and --writers are both 0";
  return "";
}

// --rt-threads and --writer-fifo, once the locks and roles are known: the
// real-time threads exist in every selected shape, and the process may
// make a thread SCHED_FIFO (tried on this thread, then put back). "" or why not.
std::string finish_real_time(const RunConfig& cfg) {
  const bool rt_given = cfg.rt_threads > 0;
  if (!rt_given && !cfg.writer_fifo) return "";
  for (Family f : {Family::kRwlock, Family::kSemaphore, Family::kMutex}) {
    if (!cfg.selects(f)) continue;
    const int threads = f == Family::kRwlock ? cfg.readers + cfg.writers : cfg.threads;
    if (cfg.rt_threads > threads)
      return fmt::format("--rt-threads {}: a {} run here has {} thread{}", cfg.rt_threads,
                         family_name(f), threads, threads == 1 ? "" : "s");
    if (cfg.writer_fifo && f == Family::kRwlock && cfg.writers == 0)
      return "--writer-fifo: this rwlock run has no writer (--writers 0)";
  }
  sched_param fifo{};
  fifo.sched_priority = 1;
  if (sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) {
    const int err = errno;
    return fmt::format("{}: SCHED_FIFO is not permitted to this process ({}); run it as root, "
                       "with CAP_SYS_NICE, or with an RLIMIT_RTPRIO of 1 or more (ulimit -r)",
                       rt_given ? "--rt-threads" : "--writer-fifo", std::strerror(err));
  }
  sched_param normal{};
  sched_setscheduler(0, SCHED_OTHER, &normal);
  return "";
}

// explore's own options, once the locks and roles are known. "" or why not.
std::string finish_explore(const CLI::App& app, const RawOptions& raw, RunConfig& cfg) {
  RunConfig::Explore& x = cfg.explore;
  if (!cfg.lock_given) return "explore: name the lock with --lock NAME";
  if (std::string err = parse_explore_strategy(x.strategy_text, &x); !err.empty()) return err;
  for (const LockMeta* m : cfg.locks)
    if (!entry_of(*m).explore)
      return fmt::format("explore: {} ({}) cannot be explored: {}", m->name, m->origin,
                         why_not_explorable(*m));
  for (const LockMeta* m : cfg.locks)
    if (x.memory != ExploreMemory::kSc && !memory_modelled(*m))
      return fmt::format("explore --memory {}: {} ({}) was built on an <rwstress/explore.h> "
                         "older than host ABI 3, whose accesses do not tell the memory model "
                         "what they are; rebuild it",
                         memory_name(x.memory), m->name, m->origin);
  for (const LockMeta* m : cfg.locks)
    if (cfg.threads_for(m->family) > kExploreMaxThreads)
      return fmt::format("explore: {} threads for {}; a controlled run takes at most {}",
                         cfg.threads_for(m->family), m->name, kExploreMaxThreads);
  for (const LockMeta* m : cfg.locks) {
    const int threads = cfg.threads_for(m->family);
    if (x.rt_threads > threads)
      return fmt::format("explore --rt-threads {}: {} has {} threads in this shape",
                         x.rt_threads, m->name, threads);
    // (an in-tree lock neither asks rt_task() nor turns preemption off:
    // only a shared CPU with a real-time thread on it changes its schedules)
    const bool shared = x.virtual_cpus > 0 && x.virtual_cpus < threads;
    if (!m->plugin && (x.virtual_cpus > 0 || x.rt_threads > 0) && !(shared && x.rt_threads > 0))
      return fmt::format("explore --virtual-cpus/--rt-threads: for {} they change nothing unless "
                         "a real-time thread shares a CPU (give --rt-threads N with "
                         "--virtual-cpus K below its {} threads)",
                         m->name, threads);
  }
  const CLI::App& ex = *raw.explore;
  if (ex.count("--replay") > 0) {
    if (x.replay.empty()) return "explore --replay: an empty code (give the code of a replay line)";
    if (cfg.locks.size() != 1)
      return "explore --replay: a recorded schedule is one lock's; name that lock alone";
    // A replay runs the one recorded schedule: its choices carry every
    // event it took, and nothing is searched or drawn.
    for (const char* flag : {"--strategy", "--schedules", "--stale-reads", "--ticks",
                             "--spurious-wakes", "--expiries", "--time-jumps", "--interrupts",
                             "--replays", "--no-shrink"})
      if (ex.count(flag) > 0)
        return fmt::format("explore {} does nothing with --replay: a replay runs the one "
                           "recorded schedule, whose code carries every choice it made",
                           flag);
    if (app.count("--seed") > 0)
      return "explore --seed does nothing with --replay: a replay runs the one recorded schedule, "
             "whose code carries every choice it made";
  }
  if (x.fair && x.exhaustive)
    return "explore --fair: the exhaustive search lets a thread run on until a preemption, so "
           "its schedules are not fair; give --strategy random or pct with it";
  if (ex.count("--handoff-after") > 0 && !x.fair && ex.count("--replay") == 0)
    return "explore --handoff-after: only fair schedules judge a hand-off lock's waits; give "
           "--fair with it";
  if (ex.count("--replay") > 0 && x.fair)
    return "explore --fair does nothing with --replay: a replay runs the one recorded schedule, "
           "whose code says whether it was fair";
  if (ex.count("--stale-reads") > 0 && x.memory == ExploreMemory::kSc)
    return "explore --stale-reads: weak choices are a memory model's (older values read, stores "
           "placed early); give --memory c11 or --memory tso with it";
  // An event no selected lock can meet would change nothing (and the
  // header would claim it): refused where the lock's code is known.
  for (const LockMeta* m : cfg.locks) {
    if (m->plugin) continue;  // (a plugin's points are known once it runs: a note then)
    if (x.signals)
      return fmt::format("explore --signals: {} has no killable or interruptible wait (in-tree "
                         "locks have none; the kernel's own files do: rwstress kernel), so no "
                         "signal could arrive",
                         m->name);
    if (x.expiries > 0 && !m->caps.timeout)
      return fmt::format("explore --expiries {}: {} has no timed wait (in-tree, the semaphores "
                         "with down_timeout have one), so no timeout could expire",
                         x.expiries, m->name);
    if (x.time_jumps > 0 && !m->caps.reads_clock)
      return fmt::format("explore --time-jumps {}: {} reads no clock a jump could change "
                         "(in-tree, linux-rwsem and kernel-sem do; so do the kernel's own "
                         "files: jiffies, sched_clock())",
                         x.time_jumps, m->name);
    if (x.interrupts > 0)
      return fmt::format("explore --interrupts {}: {} gives an interrupt handler no work (in-tree "
                         "locks have no interrupt context; the kernel's percpu-rwsem does: a read "
                         "hold released by a completion)",
                         x.interrupts, m->name);
    if (x.ticks > 0 && !m->caps.resched_checks)
      return fmt::format("explore --ticks {}: {}'s spinners never ask need_resched() (in-tree, "
                         "linux-rwsem's do; so do the kernel's own files), so no tick could "
                         "change anything",
                         x.ticks, m->name);
  }
  std::string error;
  auto step = parse_duration(raw.explore_step_time, &error, std::chrono::nanoseconds(1));
  if (!step) return "explore --step-time: " + error;
  x.step_ns = std::uint64_t(step->count());
  auto jump = parse_duration(raw.explore_time_jump, &error, std::chrono::nanoseconds(1));
  if (!jump) return "explore --time-jump: " + error;
  x.time_jump_ns = std::uint64_t(jump->count());
  // 0: owed from the first wait (mutex.c).
  auto handoff = parse_duration(raw.explore_handoff_after, &error, std::chrono::nanoseconds(0));
  if (!handoff) return "explore --handoff-after: " + error;
  x.handoff_after_ns = std::uint64_t(handoff->count());
  if (!raw.explore_time.empty()) {
    auto budget = parse_duration(raw.explore_time, &error, std::chrono::milliseconds(1));
    if (!budget) return "explore --time: " + error;
    x.time_ns = std::uint64_t(budget->count());
  }
  if (!x.outcome_path.empty())
    if (std::string why = check_report_path(x.outcome_path); !why.empty())
      return "explore --outcome: " + why;
  if (!x.trace_json_path.empty())
    if (std::string why = check_report_path(x.trace_json_path); !why.empty())
      return "explore --trace-json: " + why;
  x.shrink = !raw.explore_no_shrink;
  if (ex.count("--shard") > 0) {
    if (!parse_shard(raw.explore_shard, &x.shard_index, &x.shard_count))
      return "explore --shard " + raw.explore_shard + ": want i/N with 0 <= i < N, like 0/4";
  }
  if (x.jobs == 0) x.jobs = allowed_cpu_count();
  if (ex.count("--replay") > 0 && (ex.count("--jobs") > 0 || ex.count("--shard") > 0))
    return fmt::format("explore {} does nothing with --replay: a replay runs the one recorded "
                       "schedule",
                       ex.count("--jobs") > 0 ? "--jobs" : "--shard");
  if (app.count("--seed") == 0) cfg.seed = 0;  // the same command, the same schedules
  // A spinner's turns are steps here: spin a few before sleeping, unless told.
  if (app.count("--spin-limit") == 0) cfg.tuning.spin_limit = kExploreSpinLimit;
  return "";
}

// Injection, duration, watchdog, CPUs, placement and seed. "" or why not.
std::string finish_run_options(const CLI::App& app, const RawOptions& raw, RunConfig& cfg) {
  std::string error;
  for (const std::string& text : raw.inject_specs) {
    auto spec = parse_inject_spec(text, &error);
    if (!spec) return error;
    cfg.injection.specs.push_back(*spec);
  }
  if (cfg.readers + cfg.writers > kMaxThreads)
    return fmt::format("{} threads in all; at most {}", cfg.readers + cfg.writers,
                       kMaxThreads);
  auto d = parse_duration(raw.duration, &error);
  if (!d) return "--duration: " + error;
  cfg.duration = *d;
  auto w = parse_duration(raw.watchdog, &error);
  if (!w) return "--watchdog: " + error;
  cfg.watchdog = *w;
  if (std::string why = watchdog_guard(cfg); !why.empty()) return why;
  if (app.count("--cpus") > 0 && app.count("--ncpus") > 0)
    return "--cpus (which CPUs) and --ncpus (how many) are one choice; give one";
  if (app.count("--ncpus") > 0) cfg.cpus.count = raw.ncpus;
  if (app.count("--cpus") > 0) {
    auto spec = parse_cpu_spec(raw.cpus, &error);
    if (!spec) return error;
    cfg.cpus = *spec;
  }
  auto placed = parse_placements(raw.placement, &error);
  if (!placed || placed->size() != 1)
    return "--placement '" + raw.placement + "': use compact, scatter or smt";
  cfg.placement = placed->front();
  if (app.count("--seed") == 0) {
    cfg.seed = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  } else if (auto v = parse_seed(raw.seed)) {
    cfg.seed = *v;
  } else {
    return "--seed '" + raw.seed + "': a number from 0 to 2^64-1, decimal or 0x hex";
  }
  return "";
}

}  // namespace

CliOutcome parse_cli(const std::vector<std::string>& args) {
  CLI::App app{"rwstress: torture and measure reader-writer semaphores, semaphores, mutexes "
               "and spinlocks",
               "rwstress"};
  app.footer(kExamples);
  app.set_version_flag("--version", std::string("rwstress ") + kVersion);
  RunConfig cfg;
  RawOptions raw;
  add_run_options(app, cfg, raw);
  add_subcommands(app, cfg, raw);

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::Success& e) {
    CliOutcome out;
    out.action = CliAction::kExit;
    out.exit_code = 0;
    out.output = e.get_name() == "CallForVersion" ? e.what() : app.help();
    return out;
  } catch (const CLI::ParseError& e) {
    return usage_error(one_line(e.what()));
  }

  // Before anything names a lock: a plugin's locks are listed, selected
  // and run like the built-in ones.
  for (const std::string& path : cfg.plugins)
    if (std::string err = load_plugin(path); !err.empty()) return usage_error(err);

  // What each command reads of the main run's options; the rest, given
  // with it, are refused rather than silently ignored.
  std::string unread;
  if (raw.list->parsed()) unread = unread_options(app, "list", {"--plugin"});
  else if (raw.kernel->parsed()) unread = unread_options(app, "kernel", {});
  else if (raw.selftest->parsed()) unread = unread_options(app, "selftest", {"--plugin"});
  else if (raw.compare->parsed()) unread = unread_options(app, "compare", {});
  else if (raw.fuzz_merge->parsed()) {
    unread = unread_options(app, "fuzz merge", {"--json", "--junit"});
    if (unread.empty())
      if (std::string given = first_given(*raw.fuzz, kCampaignOptions); !given.empty())
        unread = fmt::format("{} does not apply to fuzz merge: it reads the shards' directories, "
                             "--json and --junit",
                             given);
  } else if (raw.fuzz->parsed() && raw.fuzz->count("--resume") > 0) {
    unread = unread_options(app, "fuzz --resume", {"--json", "--junit"});
    if (unread.empty())
      if (std::string given = first_given(*raw.fuzz, kCampaignOptions, "--resume"); !given.empty())
        unread = fmt::format("{} does not apply to fuzz --resume: the campaign's options come from "
                             "its directory (only --json and --junit may be given anew)",
                             given);
  } else if (raw.fuzz->parsed()) {
    unread = unread_options(app, "fuzz",
                            {"--plugin", "--lock", "--seed", "--cpus", "--ncpus", "--json", "--junit"});
  } else if (raw.explore_merge->parsed()) {
    unread = unread_options(app, "explore merge", {});
    if (unread.empty())
      for (const CLI::Option* o : raw.explore->get_options())
        if (o->count() > 0 && o->get_name() != "--help") {
          unread = fmt::format("{} does not apply to explore merge: it reads the shards' "
                               "--outcome files",
                               o->get_name());
          break;
        }
  } else if (raw.explore->parsed()) {
    std::vector<std::string> reads = {"--plugin",  "--lock",  "--readers", "--writers",
                                      "--threads", "--count", "--seed"};
    for (const Knob& k : kKnobs) reads.push_back("--" + std::string(k.flag));
    unread = unread_options(app, "explore", reads);
  } else if (raw.validate->parsed()) {
    unread = unread_options(app, "validate",
                            {"--plugin", "--lock", "--seed", "--cpus", "--ncpus", "--placement",
                             "--watchdog", "--cs-write", "--delay"});
  } else if (raw.suite->parsed()) {
    // A suite sets its own shapes and CPUs.
    for (const char* flag : {"--readers", "--writers", "--threads", "--count", "--sched", "--cpus", "--ncpus"})
      if (app.count(flag) > 0 && unread.empty())
        unread = fmt::format("{} does not apply to suite {}: the suite sets its own thread shapes and CPUs",
                             flag, cfg.suite);
    for (const char* flag : {"--cs-write", "--delay"})
      if (cfg.suite == "bkl" && app.count(flag) > 0 && unread.empty())
        unread = fmt::format("{} does not apply to suite bkl: it runs the 2000 BKL report's tiny "
                             "critical section",
                             flag);
  }
  if (!unread.empty()) return usage_error(unread);

  CliOutcome out;
  if (raw.list->parsed()) {
    out.action = raw.list_what == "injectors" ? CliAction::kListInjectors : CliAction::kList;
    return out;
  }
  if (raw.compare->parsed() && !(cfg.compare_alpha >= 1e-6 && cfg.compare_alpha <= 0.5))
    return usage_error("compare --alpha: a significance level from 1e-6 to 0.5");  // NaN too
  if (raw.kernel->parsed()) {
    RunConfig::Kernel& k = cfg.kernel;
    if (k.source.empty() == k.version.empty())
      return usage_error(k.source.empty()
                             ? "kernel: give the tree with --source DIR, or a version to fetch with "
                               "--version 6.18"
                             : "kernel: --source and --version are one choice; give one");
    if (raw.kernel->count("--source") > 0 && k.source.empty())
      return usage_error("kernel --source: an empty path");
    if (!k.version.empty() && !kernel_version_text(k.version))
      return usage_error(fmt::format("kernel --version '{}': want a series like 6.18 or a release "
                                     "like 6.18.15",
                                     k.version));
    for (const std::string& f : raw.kernel_files)
      if (!f.empty()) k.files.push_back(f);
    if (raw.kernel->count("--files") > 0 && k.files.empty())
      return usage_error("kernel --files: name at least one of rwsem, mutex, ww-mutex, semaphore, "
                         "qrwlock, percpu-rwsem");
    std::string error = check_kernel_files(k.files);
    if (error.empty() && !raw.kernel_config.empty())
      error = parse_kernel_config(fmt::format("{}", fmt::join(raw.kernel_config, ",")), &k.config);
    if (error.empty()) error = check_kernel_config_read(k.files, k.config);
    if (!error.empty()) return usage_error(error);
    auto t = parse_duration(raw.kernel_time, &error, std::chrono::seconds(1));
    if (!t) return usage_error("kernel --time: " + error);
    k.time = *t;
    k.validate = !raw.kernel_no_validate;
    if (!k.validate && !k.explore)
      return usage_error("kernel --no-validate: with --explore only (else nothing would run)");
    if (raw.kernel->count("--explore-schedules") > 0 && !k.explore)
      return usage_error("kernel --explore-schedules: with --explore only");
    if (raw.kernel->count("--explore-time") > 0 && !k.explore)
      return usage_error("kernel --explore-time: with --explore only");
    if (raw.kernel->count("--explore-time") > 0 && raw.kernel->count("--explore-schedules") > 0)
      return usage_error("kernel --explore-time and --explore-schedules: give one (a budget of "
                         "time, or a fixed number of schedules per search)");
    auto et = parse_duration(raw.kernel_explore_time, &error, std::chrono::seconds(1));
    if (!et) return usage_error("kernel --explore-time: " + error);
    k.explore_time = *et;
    out.action = CliAction::kKernel;
    out.config = std::move(cfg);
    return out;
  }
  if (raw.selftest->parsed() || raw.compare->parsed()) {
    out.action = raw.selftest->parsed() ? CliAction::kSelftest : CliAction::kCompare;
    out.config = std::move(cfg);
    return out;
  }

  std::string error;
  if (raw.sweep->parsed())
    if (error = finish_sweep(app, raw, cfg); !error.empty()) return usage_error(error);
  if (error = finish_histograms(app, raw, cfg); !error.empty()) return usage_error(error);
  cfg.check = !raw.no_check;
  cfg.lock_given = app.count("--lock") > 0;
  cfg.duration_given = app.count("--duration") > 0;
  cfg.locks = select_locks(cfg.lock_spec, &error);
  if (cfg.locks.empty()) return usage_error(error);
  if (error = finish_roles(app, cfg); !error.empty()) return usage_error(error);
  if (error = finish_real_time(cfg); !error.empty()) return usage_error(error);
  if (cfg.nested_locks > 0 && raw.no_check)
    return usage_error("--nested-locks: --no-check runs the bare loop, which takes the lock "
                       "under test alone: give one");
  if (cfg.nested_locks > 0 && cfg.selects(Family::kRwlock) && cfg.writers == 0)
    return usage_error("--nested-locks: this rwlock run has no writer (--writers 0), and only "
                       "writers take the nested locks");
  if (raw.no_check && cfg.fail_fast)
    return usage_error("--fail-fast stops at the first violation, and --no-check checks for none: "
                       "give one");
  // A lock knob no selected lock reads is refused, as --count is without a
  // semaphore: it would be copied into the replay line and change nothing.
  for (const Knob& k : kKnobs) {
    if (app.count("--" + std::string(k.flag)) == 0) continue;
    const bool read = std::any_of(cfg.locks.begin(), cfg.locks.end(),
                                  [&](const LockMeta* m) { return reads_knob(k, m->name); });
    if (!read)
      return usage_error(fmt::format("--{} is a knob of {}; none of the selected locks reads it",
                                     k.flag, k.locks));
  }
  if (app.count("--killable-every") > 0 &&
      std::none_of(cfg.locks.begin(), cfg.locks.end(),
                   [](const LockMeta* m) { return m->caps.killable; }))
    return usage_error("--killable-every is read by locks with killable entry points (the "
                       "kernel's own files: rwstress kernel); none of the selected locks has them");
  if (error = finish_run_options(app, raw, cfg); !error.empty()) return usage_error(error);
  if (error = output_paths_error(cfg, app); !error.empty()) return usage_error(error);

  if (raw.explore->parsed() && !raw.explore_merge->parsed())
    if (error = finish_explore(app, raw, cfg); !error.empty()) return usage_error(error);
  if (raw.validate->parsed()) {
    if (!cfg.lock_given) return usage_error("validate: name the lock with --lock NAME");
    auto t = parse_duration(raw.validate_time, &error, std::chrono::seconds(1));
    if (!t) return usage_error("validate --time: " + error);
    cfg.validate_time = *t;
    cfg.validate_explore = !raw.validate_no_explore;
    if (raw.validate->count("--explore-schedules") > 0 && !cfg.validate_explore)
      return usage_error("validate --explore-schedules: not with --no-explore");
    if (raw.validate->count("--explore-time") > 0) {
      if (!cfg.validate_explore) return usage_error("validate --explore-time: not with --no-explore");
      auto et = parse_duration(raw.validate_explore_time, &error, std::chrono::milliseconds(1));
      if (!et) return usage_error("validate --explore-time: " + error);
      cfg.validate_explore_time = *et;
    }
  }
  if (raw.fuzz->parsed()) {
    if (raw.fuzz->count("--time") > 0 && raw.fuzz->count("--trials") > 0)
      return usage_error("fuzz: --time (a budget) and --trials (a count) are one choice; give one");
    if (raw.fuzz->count("--out") > 0 && cfg.fuzz.out_dir.empty())
      return usage_error("fuzz --out: an empty path (give a directory, or leave --out out for no log)");
    if (raw.fuzz->count("--shard") > 0 && raw.fuzz_shard.empty())
      return usage_error("fuzz --shard: want i/N with 0 <= i < N, like 0/4");
    if (raw.fuzz->count("--jobs") > 0) {
      const int cpus = cfg.cpus.count > 0 ? cfg.cpus.count
                       : !cfg.cpus.list.empty() ? int(cfg.cpus.list.size())
                                                : allowed_cpu_count();
      if (cfg.fuzz.jobs > cpus)
        return usage_error(fmt::format("fuzz --jobs {}: each job needs a CPU of its own and there "
                                       "are {}; at most --jobs {}",
                                       cfg.fuzz.jobs, cpus, cpus));
    }
    if (!cfg.lock_given) cfg.locks = select_locks("all", &error);  // every correct lock
    if (cfg.locks.empty()) return usage_error(error);
    // (CLI11's range check lets NaN through: every comparison with it is false.)
    if (!std::isfinite(cfg.fuzz.explore_share) || cfg.fuzz.explore_share < 0 ||
        cfg.fuzz.explore_share > 1)
      return usage_error(fmt::format("fuzz --explore-share {}: want a share from 0 to 1",
                                     cfg.fuzz.explore_share));
    if (raw.fuzz->count("--explore-share") > 0 && cfg.fuzz.explore_share > 0 &&
        std::none_of(cfg.locks.begin(), cfg.locks.end(),
                     [](const LockMeta* m) { return bool(entry_of(*m).explore); }))
      return usage_error(fmt::format("fuzz --explore-share {}: none of the selected locks can be "
                                     "explored (library locks and plugins without scheduling "
                                     "points), so every trial would be a timed one",
                                     cfg.fuzz.explore_share));
    auto t = parse_duration(raw.fuzz_time, &error, std::chrono::seconds(1));
    if (!t) return usage_error("fuzz --time: " + error);
    cfg.fuzz.time = *t;
    auto trial = parse_duration(raw.fuzz_trial_time, &error, std::chrono::milliseconds(50));
    if (!trial) return usage_error("fuzz --trial-time: " + error);
    cfg.fuzz.trial_time = *trial;
    if (!raw.fuzz_shard.empty()) {
      if (!parse_shard(raw.fuzz_shard, &cfg.fuzz.shard_index, &cfg.fuzz.shard_count))
        return usage_error("fuzz --shard " + raw.fuzz_shard + ": want i/N with 0 <= i < N, like 0/4");
    }
    if (raw.fuzz_shrink_time == "0") {
      cfg.fuzz.shrink_time = std::chrono::nanoseconds::zero();
    } else {
      auto shrink = parse_duration(raw.fuzz_shrink_time, &error, std::chrono::seconds(1));
      if (!shrink) return usage_error("fuzz --shrink-time: " + error);
      cfg.fuzz.shrink_time = *shrink;
    }
    if (!raw.fuzz_memory.empty()) {
      auto bytes = parse_size(raw.fuzz_memory);
      if (!bytes || *bytes < (16u << 20))
        return usage_error("fuzz --trial-memory " + raw.fuzz_memory +
                           ": want a size of at least 16M, like 512M or 2G");
      cfg.fuzz.trial_memory = *bytes;
    }
    if (!raw.fuzz_cpu.empty()) {
      auto cpu = parse_duration(raw.fuzz_cpu, &error, std::chrono::seconds(1));
      if (!cpu) return usage_error("fuzz --trial-cpu: " + error);
      cfg.fuzz.trial_cpu = std::uint64_t(std::chrono::ceil<std::chrono::seconds>(*cpu).count());
    }
    if (!cfg.fuzz.resume.empty()) cfg.fuzz.out_dir = cfg.fuzz.resume;
    cfg.fuzz.argv = args;
  }
  out.action = raw.sweep->parsed()      ? CliAction::kSweep
               : raw.explore->parsed()  ? CliAction::kExplore
               : raw.suite->parsed()    ? CliAction::kSuite
               : raw.validate->parsed() ? CliAction::kValidate
               : raw.fuzz->parsed()     ? CliAction::kFuzz
                                        : CliAction::kRun;
  out.config = std::move(cfg);
  return out;
}

}  // namespace rwstress
