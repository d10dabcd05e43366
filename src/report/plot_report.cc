// --plot: SVG and PNG through gnuplot. The data and the gnuplot script are
// written next to the images (PREFIX-NAME.dat, .gp), so a plot can be
// redrawn or restyled without running again. Without gnuplot, the data is
// still written and one note says the images were skipped.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <fstream>

#include <fmt/format.h>

#include "report/report.h"
#include "report/reporter.h"

extern char** environ;

namespace rwstress {

std::string find_gnuplot() {
  // RWSTRESS_GNUPLOT names the program (tests point it at a missing file).
  if (const char* forced = std::getenv("RWSTRESS_GNUPLOT"))
    return access(forced, X_OK) == 0 ? forced : "";
  const char* path = std::getenv("PATH");
  for (const std::string& dir : split_list(path ? path : "/usr/bin:/bin", ':')) {
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/gnuplot";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

namespace {

// A gnuplot single-quoted string: no backquote command substitution and no
// escapes inside, and a quote is written twice. (In double quotes, a title
// or a --plot prefix holding `cmd` would run cmd.)
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// Runs `gnuplot script` without a shell; "" or why it failed.
std::string run_gnuplot(const std::string& gnuplot, const std::string& script) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::string arg0 = "gnuplot";
  char* argv[] = {arg0.data(), const_cast<char*>(script.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return fmt::format("could not start {}", gnuplot);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return fmt::format("gnuplot failed on {}", script);
  return "";
}

}  // namespace

void PlotOutput::append(PlotOutput more) {
  lines.insert(lines.end(), more.lines.begin(), more.lines.end());
  errors.insert(errors.end(), more.errors.begin(), more.errors.end());
}

PlotOutput write_plot(const std::string& base, const PlotSpec& spec) {
  PlotOutput out;
  std::string dat;
  for (const PlotSeries& s : spec.series) {
    dat += "# " + s.name + "\n";
    for (const auto& [x, y] : s.points) dat += fmt::format("{:.9g} {:.9g}\n", x, y);
    dat += "\n\n";  // gnuplot: next index
  }
  if (std::string err = write_chosen_file(base + ".dat", dat); !err.empty())
    return {{}, {"--plot: " + err}};
  std::string plot = "plot ";
  for (size_t i = 0; i < spec.series.size(); ++i) {
    const PlotSeries& s = spec.series[i];
    if (i) plot += ", \\\n     ";
    plot += fmt::format("{} index {} using 1:2 with {} title {}", quoted(base + ".dat"), i,
                        s.style.empty() ? "linespoints" : s.style, quoted(s.name));
  }
  std::string body = fmt::format(
      "set title {}\nset xlabel {}\nset ylabel {}\nset key outside right\nset grid\n{}{}{}\n",
      quoted(spec.title), quoted(spec.xlabel), quoted(spec.ylabel),
      spec.logscale_x ? "set logscale x 2\n" : "", spec.logscale_y ? "set logscale y 10\n" : "",
      spec.extra);
  // The script kept beside the images names them; gnuplot itself is run on
  // a copy that draws into a private directory, and the images reach their
  // names through write_chosen_file like every name rwstress picks
  // (gnuplot's own fopen would follow a planted link and truncate what it
  // points at; a link at PREFIX.svg is replaced, not written through).
  auto script_for = [&](const std::string& svg, const std::string& png) {
    return body + fmt::format("set terminal svg size 960,540 dynamic\nset output {}\n{}\n",
                              quoted(svg), plot) +
           fmt::format("set terminal pngcairo size 960,540\nset output {}\n{}\nset output\n",
                       quoted(png), plot);
  };
  if (std::string err = write_chosen_file(base + ".gp", script_for(base + ".svg", base + ".png"));
      !err.empty())
    return {{}, {"--plot: " + err}};
  std::string gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    out.lines.push_back(fmt::format("note: gnuplot is not installed: {}.svg/.png skipped; the data is in "
                              "{}.dat and the script in {}.gp",
                              base, base, base));
    return out;
  }
  const char* tmp_root = std::getenv("TMPDIR");
  std::string scratch = std::string(tmp_root && *tmp_root ? tmp_root : "/tmp") + "/rwstress-plot.XXXXXX";
  if (!mkdtemp(scratch.data())) {
    out.lines.push_back(fmt::format("rwstress: warning: --plot: cannot make a directory for gnuplot: {}",
                                    std::strerror(errno)));
    return out;
  }
  const std::string svg = scratch + "/plot.svg", png = scratch + "/plot.png", gp = scratch + "/plot.gp";
  std::string err = write_chosen_file(gp, script_for(svg, png));
  if (err.empty()) err = run_gnuplot(gnuplot, gp);
  for (const auto& [drawn, wanted] : {std::pair{svg, base + ".svg"}, std::pair{png, base + ".png"}}) {
    std::ifstream in(drawn, std::ios::binary);
    std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (err.empty() && ((!in.good() && !in.eof()) || image.empty())) err = "gnuplot wrote no image";
    if (err.empty())
      if (std::string werr = write_chosen_file(wanted, image); !werr.empty())
        out.errors.push_back("--plot: " + werr);
    unlink(drawn.c_str());
  }
  unlink(gp.c_str());
  rmdir(scratch.c_str());
  if (!err.empty())
    out.lines.push_back(fmt::format("rwstress: warning: --plot: {}", err));
  else if (out.errors.empty())
    out.lines.push_back(fmt::format("plot written to {}.svg and {}.png", base, base));
  return out;
}

PlotOutput write_histogram_plots(const Report& report, const std::string& prefix) {
  PlotOutput out;
  for (bool hold : {true, false}) {
    std::vector<HistColumn> cols = histogram_columns(report.runs, hold);
    if (cols.empty()) continue;
    PlotSpec spec;
    const bool log2 = cols.front().hist->spec.mode == HistSpec::Mode::kLog2;
    spec.title = fmt::format("{} time histogram", hold ? "hold" : "wait");
    spec.xlabel = log2 ? "time (ns, bucket upper bound, log2 buckets)" : "time (ns, bucket start)";
    spec.ylabel = "acquisitions";
    spec.logscale_x = log2;
    spec.logscale_y = true;
    for (const HistColumn& c : cols) {
      PlotSeries s;
      s.name = c.name;
      s.style = "steps";
      for (size_t i = 0; i < c.hist->counts.size(); ++i)
        if (c.hist->counts[i])
          s.points.emplace_back(double(log2 ? c.hist->upper_ns(i) : c.hist->lower_ns(i)),
                                double(c.hist->counts[i]));
      spec.series.push_back(std::move(s));
    }
    out.append(write_plot(prefix + (hold ? "-hold" : "-wait"), spec));
  }
  return out;
}

}  // namespace rwstress

namespace rwstress {

namespace {

class HistogramPlotReporter : public Reporter {
 public:
  explicit HistogramPlotReporter(std::string prefix) : prefix_(std::move(prefix)) {}
  void add(const Report&, const RunResult&) override {}  // the session keeps the runs
  void finish(const Report& report, const PrintFn& print) override {
    PlotOutput out = write_histogram_plots(report, prefix_);
    for (const std::string& line : out.lines) print(line);
    errors_.insert(errors_.end(), out.errors.begin(), out.errors.end());
    if (out.lines.empty() && out.errors.empty() && report.kind == "run")
      print("note: --plot: a run plots its --hist histograms, and there are none; throughput "
            "per CPU count comes from rwstress sweep");
  }

 private:
  std::string prefix_;
};

}  // namespace

std::unique_ptr<Reporter> histogram_plot_reporter(const std::string& prefix) {
  return std::make_unique<HistogramPlotReporter>(prefix);
}

}  // namespace rwstress
