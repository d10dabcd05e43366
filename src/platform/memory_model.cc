#include "platform/memory_model.h"

#include <algorithm>

namespace rwstress::controlled {

namespace {

bool acquires(int order) {
  return order == kConsume || order == kAcquire || order == kAcqRel || order == kSeqCst;
}
bool releases(int order) { return order == kRelease || order == kAcqRel || order == kSeqCst; }

}  // namespace

MemoryModel::MemoryModel(int threads)
    : cur_(std::size_t(threads)), acquired_(std::size_t(threads)), released_(std::size_t(threads)) {}

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
    const auto [it, added] = ids_.try_emplace(base, locations_.size());
    if (added) locations_.emplace_back();
    const unsigned lo = unsigned(std::max(at, base) - base);
    const unsigned hi = unsigned(std::min(at + bytes, base + 8) - base);
    out[std::size_t((*n)++)] = {it->second, lo, hi};
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

void MemoryModel::write(int t, const Span& s, int order, const View* replaced) {
  Location& l = locations_[s.x];
  View& cur = cur_[std::size_t(t)];
  if (cur.size() <= s.x) cur.resize(s.x + 1, 0);
  cur[s.x] = ++l.latest;
  l.writer = t;
  auto carried = std::make_shared<View>(releases(order) ? cur : released_[std::size_t(t)]);
  if (replaced) join(*carried, *replaced);  // a release sequence goes on through an RMW
  if (carried->size() <= s.x) carried->resize(s.x + 1, 0);
  (*carried)[s.x] = l.latest;
  std::shared_ptr<const View> shared = std::move(carried);
  for (unsigned b = s.lo; b < s.hi; ++b) l.carried[b] = shared;
}

void MemoryModel::load(int t, const void* word, std::size_t size, int order) {
  if (order == kSeqCst) seq_cst_fence(t);
  int n = 0;
  const std::array<Span, 2> sp = spans(word, size, &n);
  View& into = acquires(order) ? cur_[std::size_t(t)] : acquired_[std::size_t(t)];
  for (int i = 0; i < n; ++i) read(t, sp[std::size_t(i)], into);
}

void MemoryModel::store(int t, const void* word, std::size_t size, int order) {
  if (order == kSeqCst) seq_cst_fence(t);
  int n = 0;
  const std::array<Span, 2> sp = spans(word, size, &n);
  for (int i = 0; i < n; ++i) write(t, sp[std::size_t(i)], order, nullptr);
  if (order == kSeqCst) seq_cst_fence(t);
}

void MemoryModel::rmw(int t, const void* word, std::size_t size, int order) {
  if (order == kSeqCst) seq_cst_fence(t);
  int n = 0;
  const std::array<Span, 2> sp = spans(word, size, &n);
  for (int i = 0; i < n; ++i) {
    // An RMW reads the latest stores to its bytes; its own store carries
    // what they carried on (a release sequence).
    View replaced;
    read(t, sp[std::size_t(i)], replaced);
    join(acquires(order) ? cur_[std::size_t(t)] : acquired_[std::size_t(t)], replaced);
    write(t, sp[std::size_t(i)], order, &replaced);
  }
  if (order == kSeqCst) seq_cst_fence(t);
}

void MemoryModel::fence(int t, int order) {
  if (order == kSeqCst) {
    seq_cst_fence(t);
    return;
  }
  if (acquires(order)) join(cur_[std::size_t(t)], acquired_[std::size_t(t)]);
  if (releases(order)) released_[std::size_t(t)] = cur_[std::size_t(t)];
}

void MemoryModel::fence_everyone() {
  View all = seq_cst_;
  for (std::size_t t = 0; t < cur_.size(); ++t) {
    join(all, cur_[t]);
    join(all, acquired_[t]);
  }
  for (std::size_t t = 0; t < cur_.size(); ++t) cur_[t] = released_[t] = all;
  seq_cst_ = all;
}

void MemoryModel::wake(int waker, int woken) {
  if (waker < 0 || waker == woken) return;
  join(cur_[std::size_t(woken)], cur_[std::size_t(waker)]);
}

int MemoryModel::missed(int t, const void* word) const {
  const auto it = ids_.find(reinterpret_cast<std::uintptr_t>(word) & ~std::uintptr_t(7));
  if (it == ids_.end()) return -1;
  const Location& l = locations_[it->second];
  const View& cur = cur_[std::size_t(t)];
  const std::uint32_t seen = it->second < cur.size() ? cur[it->second] : 0;
  return seen < l.latest ? l.writer : -1;
}

}  // namespace rwstress::controlled
