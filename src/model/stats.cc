#include "model/stats.h"

#include <algorithm>

namespace rwstress {

double jain_index(const std::vector<std::uint64_t>& values) {
  if (values.empty()) return -1;
  double sum = 0, sum_sq = 0;
  for (std::uint64_t v : values) {
    sum += double(v);
    sum_sq += double(v) * double(v);
  }
  if (sum_sq == 0) return 1;
  return sum * sum / (double(values.size()) * sum_sq);
}

int distinct_cpus(const std::vector<int>& cpus) {
  std::vector<int> d(cpus);
  std::sort(d.begin(), d.end());
  return int(std::unique(d.begin(), d.end()) - d.begin());
}

double idle_share(double busy_s, double duration_s, int cpus) {
  if (duration_s <= 0 || cpus <= 0) return 0;
  return std::clamp(1.0 - busy_s / (duration_s * cpus), 0.0, 1.0);
}

}  // namespace rwstress
