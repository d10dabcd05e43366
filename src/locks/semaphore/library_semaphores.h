// Library references for the semaphore family: POSIX sem_t, C++20
// std::counting_semaphore, and a semaphore built on absl::Mutex with an
// absl::Condition (abseil has no counting semaphore of its own).
#pragma once

#include <semaphore.h>
#include <time.h>

#include <chrono>
#include <climits>
#include <semaphore>

#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

namespace rwstress {

class PosixSemaphore {
 public:
  explicit PosixSemaphore(int count) { sem_init(&s_, 0, unsigned(count)); }
  ~PosixSemaphore() { sem_destroy(&s_); }
  PosixSemaphore(const PosixSemaphore&) = delete;
  PosixSemaphore& operator=(const PosixSemaphore&) = delete;

  void down() {
    while (sem_wait(&s_) != 0) {
    }  // EINTR
  }
  bool down_trylock() { return sem_trywait(&s_) == 0; }
  bool down_timeout(std::chrono::nanoseconds limit) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long ns = ts.tv_nsec + limit.count();
    ts.tv_sec += time_t(ns / 1000000000);
    ts.tv_nsec = long(ns % 1000000000);
    return sem_clockwait(&s_, CLOCK_MONOTONIC, &ts) == 0;
  }
  void up() { sem_post(&s_); }

 private:
  sem_t s_;
};

class StdCountingSemaphore {
 public:
  explicit StdCountingSemaphore(int count) : s_(count) {}
  void down() { s_.acquire(); }
  bool down_trylock() { return s_.try_acquire(); }
  bool down_timeout(std::chrono::nanoseconds limit) { return s_.try_acquire_for(limit); }
  void up() { s_.release(); }

 private:
  std::counting_semaphore<INT_MAX> s_;
};

class AbslSemaphore {
 public:
  explicit AbslSemaphore(int count) : count_(count) {
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  }
  void down() {
    mu_.LockWhen(absl::Condition(this, &AbslSemaphore::available));
    --count_;
    mu_.Unlock();
  }
  bool down_trylock() {
    absl::MutexLock guard(&mu_);
    if (count_ <= 0) return false;
    --count_;
    return true;
  }
  bool down_timeout(std::chrono::nanoseconds limit) {
    bool got = mu_.LockWhenWithTimeout(absl::Condition(this, &AbslSemaphore::available),
                                       absl::FromChrono(limit));
    if (got) --count_;
    mu_.Unlock();
    return got;
  }
  void up() {
    absl::MutexLock guard(&mu_);
    ++count_;
  }

 private:
  bool available() const { return count_ > 0; }
  absl::Mutex mu_;
  int count_;
};

// A semaphore of count 1 used as a mutex: the 2000 BKL report's sleeping alternative
// to the big kernel lock.
template <class Semaphore>
class SemaphoreAsMutex {
 public:
  template <class H>
  using WithHooks = SemaphoreAsMutex<typename Semaphore::template WithHooks<H>>;
  SemaphoreAsMutex() : s_(1) {}
  void lock() { s_.down(); }
  bool trylock() { return s_.down_trylock(); }
  void unlock() { s_.up(); }

 private:
  Semaphore s_;
};

}  // namespace rwstress
