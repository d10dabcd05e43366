// Runs in a child process: selftest's and validate's scenarios, and a
// session's runs of plugin locks.
#pragma once

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "model/run_result.h"
#include "platform/child_process.h"

namespace rwstress {

// What a run comes to when its child process gave no result: HANG when it
// was killed for saying nothing in time, CRASH when it died by a signal or
// exited (a lock that calls exit() has ended the run as surely as a
// SIGSEGV). The main run, validate and selftest judge alike.
inline Verdict lost_child_verdict(const ChildEnd& end) {
  return end.timed_out ? Verdict::kHang : Verdict::kCrash;
}

// selftest's and validate's scenario in a child: its verdict and figures.
// A child that dies by a signal is a CRASH, one that says nothing within
// `limit` a HANG.
struct IsolatedOutcome {
  Verdict verdict = Verdict::kCrash;
  double seconds = 0;
  double others_share = -1;  // RunResult's: other programs' share of the CPUs
  double ops_per_s = 0;      // RunResult's, where the child got that far
  double jain = -1;          // the lower of the readers' and writers' Jain index, -1: none
  char found[160] = {};      // what_was_found() of the run, cut to fit
  void set_found(const std::string& text) {
    std::snprintf(found, sizeof found, "%s", text.c_str());
  }
};

// What a run found, for a one-line row: its violation kinds, and a hang
// beside a FAIL ("[writer-exclusion,torn-record] + HANG"); "" for a PASS.
inline std::string what_was_found(const RunResult& r) {
  std::string kinds;
  for (int k = 0; k < kViolationKindCount; ++k)
    if (r.violations_by_kind[k] > 0)
      kinds += (kinds.empty() ? "[" : ",") + std::string(violation_kind_name(ViolationKind(k)));
  if (!kinds.empty()) kinds += "]";
  if (r.verdict == Verdict::kFail && !r.hang_report.empty()) kinds += " + HANG";
  if (!r.error.empty()) kinds += (kinds.empty() ? "" : " ") + r.error;
  return kinds;
}

template <class Fn>
IsolatedOutcome run_isolated(Fn fn, std::chrono::seconds limit) {
  const ChildEnd end = run_in_child(
      [&] {
        const IsolatedOutcome mine = fn();
        return std::string(reinterpret_cast<const char*>(&mine), sizeof mine);
      },
      limit);
  IsolatedOutcome out;
  if (!end.forked) return out;  // CRASH: it could not run at all
  if (end.answered && end.text.size() == sizeof out) {
    std::memcpy(&out, end.text.data(), sizeof out);
    return out;
  }
  out.verdict = lost_child_verdict(end);
  out.seconds = end.seconds;
  return out;
}

}  // namespace rwstress
