// Where a session's results go: the console, or one file format. The
// session (commands/session.cc) calls open() before the first run, add()
// as each run ends and finish() after the last, on every reporter the
// configuration asks for (make_reporters), and formats nothing itself.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "report/report.h"

namespace rwstress {

// A line of results, for standard output.
using PrintFn = std::function<void(const std::string&)>;

// Where a command's text goes: result lines to `print` (standard output),
// errors to `error` (one line each, on standard error, where "rwstress:
// error: " is put in front).
struct Output {
  PrintFn print;
  PrintFn error;
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  // Before any run: "" or why the output cannot be written (a usage error:
  // exit 2 before anything runs). A file starts as a valid document with
  // no runs, so a session killed before its first run leaves one that
  // parses.
  virtual std::string open(const Report&) { return ""; }
  // Run `r` has ended; it is not yet counted in `report`.
  virtual void add(const Report& report, const RunResult& r) = 0;
  // After the last run (or an interrupt): the rest of the output. Lines for
  // the user go to `print`.
  virtual void finish(const Report&, const PrintFn&) {}
  // What could not be written, each as one line ("--csv: cannot write
  // 'x': No space left on device"); the session reports them and exits 2.
  std::vector<std::string> take_errors() { return std::move(errors_); }

 protected:
  std::vector<std::string> errors_;
};

// The console: one row per run (and its detail lines), then the final
// line with the replay command and the verdict.
std::unique_ptr<Reporter> console_reporter(const PrintFn& print);
// --json: rewritten from its spool about once a second and at the end.
std::unique_ptr<Reporter> json_reporter(const std::string& path);
// --csv and --junit: written at the end from their spools.
std::unique_ptr<Reporter> csv_reporter(const std::string& path);
std::unique_ptr<Reporter> junit_reporter(const std::string& path);
// --plot: a run's --hist histograms, at the end.
std::unique_ptr<Reporter> histogram_plot_reporter(const std::string& prefix);

// Every reporter `config` asks for, the console last (its final line closes
// the output).
std::vector<std::unique_ptr<Reporter>> make_reporters(const RunConfig& config,
                                                      const PrintFn& print);

// A device, a pipe or a terminal (--json /dev/stdout) takes one document, at
// the end: rewriting it during the session would write it many times over.
bool is_stream(const std::string& path);

// A file reporter's open(): the path must be writable (check_report_path);
// a file not there yet gets `empty` (a valid document that says it is not
// complete), and one that is there is left as it is until the first write
// with runs in it. "" or why not, prefixed with `flag`.
std::string open_report_file(const char* flag, const std::string& path,
                             const std::vector<ReportPiece>& empty);

}  // namespace rwstress
