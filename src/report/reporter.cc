#include "report/reporter.h"

namespace rwstress {

std::vector<std::unique_ptr<Reporter>> make_reporters(const RunConfig& c, const PrintFn& print) {
  std::vector<std::unique_ptr<Reporter>> out;
  if (!c.json_path.empty()) out.push_back(json_reporter(c.json_path));
  if (!c.csv_path.empty()) out.push_back(csv_reporter(c.csv_path));
  if (!c.junit_path.empty()) out.push_back(junit_reporter(c.junit_path));
  if (!c.plot_prefix.empty()) out.push_back(histogram_plot_reporter(c.plot_prefix));
  out.push_back(console_reporter(print));
  return out;
}

}  // namespace rwstress
