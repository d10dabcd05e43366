// Test-only broken rwlocks: each breaks one rule a checker guards, so the
// checker tests can show that it fires. (The busted zoo proper lives in the
// registry; these are the minimal cases.)
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "locks/futex.h"
#include "locks/rwlock/rwsem_xadd.h"
#include "locks/rwlock/urcu_reference.h"
#include "locks/semaphore/kernel_semaphore.h"

namespace rwstress::test {

// Writers exclude each other; readers take nothing.
class ReadersIgnoreWriter {
 public:
  void down_read() {}
  void up_read() {}
  void down_write() { m_.lock(); }
  void up_write() { m_.unlock(); }

 private:
  std::mutex m_;
};

// A correct lock whose write trylock claims success without taking it.
class LyingWriteTrylock {
 public:
  void down_read() { x_.down_read(); }
  void up_read() { x_.up_read(); }
  void down_write() { x_.down_write(); }
  void up_write() {
    if (!fake_) x_.up_write();
    fake_ = false;
  }
  bool down_read_trylock() { return x_.down_read_trylock(); }
  bool down_write_trylock() {
    if (!x_.down_write_trylock()) fake_ = true;  // "success" regardless
    return true;
  }

 private:
  RwsemXadd<> x_;
  static inline thread_local bool fake_ = false;
};

// downgrade_write releases the lock entirely: a writer can get in.
class DowngradeReleases {
 public:
  void down_read() { m_.lock_shared(); }
  void up_read() {
    if (downgraded_)
      downgraded_ = false;
    else
      m_.unlock_shared();
  }
  void down_write() { m_.lock(); }
  void up_write() { m_.unlock(); }
  bool down_read_trylock() { return m_.try_lock_shared(); }
  bool down_write_trylock() { return m_.try_lock(); }
  void downgrade_write() {
    m_.unlock();
    downgraded_ = true;
  }

 private:
  std::shared_mutex m_;
  static inline thread_local bool downgraded_ = false;
};

// A correct lock that serialises readers: never two inside.
class SerialisingReaders {
 public:
  void down_read() { m_.lock(); }
  void up_read() { m_.unlock(); }
  void down_write() { m_.lock(); }
  void up_write() { m_.unlock(); }

 private:
  std::mutex m_;
};

// Correct until its kDeadlockAfter-th write acquisition, which takes the
// lock and then sleeps forever while holding it: a deadlock.
class DeadlocksAfterSomeWrites {
 public:
  static constexpr int kDeadlockAfter = 200;

  void down_read() { x_.down_read(); }
  void up_read() { x_.up_read(); }
  void down_write() {
    x_.down_write();
    if (writes_.fetch_add(1) + 1 == kDeadlockAfter)
      for (;;) futex_wait(never_, 0);
  }
  void up_write() { x_.up_write(); }

 private:
  RwsemXadd<> x_;
  std::atomic<int> writes_{0};
  std::atomic<std::uint32_t> never_{0};
};

// RCU whose writers skip the grace period: the old version is poisoned as
// soon as it is replaced, while readers may still be reading it. (It is
// kept, poisoned, rather than freed, so the test reads poison, not freed
// memory.)
class RcuWithoutGracePeriod {
 public:
  static constexpr bool kSnapshotReads = true;
  using Version = RcuVersion;

  RcuWithoutGracePeriod() : current_(new RcuVersion(0)) {}
  ~RcuWithoutGracePeriod() {
    delete current_.load();
    for (auto* v : graveyard_) delete v;
  }
  void down_read() {}
  void up_read() {}
  const RcuVersion* read_current() const { return current_.load(std::memory_order_acquire); }
  void down_write() { m_.lock(); }
  void up_write() { m_.unlock(); }
  RcuVersion* publish(RcuVersion* next) { return current_.exchange(next); }
  void retire(RcuVersion* old, std::uint64_t) {
    old->poison();  // no synchronize_rcu: readers may still hold it
    std::lock_guard g(graveyard_mutex_);
    graveyard_.push_back(old);
  }

 private:
  std::atomic<RcuVersion*> current_;
  std::mutex m_;
  std::mutex graveyard_mutex_;
  std::vector<RcuVersion*> graveyard_;
};

// A counting semaphore whose up() drops one unit in every 64: the count is
// lower after the run than before.
class LeakyUpSemaphore {
 public:
  explicit LeakyUpSemaphore(int count) : s_(count) {}
  void down() { s_.down(); }
  bool down_trylock() { return s_.down_trylock(); }
  void up() {
    if (ups_.fetch_add(1) % 64 != 63) s_.up();
  }

 private:
  KernelSemaphore<> s_;
  std::atomic<unsigned> ups_{0};
};

}  // namespace rwstress::test

namespace rwstress::test {

// Condition-variable locks whose wake-ups can be left out, one at a time:
// each leaves a waiter asleep that the contract says must be admitted, and
// nothing but a later, unrelated release would wake it. With kNone they are
// correct (the liveness probe must stay quiet on them).
//
// kHundredthWriter parks the 100th down_write that has to wait where no
// release looks: its wake-up is lost for good while the other threads go
// on. The liveness probe's few waits never reach it; only the stress
// loop's watch for sleepers can.
enum class ForgottenWake { kNone, kOnRelease, kSecondReader, kOnDowngrade, kHundredthWriter };

template <ForgottenWake kForget>
class CvRwlock {
 public:
  void down_read() {
    std::unique_lock l(m_);
    cv_.wait(l, [&] { return !writer_; });
    ++readers_;
  }
  void up_read() {
    std::unique_lock l(m_);
    if (--readers_ == 0) cv_.notify_all();
  }
  void down_write() {
    std::unique_lock l(m_);
    if (kForget == ForgottenWake::kHundredthWriter && (writer_ || readers_ > 0) &&
        ++blocked_writes_ == 100)
      lost_.wait(l, [] { return false; });
    cv_.wait(l, [&] { return !writer_ && readers_ == 0; });
    writer_ = true;
  }
  void up_write() {
    std::unique_lock l(m_);
    writer_ = false;
    if (kForget == ForgottenWake::kOnRelease) return;
    if (kForget == ForgottenWake::kSecondReader)
      cv_.notify_one();  // one waiter; a second reader sleeps on
    else
      cv_.notify_all();
  }
  void downgrade_write() {
    std::unique_lock l(m_);
    writer_ = false;
    readers_ = 1;
    if (kForget != ForgottenWake::kOnDowngrade) cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_, lost_;
  int readers_ = 0;
  bool writer_ = false;
  int blocked_writes_ = 0;
};

template <ForgottenWake kForget>
class CvSemaphore {
 public:
  explicit CvSemaphore(int count) : count_(count) {}
  void down() {
    std::unique_lock l(m_);
    cv_.wait(l, [&] { return count_ > 0; });
    --count_;
  }
  void up() {
    std::unique_lock l(m_);
    ++count_;
    if (kForget != ForgottenWake::kOnRelease) cv_.notify_one();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int count_;
};

template <ForgottenWake kForget>
class CvMutex {
 public:
  void lock() {
    std::unique_lock l(m_);
    cv_.wait(l, [&] { return !held_; });
    held_ = true;
  }
  void unlock() {
    std::unique_lock l(m_);
    held_ = false;
    if (kForget != ForgottenWake::kOnRelease) cv_.notify_one();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool held_ = false;
};

// A mutex of which one instance at a time excludes (the first made while
// no other such is alive: a run's lock under test, made before its
// --nested-locks instances) and every other instance takes nothing: the
// nested-lock check must fire on those while the lock under test passes.
class OnlyFirstInstanceExcludes {
 public:
  OnlyFirstInstanceExcludes() : real_(!claimed_.exchange(true)) {}
  ~OnlyFirstInstanceExcludes() {
    if (real_) claimed_.store(false);
  }
  OnlyFirstInstanceExcludes(const OnlyFirstInstanceExcludes&) = delete;
  OnlyFirstInstanceExcludes& operator=(const OnlyFirstInstanceExcludes&) = delete;
  void lock() {
    if (real_) m_.lock();
  }
  void unlock() {
    if (real_) m_.unlock();
  }

 private:
  const bool real_;
  std::mutex m_;
  static inline std::atomic<bool> claimed_{false};
};

}  // namespace rwstress::test
