// Concurrency Kit's spinlocks (libck 0.7), adapted to lock / unlock /
// trylock: ticket, FAS (fetch-and-store), CAS, Anderson's array lock, and,
// through ck_queue_locks.c because their headers are C-only, MCS and CLH.
// ck's spinners never yield: on an oversubscribed machine a FIFO ck lock
// waits out a scheduler time slice at every hand-over to a preempted
// waiter. That is the library as shipped, and what the table shows.
#pragma once

#include <spinlock/anderson.h>
#include <spinlock/cas.h>
#include <spinlock/fas.h>
#include <spinlock/ticket.h>

#include "locks/mutex/ck_queue_locks.h"
#include "locks/mutex/queue_node.h"

namespace rwstress {

class CkTicket {
 public:
  static constexpr bool kSpins = true;
  CkTicket() { ck_spinlock_ticket_init(&l_); }
  void lock() { ck_spinlock_ticket_lock(&l_); }
  bool trylock() { return ck_spinlock_ticket_trylock(&l_); }
  void unlock() { ck_spinlock_ticket_unlock(&l_); }

 private:
  ck_spinlock_ticket_t l_;
};

class CkFas {
 public:
  static constexpr bool kSpins = true;
  CkFas() { ck_spinlock_fas_init(&l_); }
  void lock() { ck_spinlock_fas_lock(&l_); }
  bool trylock() { return ck_spinlock_fas_trylock(&l_); }
  void unlock() { ck_spinlock_fas_unlock(&l_); }

 private:
  ck_spinlock_fas_t l_;
};

class CkCas {
 public:
  static constexpr bool kSpins = true;
  CkCas() { ck_spinlock_cas_init(&l_); }
  void lock() { ck_spinlock_cas_lock(&l_); }
  bool trylock() { return ck_spinlock_cas_trylock(&l_); }
  void unlock() { ck_spinlock_cas_unlock(&l_); }

 private:
  ck_spinlock_cas_t l_;
};

// One array slot per thread that may wait at once: sized for rwstress's
// thread limit, a power of two.
class CkAnderson {
 public:
  static constexpr bool kSpins = true;
  static constexpr unsigned kSlots = 8192;
  CkAnderson() : slots_(new ck_spinlock_anderson_thread_t[kSlots]) {
    ck_spinlock_anderson_init(&l_, slots_, kSlots);
  }
  ~CkAnderson() { delete[] slots_; }
  CkAnderson(const CkAnderson&) = delete;
  CkAnderson& operator=(const CkAnderson&) = delete;

  void lock() {
    ck_spinlock_anderson_thread_t* slot;
    ck_spinlock_anderson_lock(&l_, &slot);
    holder_slot_ = slot;
  }
  void unlock() { ck_spinlock_anderson_unlock(&l_, holder_slot_); }

 private:
  ck_spinlock_anderson_t l_;
  ck_spinlock_anderson_thread_t* slots_;
  ck_spinlock_anderson_thread_t* holder_slot_ = nullptr;  // the holder's
};

struct alignas(64) CkNode {
  unsigned char bytes[RWSTRESS_CK_NODE_BYTES];
};

class CkMcs {
 public:
  static constexpr bool kSpins = true;
  CkMcs() { rwstress_ck_mcs_init(&queue_); }
  void lock() {
    CkNode* n = ThreadNodes<CkNode>::take();
    rwstress_ck_mcs_lock(&queue_, n);
    holder_ = n;
  }
  bool trylock() {
    CkNode* n = ThreadNodes<CkNode>::take();
    if (!rwstress_ck_mcs_trylock(&queue_, n)) {
      ThreadNodes<CkNode>::give_back(n);
      return false;
    }
    holder_ = n;
    return true;
  }
  void unlock() {
    CkNode* n = holder_;
    rwstress_ck_mcs_unlock(&queue_, n);
    ThreadNodes<CkNode>::give_back(n);
  }

 private:
  void* queue_ = nullptr;
  CkNode* holder_ = nullptr;
};

// ck's CLH: a thread's node migrates to its successor on unlock, and the
// thread continues with its predecessor's node (see clh.h in this tree).
class CkClh {
 public:
  static constexpr bool kSpins = true;
  CkClh() : unowned_(new CkNode) { rwstress_ck_clh_init(&queue_, unowned_); }
  ~CkClh() { delete static_cast<CkNode*>(queue_); }  // the tail node belongs to the lock
  CkClh(const CkClh&) = delete;
  CkClh& operator=(const CkClh&) = delete;

  void lock() {
    CkNode* n = SpareNode<CkNode>::take();
    rwstress_ck_clh_lock(&queue_, n);
    holder_ = n;
  }
  void unlock() { SpareNode<CkNode>::keep(static_cast<CkNode*>(rwstress_ck_clh_unlock(holder_))); }

 private:
  void* queue_ = nullptr;
  CkNode* unowned_;
  CkNode* holder_ = nullptr;
};

}  // namespace rwstress
