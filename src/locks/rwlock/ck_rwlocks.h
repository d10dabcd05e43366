// Concurrency Kit's reader-writer spinlocks (libck 0.7), adapted to the
// rwlock contract: ck_rwlock (writer-preference: a writer sets its flag,
// then waits for readers to drain; new readers back off while the flag is
// up), ck_pflock (phase-fair, Brandenburg & Anderson), ck_tflock
// (task-fair ticket). Like ck's spinlocks, they never yield.
#pragma once

#include <ck_pflock.h>
#include <ck_rwlock.h>
#include <ck_tflock.h>

namespace rwstress {

class CkRwlock {
 public:
  static constexpr bool kSpins = true;
  CkRwlock() { ck_rwlock_init(&l_); }
  void down_read() { ck_rwlock_read_lock(&l_); }
  bool down_read_trylock() { return ck_rwlock_read_trylock(&l_); }
  void up_read() { ck_rwlock_read_unlock(&l_); }
  void down_write() { ck_rwlock_write_lock(&l_); }
  bool down_write_trylock() { return ck_rwlock_write_trylock(&l_); }
  void up_write() { ck_rwlock_write_unlock(&l_); }
  void downgrade_write() { ck_rwlock_write_downgrade(&l_); }

 private:
  ck_rwlock_t l_;
};

class CkPflock {
 public:
  static constexpr bool kSpins = true;
  CkPflock() { ck_pflock_init(&l_); }
  void down_read() { ck_pflock_read_lock(&l_); }
  void up_read() { ck_pflock_read_unlock(&l_); }
  void down_write() { ck_pflock_write_lock(&l_); }
  void up_write() { ck_pflock_write_unlock(&l_); }

 private:
  ck_pflock_t l_;
};

class CkTflock {
 public:
  static constexpr bool kSpins = true;
  CkTflock() { ck_tflock_ticket_init(&l_); }
  void down_read() { ck_tflock_ticket_read_lock(&l_); }
  void up_read() { ck_tflock_ticket_read_unlock(&l_); }
  void down_write() { ck_tflock_ticket_write_lock(&l_); }
  void up_write() { ck_tflock_ticket_write_unlock(&l_); }

 private:
  ck_tflock_ticket_t l_;
};

}  // namespace rwstress
