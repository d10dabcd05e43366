#include "model/run_result.h"

namespace rwstress {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "PASS";
    case Verdict::kInterrupted: return "INTERRUPTED";
    case Verdict::kStarved: return "STARVED";
    case Verdict::kFail: return "FAIL";
    case Verdict::kHang: return "HANG";
    case Verdict::kCrash: return "CRASH";
  }
  return "?";
}

int exit_code_of(Verdict v) {
  switch (v) {
    case Verdict::kPass: return 0;
    case Verdict::kInterrupted: return 128 + 2;  // SIGINT's; a session exits 128 + its own signal
    case Verdict::kFail: return 1;
    case Verdict::kHang: return 3;
    case Verdict::kCrash: return 4;
    case Verdict::kStarved: return 5;
  }
  return 1;
}

Verdict worse(Verdict a, Verdict b) { return int(a) >= int(b) ? a : b; }

std::string violation_source(int thread) {
  if (thread == kProbeThread) return "semantics probe";
  if (thread == kAfterRunThread) return "after-run check";
  return "thread " + std::to_string(thread);
}

const char* role_name(Role r) {
  switch (r) {
    case Role::kReader: return "reader";
    case Role::kWriter: return "writer";
    case Role::kHolder: return "holder";
  }
  return "?";
}

const char* violation_kind_name(ViolationKind k) {
  switch (k) {
    case ViolationKind::kWriterExclusion: return "writer-exclusion";
    case ViolationKind::kReaderExclusion: return "reader-exclusion";
    case ViolationKind::kTornRecord: return "torn-record";
    case ViolationKind::kTrylockTruth: return "trylock-truth";
    case ViolationKind::kDowngrade: return "downgrade";
    case ViolationKind::kFinalState: return "final-state";
    case ViolationKind::kSemaphoreBound: return "semaphore-bound";
    case ViolationKind::kSemaphoreCount: return "semaphore-count";
    case ViolationKind::kLostWakeup: return "lost-wakeup";
    case ViolationKind::kLockWarning: return "lock-warning";
    case ViolationKind::kOrdering: return "ordering";
    case ViolationKind::kNotIdle: return "not-idle";
    case ViolationKind::kPreference: return "preference";
    case ViolationKind::kSpinBound: return "spin-bound";
    case ViolationKind::kHandoffStarved: return "handoff-starved";
    case ViolationKind::kLockOrder: return "lock-order";
    case ViolationKind::kAcquireLimit: return "acquire-limit";
  }
  return "?";
}

}  // namespace rwstress
