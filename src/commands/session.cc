#include "commands/session.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "platform/interrupt.h"
#include "platform/printable.h"
#include "registry/registry.h"
#include "run/run_driver.h"

namespace rwstress {

std::uint64_t repeat_seed(std::uint64_t seed, int i) {
  // The same splitmix64 derivation as a worker's stream: repeats differ,
  // and each is replayable.
  return i == 0 ? seed : thread_seed(seed, i);
}

SessionReport::SessionReport(const RunConfig& cfg, const Topology& topology, std::string kind)
    : topology_(topology),
      keep_runs_(kind != "run" || cfg.measure.any() || !cfg.plot_prefix.empty()) {
  report.kind = std::move(kind);
  report.config = cfg;
  report.host_summary = topology.summary();
  report.host_cpus = topology.allowed_cpu_count();
}

namespace {

// A device, a pipe or a terminal (--json /dev/stdout) takes one document, at
// the end: rewriting it after every run would write it many times over.
bool is_stream(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

}  // namespace

std::vector<ReportPiece> SessionReport::json_pieces() const {
  return {json_head(report), &json_runs_, json_tail(report, report.run_count > 0)};
}

std::string SessionReport::open() {
  const RunConfig& c = report.config;
  // Each requested file starts as a valid document with no runs (an empty
  // JUnit file is not XML): a session killed before its first run still
  // leaves files that parse.
  struct File {
    const char* flag;
    const std::string& path;
    std::vector<ReportPiece> empty;
  };
  const File files[] = {{"--json", c.json_path, json_pieces()},
                        {"--csv", c.csv_path, {csv_head()}},
                        {"--junit", c.junit_path, {junit_head(report, {}), junit_tail()}}};
  for (const File& f : files) {
    if (f.path.empty()) continue;
    std::string err;
    if (is_stream(f.path))
      err = access(f.path.c_str(), W_OK) == 0 ? "" : fmt::format("cannot write '{}'", f.path);
    else
      err = write_report_file(f.path, f.empty);
    if (!err.empty()) return fmt::format("{}: {}", f.flag, err);
  }
  last_json_write_ = std::chrono::steady_clock::now();
  return "";
}

// One run's JSON object, CSV row and JUnit case go to their spools now;
// the run itself is kept only if something at the end needs it.
void SessionReport::record(RunResult r) {
  const RunConfig& c = report.config;
  auto spool = [&](const char* flag, Spool& to, const std::string& text) {
    if (std::string err = to.append(text); !err.empty())
      write_errors_.push_back(fmt::format("{}: {}", flag, err));
  };
  if (!c.json_path.empty()) spool("--json", json_runs_, json_run(r, report.run_count == 0));
  if (!c.csv_path.empty()) spool("--csv", csv_rows_, csv_row(r));
  if (!c.junit_path.empty()) {
    spool("--junit", junit_cases_, junit_case(report, r));
    junit_totals_.add(r);
  }
  report.add(std::move(r), keep_runs_);
}

std::string SessionReport::run(const RunConfig& cfg, const SessionPoint& point,
                               const PrintFn& print) {
  for (const LockEntry* entry : cfg.locks) {
    for (int rep = 0; rep < cfg.repeat; ++rep) {
      if (interrupt_signal() != 0) {
        report.interrupted_by = interrupt_signal();
        stopped_ = true;
        return "";
      }
      Scenario sc = cfg.scenario_for(entry->meta);
      sc.seed = repeat_seed(cfg.seed, rep);
      sc.plan = topology_.plan(sc.threads(), point.cpus);
      sc.topology = &topology_;
      const bool instrumented = sc.injection != nullptr || sc.measure.any();
      RunResult r = (instrumented ? entry->run_instrumented : entry->run)(sc, entry->meta);
      if (!r.error.empty()) return r.error;
      r.scenario_key = scenario_key(cfg, sc, r);
      r.label = point.label;
      r.seed = sc.seed;
      r.repeat = rep;
      r.placement = placement_name(cfg.placement);
      r.sweep_cpus = point.sweep_cpus;
      r.oversubscribed = point.oversubscribed;
      if (int sig = interrupt_signal()) {
        r.interrupted = true;
        report.interrupted_by = sig;
        r.notes.push_back(fmt::format("interrupted by {} after {:.2f}s of {}",
                                      interrupt_signal_name(sig), r.duration_s,
                                      format_duration(sc.duration)));
      }
      std::string row = console_row(r);
      if (cfg.repeat > 1) row += fmt::format("  #{}", rep + 1);
      print(row);
      for (const auto& line : console_details(r, cfg.verbose, cfg.rusage)) print(line);
      any_hang_ |= r.verdict == Verdict::kHang;
      const bool stop = r.interrupted || (cfg.fail_fast && r.verdict != Verdict::kPass);
      record(std::move(r));
      keep_json_current();
      if (stop) {
        stopped_ = true;
        return "";
      }
    }
  }
  return "";
}

// Rewriting the whole document (a copy of the spool between its head and
// tail) costs O(runs) in time, never in memory, so with --repeat 1000 a
// rewrite after every run would be O(n^2). It is rewritten when the last
// rewrite is older than a second, or four times as old as that rewrite
// took, which bounds its share of the wall time to about a fifth; finish()
// writes the last state. A kill -9 loses at most the runs of the last
// second or so.
void SessionReport::keep_json_current() {
  const std::string& path = report.config.json_path;
  if (path.empty() || is_stream(path)) return;
  using namespace std::chrono;
  const auto now = steady_clock::now();
  if (now - last_json_write_ < std::max<steady_clock::duration>(seconds(1), json_write_cost_ * 4))
    return;
  std::string err = write_report_file(path, json_pieces());
  const auto done = steady_clock::now();
  json_write_cost_ = done - now;
  last_json_write_ = done;
  if (!err.empty()) write_errors_.push_back("--json: " + err);
}

int SessionReport::finish(const PrintFn& print) {
  if (report.interrupted_by == 0 && interrupt_signal() != 0) report.interrupted_by = interrupt_signal();
  const std::string& json = report.config.json_path;
  if (!json.empty()) {
    std::string err = write_report_file(json, json_pieces());
    if (!err.empty()) write_errors_.push_back("--json: " + err);
  }
  for (std::string& err : write_extra_reports(print)) write_errors_.push_back(std::move(err));
  std::string last = console_final_line(report);
  if (report.interrupted_by)
    last += fmt::format(" (interrupted by {}: {} run{} reported)",
                        interrupt_signal_name(report.interrupted_by), report.run_count,
                        report.run_count == 1 ? "" : "s");
  print(last);
  // Results that did not reach a file, or the terminal, are lost: that is
  // an error exit, never a quiet 0.
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    write_errors_.push_back(fmt::format("cannot write the results to standard output: {}",
                                        std::strerror(errno ? errno : EIO)));
  int code = exit_code_of(report.overall());
  std::sort(write_errors_.begin(), write_errors_.end());
  write_errors_.erase(std::unique(write_errors_.begin(), write_errors_.end()), write_errors_.end());
  for (const std::string& err : write_errors_) {
    std::fprintf(stderr, "rwstress: error: %s\n", printable(err).c_str());
    code = std::max(code, kWriteErrorExit);
  }
  if (report.interrupted_by) code = 128 + report.interrupted_by;
  if (any_hang_) _exit(code);
  return code;
}

std::vector<std::string> SessionReport::write_extra_reports(const PrintFn& print) const {
  const RunConfig& c = report.config;
  std::vector<std::string> errors;
  auto file = [&](const std::string& what, const std::string& flag, const std::string& path,
                  const std::vector<ReportPiece>& pieces) {
    if (path.empty()) return;
    std::string err = write_report_file(path, pieces);
    if (err.empty())
      print(fmt::format("{} written to {}", what, path));
    else
      errors.push_back(fmt::format("{}: {}", flag, err));
  };
  file("CSV", "--csv", c.csv_path, {csv_head(), &csv_rows_});
  file("JUnit XML", "--junit", c.junit_path,
       {junit_head(report, junit_totals_), &junit_cases_, junit_tail()});
  if (!c.plot_prefix.empty()) {
    const auto lines = write_histogram_plots(report, c.plot_prefix);
    for (const std::string& line : lines) {
      if (line.rfind("rwstress: error: ", 0) == 0)
        errors.push_back(line.substr(17));
      else
        print(line);
    }
    if (lines.empty() && report.kind == "run")
      print("note: --plot: a run plots its --hist histograms, and there are none; throughput "
            "per CPU count comes from rwstress sweep");
  }
  return errors;
}

}  // namespace rwstress
