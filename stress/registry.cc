#include "stress/registry.h"

#include <algorithm>

#include "locks/rwlock/absl_rwmutex.h"
#include "locks/rwlock/busted_noop.h"
#include "locks/rwlock/pthread_rwlock.h"
#include "locks/rwlock/rwsem_aa.h"
#include "locks/rwlock/rwsem_spinlock.h"
#include "locks/rwlock/rwsem_xadd.h"
#include "locks/rwlock/std_shared_mutex.h"
#include "stress/rwlock_run.h"

namespace rwstress {

namespace {

template <class Lock>
constexpr LockEntry rwlock(std::string_view name, Fairness fairness, std::string_view origin,
                           bool busted = false) {
  return LockEntry{LockMeta{name, Family::kRwlock, fairness, origin, capabilities_of<Lock>(), busted},
                   &run_rwlock<Lock>};
}

// One line per implementation. docs/locks.md describes each.
constexpr LockEntry kLocks[] = {
    rwlock<RwsemAa<>>("aa-rwsem", Fairness::kTaskFair,
                      "Linux 2.4.4-pre3 + Andrea Arcangeli's generic rwsem (spinlock + count + "
                      "FIFO list)"),
    rwlock<RwsemXadd<>>("xadd", Fairness::kTaskFair,
                        "Linux 2.4.4-pre4 XADD rwsem, David Howells (i386 count layout)"),
    rwlock<RwsemXaddUnfair<>>("xadd-unfair", Fairness::kUnfair,
                              "xadd with the slightly-unfair wake: all queued readers granted "
                              "together (as Linux 3.10)"),
    rwlock<RwsemSpinlock<>>("generic-spin", Fairness::kTaskFair,
                            "Linux 2.4.4-pre4 lib/rwsem-spinlock.c, David Howells"),
    rwlock<PthreadRwlock>("pthread-rwlock", Fairness::kReaderPref,
                          "glibc pthread_rwlock_t, default attributes (prefer reader)"),
    rwlock<StdSharedMutex>("std-shared-mutex", Fairness::kReaderPref,
                           "libstdc++ std::shared_mutex (on pthread_rwlock_t)"),
    rwlock<AbslRwMutex>("absl-mutex-rw", Fairness::kWriterPref,
                        "abseil absl::Mutex, ReaderLock/Lock, deadlock detection off"),
    rwlock<BustedNoop>("busted-noop", Fairness::kUnfair,
                       "positive control: every operation does nothing (must FAIL)", true),
};

}  // namespace

std::span<const LockEntry> lock_registry() { return kLocks; }

const LockEntry* find_lock(std::string_view name) {
  for (const auto& e : kLocks)
    if (e.meta.name == name) return &e;
  return nullptr;
}

std::string valid_lock_names() {
  std::string names = std::string(kSelectAll) + ", rwlock, " + std::string(kSelectBusted);
  for (const auto& e : kLocks) names += ", " + std::string(e.meta.name);
  return names;
}

std::vector<const LockEntry*> select_locks(std::string_view spec, std::string* error) {
  std::vector<bool> chosen(std::size(kLocks), false);
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string_view name = spec.substr(pos, comma == std::string_view::npos ? spec.npos : comma - pos);
    bool matched = false;
    for (size_t i = 0; i < std::size(kLocks); ++i) {
      const LockMeta& m = kLocks[i].meta;
      bool hit = m.name == name || (name == kSelectAll && !m.busted) ||
                 (name == kSelectBusted && m.busted) || (name == family_name(m.family) && !m.busted);
      if (hit) chosen[i] = matched = true;
    }
    if (!matched) {
      *error = "unknown lock '" + std::string(name) + "'; valid names: " + valid_lock_names();
      return {};
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  std::vector<const LockEntry*> out;
  for (size_t i = 0; i < std::size(kLocks); ++i)
    if (chosen[i]) out.push_back(&kLocks[i]);
  return out;
}

}  // namespace rwstress
