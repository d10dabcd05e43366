// Everything a report needs: the effective configuration, the host, the
// placement plan and the results. Reporters only format it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/run_config.h"
#include "model/run_result.h"
#include "platform/topology.h"

namespace rwstress {

struct Report {
  std::string kind = "run";  // "run", "sweep", "suite rwsem-test", "suite bkl"
  RunConfig config;
  std::string host_summary;  // topology summary
  int host_cpus = 0;         // CPUs this process may use
  PlacementPlan plan;
  // Every run, where something after the last one needs them (a sweep's or
  // a suite's tables, --lockstat, --hist, --plot); a plain run's session
  // streams each run to its files and keeps only the counts below.
  std::vector<RunResult> runs;
  std::size_t run_count = 0;           // runs reported, kept or not
  Verdict verdict_so_far = Verdict::kPass;  // the worst of them
  int interrupted_by = 0;  // the signal that cut the session short, or 0

  void count(const RunResult& r) {  // kept or not: the session decides (SessionReport)
    ++run_count;
    verdict_so_far = worse(verdict_so_far, r.verdict);
  }
  // True once the session has ended on its own or by a signal, its every
  // report finished; until then a file holds a snapshot, not a verdict.
  bool complete = false;

  // The worst run's verdict; a session cut short by a signal before any
  // run failed is INTERRUPTED, never PASS.
  Verdict overall() const {
    Verdict v = verdict_so_far;
    for (const auto& r : runs) v = worse(v, r.verdict);
    if (interrupted_by != 0) v = worse(v, Verdict::kInterrupted);
    return v;
  }
};

// console_report.cc
// One run as an object of --json's "runs" array, and back (every field the
// reports read): how a child process hands its RunResult to its parent.
std::string run_to_json_text(const RunResult& r);
std::string run_from_json_text(std::string_view text, RunResult& out);  // "" or what is wrong

std::string run_shape(const RunResult& r);  // "4R+2W", "3T", "4T/c2"
std::string human_rate(double per_s);       // "10.14M"
std::string console_header();
std::string console_row(const RunResult& r);
// verbose: per-thread lines; system: the 2000 BKL report figures (--rusage).
std::vector<std::string> console_details(const RunResult& r, bool verbose, bool system = false);
std::string console_system_line(const RunResult& r);
std::string console_final_line(const Report& report);
std::string console_lock_list(const std::vector<const LockMeta*>& locks);  // rwstress list

// lockstat_report.cc: --lockstat and --hist.
std::string lockmeter_time(double ns);         // "2.2us", "43ms", "1167us"
std::string lockmeter_percent(double fraction);  // "13.7%", "0.33%", "0%"
// the 2002 lockmeter report's columns for one role over a run of `duration_s` on `cpus` CPUs.
struct LockmeterRow {
  double util = 0;  // hold time / wall time (reads may sum past 100%)
  double con = 0;   // not acquired at once: waited or rejected, / requests
  double hold_mean_ns = 0, hold_max_ns = 0;
  double wait_mean_ns = 0, wait_max_ns = 0;
  double wait_cpu = 0;  // wait time / (wall time x CPUs)
  std::uint64_t total = 0;  // requests, failed trylocks included
  double nowait = 0, spin = 0, reject = 0;  // shares of `total`; they sum to 1
};
LockmeterRow lockmeter_row(const RoleStat& s, double duration_s, int cpus);
std::vector<std::string> lockstat_table(const std::vector<RunResult>& runs);
// One column per run and role that has samples ("xadd write").
struct HistColumn {
  std::string name;
  const Histogram* hist;
};
std::vector<HistColumn> histogram_columns(const std::vector<RunResult>& runs, bool hold);
// Side by side when several; `overhead_ns` is the clock cost subtracted.
std::vector<std::string> histogram_text(const std::vector<RunResult>& runs, bool hold,
                                        double overhead_ns);

// report_file.cc: a growing, unnamed temporary file: one format's text of
// every run so far, so that a session of any length keeps none of it in
// memory and pays a constant cost per run to record it.
class Spool {
 public:
  Spool();
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;
  std::string append(std::string_view text);  // "" or why not
  // Writes everything appended so far to fd; "" or why not.
  std::string copy_to(int fd, const std::string& shown) const;

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string error_;
};

// A report file's text in pieces, written in order.
using ReportPiece = std::variant<std::string, const Spool*>;

// The one way rwstress writes a file (reports, plots, fuzz summaries,
// reproducers): PATH atomically (a mkstemp temporary beside it, then a
// rename), so a planted name is never followed and a reader sees the old
// file or the whole new one; devices, FIFOs and symlinks in place (a FIFO
// with no reader is an error, not a wait). `mode` as for open(2), less the
// umask. Returns "" or why it failed.
std::string write_report_file(const std::string& path, const std::string& text,
                              mode_t mode = 0666);
std::string write_report_file(const std::string& path, const std::vector<ReportPiece>& pieces,
                              mode_t mode = 0666);
// The same for a name rwstress chose itself inside a directory (a fuzz
// campaign's repro-ID.sh, a plot's PREFIX.svg, a cache entry): whatever
// is at the name — a link planted in a shared directory, a device — is
// replaced by the rename, never written through.
std::string write_chosen_file(const std::string& path, const std::string& text, mode_t mode = 0666);
// Whether PATH could be written by write_report_file, without writing it:
// "" or why not (checked before anything runs).
std::string check_report_path(const std::string& path);
// What PATH names, after every symlink is followed (a link to a file not
// yet made names that file): "inode DEV:INO" for a file that exists, else
// the resolved absolute path. Two outputs collide when these are equal.
std::string file_identity(const std::string& path);
// PATH absolute, with every symlink followed (as file_identity does).
std::string resolved_path(const std::string& path);

// csv_report.cc: --csv, one row per run. The text is csv_head() and one
// csv_row() per run, so that a session can write rows as runs end.
std::string csv_field(const std::string& s);  // quoted where it must be
std::string csv_head();
std::string csv_row(const RunResult& r);
std::string csv_report_text(const Report& report);

// junit_report.cc: --junit. The text is junit_head() (which needs the
// totals), one junit_case() per run, and junit_tail().
std::string xml_escape(const std::string& s);
struct JunitTotals {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double time = 0;
  void add(const RunResult& r);
  void add_session(const Report& report);  // junit_session_case's, if there is one
};
std::string junit_head(const Report& report, const JunitTotals& totals);
std::string junit_case(const Report& report, const RunResult& r);
// A session that is not complete (the placeholder) or was interrupted is an
// error test case of its own, "session"; "" otherwise.
std::string junit_session_case(const Report& report);
std::string junit_tail();
std::string junit_report_text(const Report& report);

// plot_report.cc: --plot, through gnuplot where installed.
struct PlotSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
  std::string style;  // gnuplot "with": linespoints (default), steps, lines dashtype 2
};
struct PlotSpec {
  std::string title, xlabel, ylabel;
  bool logscale_x = false, logscale_y = false;
  std::string extra;  // more gnuplot settings
  std::vector<PlotSeries> series;
};
std::string find_gnuplot();  // "" when not installed
// What writing plots produced: lines for the user (what was written, or a
// note or warning why an image was skipped) and errors (a file that could
// not be written: "--plot: cannot write ...", for standard error and exit 2).
struct PlotOutput {
  std::vector<std::string> lines;
  std::vector<std::string> errors;
  void append(PlotOutput more);
};
// Writes BASE.dat and BASE.gp, then BASE.svg and BASE.png through gnuplot.
PlotOutput write_plot(const std::string& base, const PlotSpec& spec);
PlotOutput write_histogram_plots(const Report& report, const std::string& prefix);

// json_report.cc: schema 1, docs/json-schema.md. The text is json_head()
// (everything up to the runs), one json_run() per run (`first` for the
// first), and json_tail() (the verdict so far and whether the session was
// interrupted).
inline constexpr int kJsonSchemaVersion = 1;
std::string json_head(const Report& report);
std::string json_run(const RunResult& r, bool first);
std::string json_tail(const Report& report, bool any_runs);
std::string json_report_text(const Report& report);

}  // namespace rwstress
