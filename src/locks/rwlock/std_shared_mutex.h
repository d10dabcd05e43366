// std-shared-mutex: the C++17 std::shared_mutex of the toolchain's library.
//
// Reference lock. libstdc++ builds it on pthread_rwlock_t with default
// attributes, so it inherits glibc's reader preference.
#pragma once

#include <shared_mutex>

namespace rwstress {

class StdSharedMutex {
 public:
  void down_read() { m_.lock_shared(); }
  void up_read() { m_.unlock_shared(); }
  void down_write() { m_.lock(); }
  void up_write() { m_.unlock(); }
  bool down_read_trylock() { return m_.try_lock_shared(); }
  bool down_write_trylock() { return m_.try_lock(); }

 private:
  std::shared_mutex m_;
};

}  // namespace rwstress
