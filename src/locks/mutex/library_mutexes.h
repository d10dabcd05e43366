// Library references for the mutex family, each adapted to lock / unlock /
// trylock and nothing else: pthread_spinlock_t, pthread_mutex_t (default
// attributes: glibc's futex mutex with stealing), std::mutex, absl::Mutex.
#pragma once

#include <pthread.h>

#include <mutex>

#include <absl/synchronization/mutex.h>

namespace rwstress {

class PthreadSpinlock {
 public:
  static constexpr bool kSpins = true;
  PthreadSpinlock() { pthread_spin_init(&l_, PTHREAD_PROCESS_PRIVATE); }
  ~PthreadSpinlock() { pthread_spin_destroy(&l_); }
  PthreadSpinlock(const PthreadSpinlock&) = delete;
  PthreadSpinlock& operator=(const PthreadSpinlock&) = delete;

  void lock() noexcept { pthread_spin_lock(&l_); }
  bool trylock() noexcept { return pthread_spin_trylock(&l_) == 0; }
  void unlock() noexcept { pthread_spin_unlock(&l_); }

 private:
  pthread_spinlock_t l_;
};

class PthreadMutex {
 public:
  PthreadMutex() = default;
  ~PthreadMutex() { pthread_mutex_destroy(&m_); }
  PthreadMutex(const PthreadMutex&) = delete;
  PthreadMutex& operator=(const PthreadMutex&) = delete;

  void lock() noexcept { pthread_mutex_lock(&m_); }
  bool trylock() noexcept { return pthread_mutex_trylock(&m_) == 0; }
  void unlock() noexcept { pthread_mutex_unlock(&m_); }

 private:
  pthread_mutex_t m_ = PTHREAD_MUTEX_INITIALIZER;
};

class StdMutex {
 public:
  void lock() { m_.lock(); }
  bool trylock() { return m_.try_lock(); }
  void unlock() { m_.unlock(); }

 private:
  std::mutex m_;
};

// Debian's abseil has deadlock detection on: turned off, as for absl-mutex-rw.
class AbslMutex {
 public:
  AbslMutex() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }
  void lock() { m_.Lock(); }
  bool trylock() { return m_.TryLock(); }
  void unlock() { m_.Unlock(); }

 private:
  absl::Mutex m_;
};

}  // namespace rwstress
