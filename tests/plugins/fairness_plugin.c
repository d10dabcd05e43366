/* Plugins' fairness declarations (plugin ABI 2), the idle check (ABI 3),
 * and ABI 1 and ABI 2 tables, for test_plugins:
 *
 *   abi1-mutex     a test-and-set mutex whose table is laid out as ABI 1
 *                  wrote it (it ends after `downgrade`), placed at the very
 *                  end of a page with an inaccessible page after it: an
 *                  rwstress that reads ABI 2's fields from it crashes. It
 *                  loads, and is judged unfair.
 *   pref-claims-handoff
 *                  a reader-preference rwlock (readers never wait for a
 *                  waiting writer) that declares hand-off: with readers
 *                  that overlap, a writer waits as long as they keep
 *                  coming, which the hand-off promise forbids (STARVED).
 *   ticket-handoff a ticket mutex (FIFO) declared hand-off and spinning:
 *                  every wait is bounded, so it keeps the promise (PASS).
 *   abi2-mutex     the test-and-set mutex with its table laid out as ABI 2
 *                  wrote it (it ends after `flags`), at a page's end: an
 *                  rwstress that reads ABI 3's not_idle from it crashes.
 *   queue-leak     a test-and-set mutex that counts its spinning waiters
 *                  and, when one wins, forgets to count it out: safe and
 *                  live, but not idle after the run (not_idle, ABI 3, names
 *                  the count). queue-count does count it out: idle. */
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rwstress/plugin.h>

static void relax(unsigned *spins) {
  if (++*spins % 64 == 0)
    sched_yield();
  else
    __builtin_ia32_pause();
}

/* ---- abi1-mutex ----------------------------------------------------------- */

/* struct rwstress_lock_ops as ABI 1 defined it. */
struct lock_ops_v1 {
  unsigned abi;
  const char *name;
  enum rwstress_family family;
  size_t size;
  int (*init)(void *lock, long count);
  void (*destroy)(void *lock);
  void (*lock)(void *lock);
  void (*unlock)(void *lock);
  void (*lock_shared)(void *lock);
  void (*unlock_shared)(void *lock);
  int (*try_lock)(void *lock);
  int (*try_lock_shared)(void *lock);
  void (*downgrade)(void *lock);
};

static int tas_init(void *l, long count) {
  (void)count;
  atomic_init((_Atomic int *)l, 0);
  return 0;
}

static void tas_lock(void *l) {
  unsigned spins = 0;
  while (atomic_exchange_explicit((_Atomic int *)l, 1, memory_order_acquire))
    relax(&spins);
}

static void tas_unlock(void *l) { atomic_store_explicit((_Atomic int *)l, 0, memory_order_release); }

/* `size` bytes of an older table, copied to the very end of a page with an
 * inaccessible page after it. */
static const struct rwstress_lock_ops *at_page_end(const void *table, size_t size) {
  const long page = sysconf(_SC_PAGESIZE);
  char *two = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
  if (two == MAP_FAILED) return NULL;
  char *at = two + page - size;
  memcpy(at, table, size);
  mprotect(two + page, (size_t)page, PROT_NONE);
  return (const struct rwstress_lock_ops *)(void *)at;
}

static const struct rwstress_lock_ops *abi1_table(void) {
  static const struct rwstress_lock_ops *placed;
  if (placed) return placed;
  const struct lock_ops_v1 v1 = {.abi = 1, .name = "abi1-mutex", .family = RWSTRESS_FAMILY_MUTEX,
                                 .size = sizeof(_Atomic int), .init = tas_init, .lock = tas_lock,
                                 .unlock = tas_unlock};
  return placed = at_page_end(&v1, sizeof v1);
}

/* struct rwstress_lock_ops as ABI 2 defined it. */
struct lock_ops_v2 {
  struct lock_ops_v1 v1;
  enum rwstress_fairness fairness;
  unsigned flags;
};

static const struct rwstress_lock_ops *abi2_table(void) {
  static const struct rwstress_lock_ops *placed;
  if (placed) return placed;
  const struct lock_ops_v2 v2 = {
      .v1 = {.abi = 2, .name = "abi2-mutex", .family = RWSTRESS_FAMILY_MUTEX,
             .size = sizeof(_Atomic int), .init = tas_init, .lock = tas_lock, .unlock = tas_unlock},
      .fairness = RWSTRESS_FAIRNESS_UNFAIR,
      .flags = RWSTRESS_LOCK_SPINS};
  return placed = at_page_end(&v2, sizeof v2);
}

/* ---- queue-leak, queue-count ------------------------------------------------ */

struct counted {
  _Atomic int word;
  _Atomic int spinning; /* waiters spinning for the word */
};

static int counted_init(void *l, long count) {
  (void)count;
  memset(l, 0, sizeof(struct counted));
  return 0;
}

static void counted_lock(struct counted *c, int count_out) {
  if (!atomic_exchange_explicit(&c->word, 1, memory_order_acquire)) return;
  atomic_fetch_add_explicit(&c->spinning, 1, memory_order_relaxed);
  unsigned spins = 0;
  while (atomic_exchange_explicit(&c->word, 1, memory_order_acquire)) relax(&spins);
  if (count_out) atomic_fetch_sub_explicit(&c->spinning, 1, memory_order_relaxed);
}

static void leak_lock(void *l) { counted_lock(l, 0); }
static void count_lock(void *l) { counted_lock(l, 1); }
static void counted_unlock(void *l) {
  atomic_store_explicit(&((struct counted *)l)->word, 0, memory_order_release);
}

static const char *counted_not_idle(void *l) {
  const struct counted *c = l;
  if (atomic_load_explicit(&c->word, memory_order_relaxed)) return "the lock word is set";
  if (atomic_load_explicit(&c->spinning, memory_order_relaxed))
    return "the spinning-waiter count is not 0 (a waiter never counted itself out)";
  return NULL;
}

static const struct rwstress_lock_ops queue_leak = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "queue-leak", .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct counted), .init = counted_init, .lock = leak_lock,
    .unlock = counted_unlock, .flags = RWSTRESS_LOCK_SPINS, .not_idle = counted_not_idle};
static const struct rwstress_lock_ops queue_count = {
    .abi = RWSTRESS_PLUGIN_ABI, .name = "queue-count", .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct counted), .init = counted_init, .lock = count_lock,
    .unlock = counted_unlock, .flags = RWSTRESS_LOCK_SPINS, .not_idle = counted_not_idle};

/* ---- pref-claims-handoff ---------------------------------------------------- */

#define WRITER 0x80000000u

static int pref_init(void *l, long count) {
  (void)count;
  atomic_init((_Atomic unsigned *)l, 0);
  return 0;
}

/* A reader is in unless a writer holds the lock: a waiting writer does not
 * stop it. */
static void pref_lock_shared(void *l) {
  _Atomic unsigned *w = l;
  unsigned spins = 0;
  for (;;) {
    if (!(atomic_fetch_add_explicit(w, 1, memory_order_acquire) & WRITER)) return;
    atomic_fetch_sub_explicit(w, 1, memory_order_relaxed);
    while (atomic_load_explicit(w, memory_order_relaxed) & WRITER) relax(&spins);
  }
}

static void pref_unlock_shared(void *l) {
  atomic_fetch_sub_explicit((_Atomic unsigned *)l, 1, memory_order_release);
}

/* A writer takes the lock only when nobody holds it, and naps between
 * tries (asleep, not queued for a CPU: the wait is the lock's). */
static void pref_lock(void *l) {
  _Atomic unsigned *w = l;
  for (;;) {
    unsigned expected = 0;
    if (atomic_compare_exchange_weak_explicit(w, &expected, WRITER, memory_order_acquire,
                                              memory_order_relaxed))
      return;
    usleep(20);
  }
}

static void pref_unlock(void *l) {
  atomic_fetch_and_explicit((_Atomic unsigned *)l, ~WRITER, memory_order_release);
}

static const struct rwstress_lock_ops pref_claims_handoff = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = "pref-claims-handoff",
    .family = RWSTRESS_FAMILY_RWLOCK,
    .size = sizeof(_Atomic unsigned),
    .init = pref_init,
    .lock = pref_lock,
    .unlock = pref_unlock,
    .lock_shared = pref_lock_shared,
    .unlock_shared = pref_unlock_shared,
    .fairness = RWSTRESS_FAIRNESS_HANDOFF,
};

/* ---- ticket-handoff --------------------------------------------------------- */

struct ticket {
  _Atomic unsigned next, serving;
};

static int ticket_init(void *l, long count) {
  (void)count;
  struct ticket *t = l;
  atomic_init(&t->next, 0);
  atomic_init(&t->serving, 0);
  return 0;
}

static void ticket_lock(void *l) {
  struct ticket *t = l;
  const unsigned mine = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
  unsigned spins = 0;
  while (atomic_load_explicit(&t->serving, memory_order_acquire) != mine) relax(&spins);
}

static void ticket_unlock(void *l) {
  struct ticket *t = l;
  atomic_store_explicit(&t->serving, atomic_load_explicit(&t->serving, memory_order_relaxed) + 1,
                        memory_order_release);
}

static const struct rwstress_lock_ops ticket_handoff = {
    .abi = RWSTRESS_PLUGIN_ABI,
    .name = "ticket-handoff",
    .family = RWSTRESS_FAMILY_MUTEX,
    .size = sizeof(struct ticket),
    .init = ticket_init,
    .lock = ticket_lock,
    .unlock = ticket_unlock,
    .fairness = RWSTRESS_FAIRNESS_HANDOFF,
    .flags = RWSTRESS_LOCK_SPINS,
};

const struct rwstress_lock_ops *const *rwstress_plugin_v1(void) {
  static const struct rwstress_lock_ops *list[7];
  list[0] = abi1_table();
  list[1] = &pref_claims_handoff;
  list[2] = &ticket_handoff;
  list[3] = abi2_table();
  list[4] = &queue_leak;
  list[5] = &queue_count;
  list[6] = NULL;
  return list;
}
