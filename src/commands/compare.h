// rwstress compare A.json B.json: the 2009 AIM9 comparison's "with (stddev) without
// (stddev) %" table over repeated runs, with the significance column that
// table lacked (Welch's unequal-variance t-test, two-sided).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rwstress {

// Sample mean and standard deviation (n - 1 in the denominator).
struct Sample {
  std::vector<double> values;
  double mean() const;
  double stddev() const;  // 0 for fewer than two values
};

struct WelchResult {
  bool valid = false;  // false: fewer than two values on a side
  double t = 0;
  double df = 0;
  double p = 1;  // two-sided
};
WelchResult welch_test(const Sample& a, const Sample& b);

// One results file: per scenario key, per figure, the values of its runs.
struct CompareSide {
  std::string path;
  std::vector<std::string> order;  // scenario keys in file order
  std::map<std::string, std::vector<std::pair<std::string, Sample>>> figures;
  std::map<std::string, int> runs;  // runs per scenario key
  std::vector<std::string> left_out;  // "2 FAIL runs": runs not in the means, by verdict
  bool incomplete = false;  // "complete": false: the session never finished (killed mid-way)
};

// Reads a --json file. Returns "" or one line saying what is wrong.
// `ignore` names parts of the scenario key to leave out of the matching:
// "lock" (the implementation's name) or a knob ("xadd-wake", "inject",
// "handoff", "spin-limit", "cs", "delay", ...), for comparing a lock with
// and without a knob, or two implementations.
std::string load_compare_side(const std::string& path, CompareSide* out,
                              const std::vector<std::string>& ignore = {});


// The table: matched scenarios with each figure's line; then the scenarios
// only one side has. % = (A - B) / B, as the 2009 AIM9 comparison did.
std::vector<std::string> compare_table(const CompareSide& a, const CompareSide& b, double alpha);

}  // namespace rwstress
