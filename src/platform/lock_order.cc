#include "platform/lock_order.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "platform/lock_warnings.h"

namespace rwstress {

namespace {

struct Site {
  const char* file = nullptr;
  int line = 0;
};

// Why one class comes before another.
struct Edge {
  int thread = 0;            // the worker that took the order (tl_worker_index)
  Site held_at, taken_at;    // where the earlier lock was taken, and the later
  bool wake = false;         // the later is a woken task's pi_lock
  const char* modelled = nullptr;  // an order of the kernel's own, not seen here
};

struct Held {
  const void* lock;
  int cls;
  Site at;
};

constexpr const char* kPiLock = "&p->pi_lock";
constexpr const char* kRqLock = "&rq->__lock";
constexpr const char* kSemaphoreLock = "semaphore->lock";  // the layer's <linux/semaphore.h>

// "src/x/kernel/locking/semaphore.c" -> "semaphore.c".
std::string_view base_name(const char* path) {
  std::string_view p = path ? path : "?";
  const auto slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

// A class's key as it is shown: "&sem->wait_lock@/x/rwsem.c:341" ->
// "&sem->wait_lock (rwsem.c:341)".
std::string shown(const std::string& key) {
  const auto at = key.find('@');
  if (at == std::string::npos) return key;
  std::string tail = key.substr(at + 1);
  const auto colon = tail.rfind(':');
  const std::string file = tail.substr(0, colon == std::string::npos ? tail.size() : colon);
  const std::string line = colon == std::string::npos ? "" : tail.substr(colon);
  return fmt::format("{} ({}{})", key.substr(0, at), base_name(file.c_str()), line);
}

std::string site(Site s) { return fmt::format("{}:{}", base_name(s.file), s.line); }

std::string who(int thread) {
  return thread >= 0 ? fmt::format("thread {}", thread) : std::string("a thread outside the workers");
}

class Graph {
 public:
  std::atomic<std::uint64_t> generation{1};

  int class_of(const void* lock, const char* key, int subclass, int nested = 0) {
    std::lock_guard guard(mutex_);
    std::string k;
    if (key) {
      k = key;
    } else if (auto z = zeroed_.find(lock); z != zeroed_.end()) {
      k = z->second;
    } else {
      k = fmt::format("the zeroed lock at {}", lock);
    }
    std::string name = shown(k);
    if (subclass != 0) {  // "&p->blocked_lock/1", as lockdep shows a subclass
      const std::string sub = fmt::format("/{}", subclass);
      k += sub;
      const auto paren = name.find(" (");
      name.insert(paren == std::string::npos ? name.size() : paren, sub);
    }
    if (nested > 0) {  // a --nested-locks instance's: a class of its own
      k += fmt::format("#nested{}", nested);
      const auto paren = name.find(" (");
      name.insert(paren == std::string::npos ? name.size() : paren,
                  fmt::format(" in nested lock {}", nested));
    }
    return id_locked(k, std::move(name));
  }

  int fixed(const char* key) {
    std::lock_guard guard(mutex_);
    return id_locked(key, key);
  }

  std::string name_of(int cls) {
    std::lock_guard guard(mutex_);
    return names_[std::size_t(cls)];
  }

  void name_zeroed(const void* lock, const char* key) {
    std::lock_guard guard(mutex_);
    zeroed_[lock] = key;
  }
  void forget_zeroed(const void* lock) {
    std::lock_guard guard(mutex_);
    zeroed_.erase(lock);
  }

  void reset() {
    std::lock_guard guard(mutex_);
    generation.fetch_add(1, std::memory_order_acq_rel);
    edges_.clear();
    out_.clear();
    usage_.clear();
    reported_ = false;
    const int pi = id_locked(kPiLock, kPiLock), rq = id_locked(kRqLock, kRqLock),
              sem = id_locked(kSemaphoreLock, kSemaphoreLock);
    add_locked(pi, rq,
               Edge{-1, {}, {}, false,
                    "the kernel's try_to_wake_up() takes the woken task's run-queue lock under "
                    "its pi_lock (kernel/sched/core.c)"});
    add_locked(rq, sem,
               Edge{-1, {}, {}, false,
                    "the kernel's printk() under a run-queue lock takes console_sem's lock "
                    "(console_trylock() -> down_trylock(), kernel/printk/printk.c), and "
                    "console_sem is a semaphore"});
  }

  // Class `cls` was taken in an interrupt handler (in_irq) or in task
  // context with interrupts on, by `thread` at `at`; the first class of
  // the run taken both ways, as one line.
  std::string irq_usage(int cls, bool in_irq, int thread, Site at) {
    std::lock_guard guard(mutex_);
    if (usage_.size() <= std::size_t(cls)) usage_.resize(std::size_t(cls) + 1);
    Usage& u = usage_[std::size_t(cls)];
    Usage::Seen& seen = in_irq ? u.in_irq : u.irqs_on;
    if (seen.at.file) return {};
    seen = {thread, at};
    if (reported_) return {};
    if (!u.in_irq.at.file || !u.irqs_on.at.file) return irq_order_locked();
    reported_ = true;
    return fmt::format(
        "inconsistent lock state: {} was taken in an interrupt handler ({} at {}) and in task "
        "context with interrupts on ({} at {}): an interrupt that arrives on a CPU while its task "
        "holds the lock spins on it in the handler for good (lockdep: {{IN-HARDIRQ-W}} -> "
        "{{HARDIRQ-ON-W}}; take it with interrupts off, spin_lock_irqsave())",
        names_[std::size_t(cls)], who(u.in_irq.thread), site(u.in_irq.at), who(u.irqs_on.thread),
        site(u.irqs_on.at));
  }

  // Adds a -> b; a cycle it closes, if it is the run's first, as one line.
  std::string add(int a, int b, const Edge& e) {
    std::lock_guard guard(mutex_);
    if (edges_.count({a, b})) return {};
    add_locked(a, b, e);
    if (reported_) return {};
    std::vector<int> path = path_locked(b, a);
    if (path.empty()) return irq_order_locked();
    reported_ = true;
    return describe_locked(a, path);
  }

 private:
  int id_locked(const std::string& key, std::string name) {
    auto [it, fresh] = ids_.try_emplace(key, int(names_.size()));
    if (fresh) {
      brief_.push_back(name.substr(0, name.find(" (")));
      names_.push_back(std::move(name));
    }
    return it->second;
  }

  void add_locked(int a, int b, const Edge& e) {
    edges_.emplace(std::make_pair(a, b), e);
    if (out_.size() <= std::size_t(std::max(a, b))) out_.resize(std::size_t(std::max(a, b)) + 1);
    out_[std::size_t(a)].push_back(b);
  }

  // Classes from `from` to `to` along the graph (both ends included), or
  // nothing. from == to: the one-class path (a lock taken under its own
  // class: recursion, or the same class without a _nested annotation).
  std::vector<int> path_locked(int from, int to) {
    if (from == to) return {from};
    std::unordered_map<int, int> parent{{from, from}};
    std::deque<int> queue{from};
    while (!queue.empty()) {
      const int c = queue.front();
      queue.pop_front();
      if (std::size_t(c) >= out_.size()) continue;
      for (int n : out_[std::size_t(c)]) {
        if (!parent.try_emplace(n, c).second) continue;
        if (n == to) {
          std::vector<int> path{to};
          for (int x = to; x != from;) path.insert(path.begin(), x = parent[x]);
          return path;
        }
        queue.push_back(n);
      }
    }
    return {};
  }

  bool used_locked(int cls, bool in_irq) const {
    if (std::size_t(cls) >= usage_.size()) return false;
    const Usage& u = usage_[std::size_t(cls)];
    return (in_irq ? u.in_irq : u.irqs_on).at.file != nullptr;
  }

  // lockdep's indirect rule ("HARDIRQ-safe -> HARDIRQ-unsafe lock order"):
  // a class taken in an interrupt handler ordered, directly or through
  // others, before another class taken in task context with interrupts on.
  // A task holding the second with interrupts on is interrupted by a
  // handler that spins on the first, whose holder waits, along the order,
  // for the second: neither goes on. The run's first such pair, as one
  // line (checked after every new order and every new use; the graph has
  // a few dozen classes, and only the classes with a use are tried).
  std::string irq_order_locked() {
    for (std::size_t s = 0; s < usage_.size(); ++s) {
      if (!used_locked(int(s), true)) continue;
      for (std::size_t u = 0; u < usage_.size(); ++u) {
        if (u == s || !used_locked(int(u), false)) continue;
        std::vector<int> path = path_locked(int(s), int(u));
        if (path.empty()) continue;
        reported_ = true;
        return describe_irq_order_locked(int(s), int(u), path);
      }
    }
    return {};
  }

  std::string describe_irq_order_locked(int safe, int unsafe, const std::vector<int>& path) {
    std::string chain = names_[std::size_t(safe)];
    std::string why;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      chain += " -> " + names_[std::size_t(path[i + 1])];
      why += (why.empty() ? "" : "; ") + why_locked(path[i], path[i + 1]);
    }
    const Usage& s = usage_[std::size_t(safe)];
    const Usage& u = usage_[std::size_t(unsafe)];
    return fmt::format(
        "an interrupt-safe lock ordered before an interrupt-unsafe one: {}. {} was taken in an "
        "interrupt handler ({} at {}), {} in task context with interrupts on ({} at {}); {}. A "
        "task holding {} with interrupts on, interrupted by a handler that spins on {} while its "
        "holder waits for {}, deadlocks (lockdep: HARDIRQ-safe -> HARDIRQ-unsafe lock order; "
        "take {} with interrupts off)",
        chain, brief_[std::size_t(safe)], who(s.in_irq.thread), site(s.in_irq.at),
        brief_[std::size_t(unsafe)], who(u.irqs_on.thread), site(u.irqs_on.at), why,
        brief_[std::size_t(unsafe)], brief_[std::size_t(safe)], brief_[std::size_t(unsafe)],
        brief_[std::size_t(unsafe)]);
  }

  // One order of the cycle: who took it where (or the kernel's fact).
  std::string why_locked(int a, int b) {
    const Edge& e = edges_.at({a, b});
    const std::string& held = brief_[std::size_t(a)];
    if (e.modelled) return fmt::format("{} before {}: {}", held, brief_[std::size_t(b)], e.modelled);
    if (e.wake)
      return fmt::format("{} woke a task at {} holding {} (taken at {}): try_to_wake_up() takes "
                         "its pi_lock",
                         who(e.thread), site(e.taken_at), held, site(e.held_at));
    return fmt::format("{} took {} at {} holding {} (taken at {})", who(e.thread),
                       brief_[std::size_t(b)], site(e.taken_at), held, site(e.held_at));
  }

  // a -> path[0] was just added, and path runs back to a.
  std::string describe_locked(int a, const std::vector<int>& path) {
    std::string cycle = names_[std::size_t(a)];
    for (std::size_t i = 0; i + 1 < path.size(); ++i) cycle += " -> " + names_[std::size_t(path[i])];
    cycle += " -> " + brief_[std::size_t(a)];
    std::string why = why_locked(a, path.front());
    for (std::size_t i = 0; i + 1 < path.size(); ++i)
      why += "; " + why_locked(path[i], path[i + 1]);
    return fmt::format("a cycle of lock classes, a deadlock waiting to happen: {}. {}", cycle, why);
  }

  std::mutex mutex_;
  std::vector<std::string> names_;  // "&sem->wait_lock (rwsem.c:341)"
  std::vector<std::string> brief_;  // "&sem->wait_lock"
  std::unordered_map<std::string, int> ids_;
  std::unordered_map<const void*, std::string> zeroed_;
  std::map<std::pair<int, int>, Edge> edges_;
  std::vector<std::vector<int>> out_;
  // Per class: where it was first taken in an interrupt handler, and
  // where first in task context with interrupts on.
  struct Usage {
    struct Seen {
      int thread = 0;
      Site at;
    };
    Seen in_irq, irqs_on;
  };
  std::vector<Usage> usage_;
  bool reported_ = false;  // one report a run, a cycle or an inconsistent state
};

// Never destroyed: threads may still exit after main returns.
Graph& graph() {
  static Graph* g = new Graph;
  return *g;
}

// What the calling thread holds, and the orders it knows the graph has.
struct ThreadLocks {
  std::uint64_t generation = 0;
  std::vector<Held> held;
  std::unordered_set<std::uint64_t> known;
  // (key pointer, nested instance or 0) -> class, for subclass 0
  struct KeyHash {
    std::size_t operator()(const std::pair<const char*, int>& k) const {
      return std::hash<const char*>()(k.first) ^ std::size_t(k.second);
    }
  };
  std::unordered_map<std::pair<const char*, int>, int, KeyHash> classes;
};
thread_local ThreadLocks tl_locks;

ThreadLocks& mine() {
  ThreadLocks& t = tl_locks;
  const std::uint64_t g = graph().generation.load(std::memory_order_acquire);
  if (t.generation != g) {
    t.generation = g;
    t.held.clear();
    t.known.clear();
  }
  return t;
}

// --nested-locks: each nested instance's memory (LockOrder::nest_instances).
// Atomics: a thread a hung run left behind may still read them while the
// next run's reset() clears them.
struct NestedRange {
  std::atomic<const char*> begin{nullptr};
  std::atomic<std::size_t> size{0};
};
std::array<NestedRange, LockOrder::kNestedInstances> g_nested;
std::atomic<int> g_nested_count{0};

// Which nested instance (1-based) `lock` lies in; 0: none.
int nested_instance(const void* lock) {
  const int n = g_nested_count.load(std::memory_order_acquire);
  const char* p = static_cast<const char*>(lock);
  for (int i = 0; i < n; ++i) {
    const char* b = g_nested[std::size_t(i)].begin.load(std::memory_order_relaxed);
    if (b && p >= b && p < b + g_nested[std::size_t(i)].size.load(std::memory_order_relaxed))
      return i + 1;
  }
  return 0;
}

int class_of(ThreadLocks& t, const void* lock, const char* key, int subclass) {
  const int nested = nested_instance(lock);
  if (!key || subclass != 0) return graph().class_of(lock, key, subclass, nested);
  auto [it, fresh] = t.classes.try_emplace({key, nested}, 0);
  if (fresh) it->second = graph().class_of(lock, key, 0, nested);
  return it->second;
}

void order(ThreadLocks& t, const Held& h, int b, const Edge& e) {
  const std::uint64_t key = (std::uint64_t(std::uint32_t(h.cls)) << 32) | std::uint32_t(b);
  if (!t.known.insert(key).second) return;
  std::string cycle = graph().add(h.cls, b, e);
  if (!cycle.empty()) LockWarnings::instance().raise(tl_worker_index, std::move(cycle), LockSaid::kLockOrder);
}

}  // namespace

LockOrder& LockOrder::instance() {
  static LockOrder* o = new LockOrder;
  return *o;
}

namespace {
int g_on = 1;
}  // namespace

void LockOrder::reset(bool on) {
  __atomic_store_n(&g_on, on ? 1 : 0, __ATOMIC_RELAXED);
  g_nested_count.store(0, std::memory_order_release);
  graph().reset();
}

const int* LockOrder::on_flag() { return &g_on; }

void LockOrder::acquire(const void* lock, const char* lock_class, int subclass, bool trylock,
                        const char* file, int line) {
  ThreadLocks& t = mine();
  const int cls = class_of(t, lock, lock_class, subclass);
  const Site at{file, line};
  if (!trylock)
    for (const Held& h : t.held) order(t, h, cls, Edge{tl_worker_index, h.at, at, false, nullptr});
  t.held.push_back(Held{lock, cls, at});
}

void LockOrder::irq_state(const void* lock, bool in_irq, bool irqs_on, const char* file,
                          int line) {
  if (!in_irq && !irqs_on) return;  // interrupts off in task context: safe both ways
  ThreadLocks& t = mine();
  for (auto it = t.held.rbegin(); it != t.held.rend(); ++it)
    if (it->lock == lock) {
      std::string said = graph().irq_usage(it->cls, in_irq, tl_worker_index, Site{file, line});
      if (!said.empty())
        LockWarnings::instance().raise(tl_worker_index, std::move(said), LockSaid::kLockOrder);
      return;
    }
}

void LockOrder::release(const void* lock) {
  ThreadLocks& t = mine();
  for (auto it = t.held.rbegin(); it != t.held.rend(); ++it)
    if (it->lock == lock) {
      t.held.erase(std::next(it).base());
      return;
    }
}

void LockOrder::wakeup(const char* file, int line) {
  ThreadLocks& t = mine();
  if (t.held.empty()) return;
  static const int pi = graph().fixed(kPiLock);
  for (const Held& h : t.held) order(t, h, pi, Edge{tl_worker_index, h.at, Site{file, line}, true, nullptr});
}

void LockOrder::nest_instances(const std::vector<std::pair<const void*, std::size_t>>& objects) {
  const std::size_t n = std::min(objects.size(), g_nested.size());
  for (std::size_t i = 0; i < n; ++i) {
    g_nested[i].begin.store(static_cast<const char*>(objects[i].first), std::memory_order_relaxed);
    g_nested[i].size.store(objects[i].second, std::memory_order_relaxed);
  }
  g_nested_count.store(int(n), std::memory_order_release);
}

bool LockOrder::holds_only_nested(int depth) {
  if (g_nested_count.load(std::memory_order_acquire) == 0) return false;
  ThreadLocks& t = mine();
  if (depth <= 0 || t.held.size() != std::size_t(depth)) return false;
  for (const Held& h : t.held)
    if (nested_instance(h.lock) == 0) return false;
  return true;
}

std::string LockOrder::held_here() {
  if (!__atomic_load_n(&g_on, __ATOMIC_RELAXED)) return {};
  ThreadLocks& t = mine();
  std::string out;
  for (const Held& h : t.held)
    out += (out.empty() ? "" : ", ") +
           fmt::format("{}, taken at {}", graph().name_of(h.cls), site(h.at));
  return out;
}

void LockOrder::name_zeroed(const void* lock, const char* lock_class) {
  graph().name_zeroed(lock, lock_class);
}
void LockOrder::forget_zeroed(const void* lock) { graph().forget_zeroed(lock); }

}  // namespace rwstress
