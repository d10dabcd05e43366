// absl-mutex-rw: absl::Mutex in reader/writer mode (ReaderLock / Lock).
//
// Reference lock. absl::Mutex spins briefly, then queues; a waiting writer
// sets a flag that makes new readers queue behind it, so writers are not
// starved, but a releasing holder does not hand off, so newcomers may
// overtake the queue. Fairness: writer-preference (approximate).
//
// Debian builds abseil with deadlock detection on, which makes every
// operation 3-4x slower; the constructor turns it off, for the process, so
// the numbers describe the lock and not its debugging aid.
#pragma once

#include <absl/synchronization/mutex.h>

namespace rwstress {

class AbslRwMutex {
 public:
  AbslRwMutex() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }

  void down_read() { m_.ReaderLock(); }
  void up_read() { m_.ReaderUnlock(); }
  void down_write() { m_.Lock(); }
  void up_write() { m_.Unlock(); }
  bool down_read_trylock() { return m_.ReaderTryLock(); }
  bool down_write_trylock() { return m_.TryLock(); }

 private:
  absl::Mutex m_;
};

}  // namespace rwstress
