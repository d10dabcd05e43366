// Everything a report needs: the effective configuration, the host, the
// placement plan and the results. Reporters only format it.
#pragma once

#include <string>
#include <vector>

#include "platform/topology.h"
#include "stress/run_config.h"
#include "stress/run_result.h"

namespace rwstress {

struct Report {
  RunConfig config;
  std::string host_summary;  // topology summary
  int host_cpus = 0;         // CPUs this process may use
  PlacementPlan plan;
  std::vector<RunResult> runs;

  Verdict overall() const {
    Verdict v = Verdict::kPass;
    for (const auto& r : runs) v = worse(v, r.verdict);
    return v;
  }
};

// console_report.cc
std::string console_header();
std::string console_row(const RunResult& r);
// verbose: per-thread lines; system: the seed-001 figures (--rusage).
std::vector<std::string> console_details(const RunResult& r, bool verbose, bool system = false);
std::string console_system_line(const RunResult& r);
std::string console_final_line(const Report& report);
std::string console_lock_list();

// json_report.cc: schema 1, docs/json-schema.md. Writes PATH atomically
// (temporary file, then rename). Returns "" or why it failed.
inline constexpr int kJsonSchemaVersion = 1;
std::string json_report_text(const Report& report);
std::string write_json_report(const Report& report, const std::string& path);

}  // namespace rwstress
