// pthread-rwlock: glibc's pthread_rwlock_t with default attributes.
//
// Reference lock, not an in-tree algorithm. glibc's default kind is
// PTHREAD_RWLOCK_PREFER_READER_NP: a reader is admitted whenever no writer
// holds the lock, even with writers waiting, so a stream of readers can
// starve writers. Fairness: reader-preference.
#pragma once

#include <pthread.h>

#include <cstdlib>

namespace rwstress {

class PthreadRwlock {
 public:
  PthreadRwlock() noexcept { pthread_rwlock_init(&rw_, nullptr); }
  ~PthreadRwlock() { pthread_rwlock_destroy(&rw_); }
  PthreadRwlock(const PthreadRwlock&) = delete;
  PthreadRwlock& operator=(const PthreadRwlock&) = delete;

  void down_read() noexcept { must(pthread_rwlock_rdlock(&rw_)); }
  void up_read() noexcept { must(pthread_rwlock_unlock(&rw_)); }
  void down_write() noexcept { must(pthread_rwlock_wrlock(&rw_)); }
  void up_write() noexcept { must(pthread_rwlock_unlock(&rw_)); }
  bool down_read_trylock() noexcept { return pthread_rwlock_tryrdlock(&rw_) == 0; }
  bool down_write_trylock() noexcept { return pthread_rwlock_trywrlock(&rw_) == 0; }

 protected:
  // kind: PTHREAD_RWLOCK_PREFER_READER_NP (default) or
  // PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP (waiting writers block new
  // readers: writer preference).
  explicit PthreadRwlock(int kind) noexcept {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, kind);
    pthread_rwlock_init(&rw_, &attr);
    pthread_rwlockattr_destroy(&attr);
  }

 private:
  // An error from a blocking call means the harness misused the lock.
  static void must(int rc) noexcept {
    if (rc != 0) std::abort();
  }

  pthread_rwlock_t rw_;
};

class PthreadRwlockPreferWriter : public PthreadRwlock {
 public:
  PthreadRwlockPreferWriter() noexcept
      : PthreadRwlock(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP) {}
};

}  // namespace rwstress
