#include "explore/memory_model.h"

#include <algorithm>
#include <cstring>

namespace rwstress::controlled {

namespace {

// Stores a location remembers (a buffered store leaving it is drained).
constexpr std::size_t kHistory = 16;
// Timestamps step by this much, so that a store placed before the latest
// one (place_early) gets one between it and the store before.
constexpr std::uint32_t kGap = 256;

bool acquires(int order) {
  return order == kConsume || order == kAcquire || order == kAcqRel || order == kSeqCst;
}
bool releases(int order) { return order == kRelease || order == kAcqRel || order == kSeqCst; }

std::uint64_t byte_of(std::uint64_t bytes, unsigned b) { return bytes >> (8 * b) & 0xff; }

// The bytes [lo, hi) of the word at their places, from the access's value
// (its first bytes first).
std::uint64_t placed(std::uint64_t value, unsigned lo, unsigned hi) {
  const unsigned n = hi - lo;
  const std::uint64_t mask = n >= 8 ? ~std::uint64_t(0) : (std::uint64_t(1) << (8 * n)) - 1;
  return (value & mask) << (8 * lo);
}

}  // namespace

MemoryModel::MemoryModel(int threads, Kind kind)
    : kind_(kind),
      cur_(std::size_t(threads)),
      acquired_(std::size_t(threads)),
      released_(std::size_t(threads)),
      buffer_(std::size_t(threads)),
      drained_(std::size_t(threads), 0) {}

void MemoryModel::join(View& into, const View& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

std::array<MemoryModel::Span, 2> MemoryModel::spans(const void* word, std::size_t size, int* n) {
  const auto at = reinterpret_cast<std::uintptr_t>(word);
  const std::size_t bytes = std::clamp<std::size_t>(size, 1, 8);
  std::array<Span, 2> out{};
  *n = 0;
  for (std::uintptr_t base = at & ~std::uintptr_t(7); base < at + bytes; base += 8) {
    bool added = false;
    const std::size_t x = ids_.emplace(base, locations_.size(), &added);
    if (added) locations_.emplace_back();
    const unsigned lo = unsigned(std::max(at, base) - base);
    const unsigned hi = unsigned(std::min(at + bytes, base + 8) - base);
    out[std::size_t((*n)++)] = {x, lo, hi};
  }
  return out;
}

void MemoryModel::seq_cst_fence(int t) {
  View& cur = cur_[std::size_t(t)];
  join(cur, acquired_[std::size_t(t)]);
  join(cur, seq_cst_);
  seq_cst_ = cur;
  released_[std::size_t(t)] = cur;
}

bool MemoryModel::visible(int t, const Store& s) const {
  return kind_ == Kind::kC11 || s.writer < 0 || s.writer == t ||
         s.seq <= drained_[std::size_t(s.writer)];
}

template <class Counts>
bool MemoryModel::latest_per_byte(const Location& l, const Span& s, Counts counts,
                                  std::array<std::int16_t, 8>* from) const {
  for (unsigned b = s.lo; b < s.hi; ++b) {
    (*from)[b] = -1;
    for (std::size_t i = l.history.size(); i-- > 0;) {
      const Store& st = l.history[i];
      if (st.lo <= b && b < st.hi && counts(st)) {
        (*from)[b] = std::int16_t(i);
        break;
      }
    }
    if ((*from)[b] < 0) return false;
  }
  return true;
}

void MemoryModel::drain(int u, std::uint64_t seq) {
  std::vector<Buffered>& buf = buffer_[std::size_t(u)];
  while (!buf.empty() && buf.front().seq <= seq) {
    const Buffered first = buf.front();
    // Every store made before it to the same word goes to memory first.
    for (const Store& st : locations_[first.x].history)
      if (st.seq < first.seq && st.writer >= 0 && st.writer != u &&
          st.seq > drained_[std::size_t(st.writer)])
        drain(st.writer, st.seq);
    // (The recursion cannot have drained this one: only lower seqs.)
    buf.erase(buf.begin());
    drained_[std::size_t(u)] = first.seq;
  }
}

void MemoryModel::drain_everyone() {
  for (std::size_t u = 0; u < buffer_.size(); ++u) drain(int(u), seq_);
}

void MemoryModel::drain_latest(int t, const Span& s) {
  const Location& l = locations_[s.x];
  for (unsigned b = s.lo; b < s.hi; ++b)
    for (std::size_t i = l.history.size(); i-- > 0;) {
      const Store& st = l.history[i];
      if (st.lo <= b && b < st.hi) {
        if (st.writer >= 0 && st.writer != t) drain(st.writer, st.seq);
        break;
      }
    }
}

void MemoryModel::check(const Span& s, std::uint64_t found) {
  Location& l = locations_[s.x];
  if (l.history.empty()) {
    l.history.push_back({0, 0, -1, false, std::uint8_t(s.lo), std::uint8_t(s.hi), found, nullptr});
    return;
  }
  for (unsigned b = s.lo; b < s.hi && !l.mixed; ++b)
    for (std::size_t i = l.history.size(); i-- > 0;) {
      const Store& st = l.history[i];
      if (st.lo <= b && b < st.hi) {
        if (byte_of(st.bytes, b) != byte_of(found, b)) l.mixed = true;
        break;
      }
    }
  // Under tso a store the model did not see went straight to memory:
  // everything buffered is drained (as it may be at any time) so that no
  // later load sees it without what was stored before it.
  if (l.mixed && kind_ == Kind::kTso) drain_everyone();
}

void MemoryModel::read(int t, const Span& s, View& into) {
  const Location& l = locations_[s.x];
  View& cur = cur_[std::size_t(t)];
  if (cur.size() <= s.x) cur.resize(s.x + 1, 0);
  const View* last = nullptr;
  for (unsigned b = s.lo; b < s.hi; ++b) {
    const View* v = l.carried[b].get();
    if (!v || v == last) continue;
    join(into, *v);
    last = v;
    if (s.x < v->size()) cur[s.x] = std::max(cur[s.x], (*v)[s.x]);
  }
}

MemoryModel::Store MemoryModel::stored(int t, const Span& s, const void* at, int order,
                                       std::uint32_t ts, const View* replaced, bool rmw) {
  auto carried = std::make_shared<View>(releases(order) ? cur_[std::size_t(t)]
                                                        : released_[std::size_t(t)]);
  if (replaced) join(*carried, *replaced);  // a release sequence goes on through an RMW
  if (carried->size() <= s.x) carried->resize(s.x + 1, 0);
  (*carried)[s.x] = ts;
  // What it stored, read back from memory (inside the accessed object).
  const auto word = reinterpret_cast<std::uintptr_t>(at) & ~std::uintptr_t(7);
  std::uint64_t value = 0;
  std::memcpy(&value, reinterpret_cast<const void*>(word + s.lo), s.hi - s.lo);
  return {ts, ++seq_, t, rmw, std::uint8_t(s.lo), std::uint8_t(s.hi), placed(value, s.lo, s.hi),
          std::move(carried)};
}

void MemoryModel::write(int t, const Span& s, const void* at, int order, const View* replaced,
                        bool rmw) {
  Location& l = locations_[s.x];
  View& cur = cur_[std::size_t(t)];
  if (cur.size() <= s.x) cur.resize(s.x + 1, 0);
  cur[s.x] = l.latest += kGap;
  l.writer = t;
  const Store st = stored(t, s, at, order, l.latest, replaced, rmw);
  for (unsigned b = s.lo; b < s.hi; ++b) l.carried[b] = st.carried;
  l.history.push_back(st);
  if (kind_ == Kind::kTso) buffer_[std::size_t(t)].push_back({st.seq, s.x});
  if (l.history.size() > kHistory) {
    const Store gone = l.history.front();
    if (gone.writer >= 0) drain(gone.writer, gone.seq);  // a buffered store stays known
    l.history.erase(l.history.begin());
  }
}

std::array<MemoryModel::Span, 2> MemoryModel::written_spans(const void* word, std::size_t size,
                                                          const std::uint64_t* found, int* n) {
  const std::array<Span, 2> sp = spans(word, size, n);
  if (*n == 1 && found) check(sp[0], placed(*found, sp[0].lo, sp[0].hi));
  for (int i = 0; i < *n; ++i) locations_[sp[std::size_t(i)].x].mixed |= *n > 1;
  return sp;
}

bool MemoryModel::place_early(int t, const void* word, std::size_t size, int order,
                              const std::uint64_t* found) {
  if (kind_ != Kind::kC11 || order == kSeqCst) return false;
  int n = 0;
  const std::array<Span, 2> sp = written_spans(word, size, found, &n);
  if (n != 1) return false;
  const Span& s = sp[0];
  const Location& l = locations_[s.x];
  if (l.mixed || l.history.size() < 2) return false;
  // The latest store: one store to exactly these bytes, another thread's,
  // not an RMW's (an RMW reads the store just before it), and not seen by
  // t; and room for a timestamp between it and the store before it.
  const Store& latest = l.history.back();
  if (latest.lo != s.lo || latest.hi != s.hi || latest.writer < 0 || latest.writer == t ||
      latest.rmw)
    return false;
  const View& cur = cur_[std::size_t(t)];
  if (s.x < cur.size() && cur[s.x] >= latest.ts) return false;
  // Nor when t read a store that carried it (even with a relaxed load): a
  // store after a load is ordered after it by a dependency on every
  // processor and in the kernel's model, though not in C11's.
  const View& dep = acquired_[std::size_t(t)];
  if (s.x < dep.size() && dep[s.x] >= latest.ts) return false;
  return latest.ts - l.history[l.history.size() - 2].ts >= 2;
}

bool MemoryModel::follows(const void* word, std::size_t size) const {
  const auto at = reinterpret_cast<std::uintptr_t>(word);
  const std::size_t bytes = std::clamp<std::size_t>(size, 1, 8);
  for (std::uintptr_t base = at & ~std::uintptr_t(7); base < at + bytes; base += 8)
    if (ids_.find(base) != WordIds::kNone) return true;
  return false;
}

void MemoryModel::write_early(int t, const Span& s, const void* at, int order) {
  Location& l = locations_[s.x];
  const Store& latest = l.history.back();
  const std::uint32_t ts =
      l.history[l.history.size() - 2].ts + (latest.ts - l.history[l.history.size() - 2].ts) / 2;
  View& cur = cur_[std::size_t(t)];
  if (cur.size() <= s.x) cur.resize(s.x + 1, 0);
  cur[s.x] = std::max(cur[s.x], ts);
  Store st = stored(t, s, at, order, ts, nullptr, false);
  // Then memory back to the latest store's bytes.
  auto* bytes = reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(at) &
                                                 ~std::uintptr_t(7));
  std::memcpy(bytes + s.lo, reinterpret_cast<const unsigned char*>(&latest.bytes) + s.lo,
              s.hi - s.lo);
  l.history.insert(l.history.end() - 1, std::move(st));
  if (l.history.size() > kHistory) l.history.erase(l.history.begin());
}

void MemoryModel::store(int t, const void* word, std::size_t size, int order,
                        const std::uint64_t* found, bool early) {
  int n = 0;
  const std::array<Span, 2> sp = written_spans(word, size, found, &n);
  if (early && n == 1 && kind_ == Kind::kC11) {
    write_early(t, sp[0], word, order);
    return;
  }
  if (kind_ == Kind::kTso) {
    // A plain mov: buffered, a release to the views; a seq_cst store is an
    // xchg: the buffer drains with it.
    for (int i = 0; i < n; ++i) write(t, sp[std::size_t(i)], word, kRelease, nullptr);
    if (order == kSeqCst) {
      drain(t, seq_);
      seq_cst_fence(t);
    }
    return;
  }
  if (order == kSeqCst) seq_cst_fence(t);
  for (int i = 0; i < n; ++i) write(t, sp[std::size_t(i)], word, order, nullptr);
  if (order == kSeqCst) seq_cst_fence(t);
}

void MemoryModel::rmw(int t, const void* word, std::size_t size, int order,
                      const std::uint64_t* found) {
  int n = 0;
  const std::array<Span, 2> sp = written_spans(word, size, found, &n);
  if (kind_ == Kind::kTso) {
    // A locked instruction: the buffer drains, it reads and writes memory.
    order = kSeqCst;
    drain(t, seq_);
    for (int i = 0; i < n; ++i) drain_latest(t, sp[std::size_t(i)]);
  }
  if (order == kSeqCst) seq_cst_fence(t);
  for (int i = 0; i < n; ++i) {
    // An RMW reads the latest stores to its bytes; its own store carries
    // what they carried on (a release sequence).
    View replaced;
    read(t, sp[std::size_t(i)], replaced);
    join(acquires(order) ? cur_[std::size_t(t)] : acquired_[std::size_t(t)], replaced);
    write(t, sp[std::size_t(i)], word, order, &replaced, true);
  }
  if (kind_ == Kind::kTso) drain(t, seq_);
  if (order == kSeqCst) seq_cst_fence(t);
}

void MemoryModel::local_rmw(int t, const void* word, std::size_t size,
                            const std::uint64_t* found) {
  if (kind_ == Kind::kC11) return rmw(t, word, size, kRelaxed, found);
  int n = 0;
  const std::array<Span, 2> sp = written_spans(word, size, found, &n);
  for (int i = 0; i < n; ++i) {
    const Span& s = sp[std::size_t(i)];
    drain_latest(t, s);  // it read memory
    read(t, s, cur_[std::size_t(t)]);
    write(t, s, word, kRelease, nullptr);  // and its store waits in the buffer
  }
}

int MemoryModel::older(int t, const void* word, std::size_t size, int order,
                       std::uint64_t* values) {
  older_.clear();
  int n = 0;
  const std::array<Span, 2> sp = spans(word, size, &n);
  if (n != 1) {
    for (int i = 0; i < n; ++i) locations_[sp[std::size_t(i)].x].mixed = true;
    return 0;
  }
  const Span& s = sp[0];
  std::uint64_t now = 0;
  std::memcpy(&now, word, s.hi - s.lo);
  now = placed(now, s.lo, s.hi);
  check(s, now);
  const Location& l = locations_[s.x];
  if (l.mixed || (kind_ == Kind::kC11 && order == kSeqCst)) return 0;
  auto value_of = [&](const std::array<std::int16_t, 8>& from) {
    std::uint64_t v = 0;
    for (unsigned b = s.lo; b < s.hi; ++b)
      v |= byte_of(l.history[std::size_t(from[b])].bytes, b) << (8 * b);
    return v;
  };
  auto offer = [&](const std::array<std::int16_t, 8>& from) {
    const std::uint64_t v = value_of(from);
    if (v == now) return;
    for (std::size_t k = 0; k < older_.size(); ++k)
      if (value_of(older_[k].from) == v) return;
    values[older_.size()] = v >> (8 * s.lo);
    older_.push_back({from});
  };
  if (kind_ == Kind::kTso) {
    // What the thread sees: its own buffer first, then memory.
    std::array<std::int16_t, 8> from{};
    if (latest_per_byte(l, s, [&](const Store& st) { return visible(t, st); }, &from))
      offer(from);
    return int(older_.size());
  }
  // c11: any store that covers the load's bytes and is not older than the
  // thread's view of the word, nearest first.
  const View& cur = cur_[std::size_t(t)];
  const std::uint32_t seen = s.x < cur.size() ? cur[s.x] : 0;
  for (std::size_t i = l.history.size(); i-- > 0 && older_.size() < std::size_t(kMaxOlder);) {
    const Store& st = l.history[i];
    if (st.ts < seen) break;
    if (st.lo > s.lo || st.hi < s.hi) continue;
    std::array<std::int16_t, 8> from{};
    from.fill(std::int16_t(i));
    offer(from);
  }
  return int(older_.size());
}

void MemoryModel::load(int t, const void* word, std::size_t size, int order, int pick) {
  if (kind_ == Kind::kTso) order = kAcquire;  // every x86 load is one
  if (order == kSeqCst) seq_cst_fence(t);
  int n = 0;
  const std::array<Span, 2> sp = spans(word, size, &n);
  View& into = acquires(order) ? cur_[std::size_t(t)] : acquired_[std::size_t(t)];
  if (pick <= 0 || std::size_t(pick) > older_.size() || n != 1) {
    for (int i = 0; i < n; ++i) {
      if (kind_ == Kind::kTso) drain_latest(t, sp[std::size_t(i)]);
      read(t, sp[std::size_t(i)], into);
    }
    return;
  }
  // An older value: the views its stores carry, and the thread's view of
  // the word moves up to them (it may not read older ones afterwards).
  const Span& s = sp[0];
  const Location& l = locations_[s.x];
  View& cur = cur_[std::size_t(t)];
  if (cur.size() <= s.x) cur.resize(s.x + 1, 0);
  std::int16_t last = -1;
  for (unsigned b = s.lo; b < s.hi; ++b) {
    const std::int16_t i = older_[std::size_t(pick - 1)].from[b];
    if (i == last) continue;
    last = i;
    const Store& st = l.history[std::size_t(i)];
    if (st.carried) join(into, *st.carried);
    cur[s.x] = std::max(cur[s.x], st.ts);
  }
}

void MemoryModel::fence(int t, int order) {
  if (kind_ == Kind::kTso) {
    if (order == kSeqCst) {  // mfence
      drain(t, seq_);
      seq_cst_fence(t);
    }
    return;  // the rest orders nothing x86 does not
  }
  if (order == kSeqCst) {
    seq_cst_fence(t);
    return;
  }
  if (acquires(order)) join(cur_[std::size_t(t)], acquired_[std::size_t(t)]);
  if (releases(order)) released_[std::size_t(t)] = cur_[std::size_t(t)];
}

void MemoryModel::fence_everyone() {
  if (kind_ == Kind::kTso) drain_everyone();
  View all = seq_cst_;
  for (std::size_t t = 0; t < cur_.size(); ++t) {
    join(all, cur_[t]);
    join(all, acquired_[t]);
  }
  for (std::size_t t = 0; t < cur_.size(); ++t) cur_[t] = released_[t] = all;
  seq_cst_ = all;
}

void MemoryModel::wake(int waker, int woken) {
  if (waker < 0) return;
  if (kind_ == Kind::kTso) drain(waker, seq_);
  if (waker == woken) return;
  join(cur_[std::size_t(woken)], cur_[std::size_t(waker)]);
}

void MemoryModel::settle(int t, const void* word, std::size_t size) {
  if (kind_ != Kind::kTso) return;
  drain(t, seq_);
  int n = 0;
  const std::array<Span, 2> sp = spans(word, size, &n);
  for (int i = 0; i < n; ++i) drain_latest(t, sp[std::size_t(i)]);
}

int MemoryModel::missed(int t, const void* word) const {
  const std::size_t x = ids_.find(reinterpret_cast<std::uintptr_t>(word) & ~std::uintptr_t(7));
  if (x == WordIds::kNone) return -1;
  const Location& l = locations_[x];
  const View& cur = cur_[std::size_t(t)];
  const std::uint32_t seen = x < cur.size() ? cur[x] : 0;
  return seen < l.latest ? l.writer : -1;
}

}  // namespace rwstress::controlled
