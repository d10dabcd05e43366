#include "registry/registry.h"

#include <cstdlib>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "registry/builtin.h"

namespace rwstress {

namespace {

// The built-in locks, then those --plugin added (a deque: adding one moves
// none of the others, whose metadata RunConfig points at).
std::deque<LockEntry>& table() {
  static std::deque<LockEntry> t = [] {
    std::deque<LockEntry> all;
    for (std::span<const LockEntry> part :
         {kernel_style_rwlocks(), library_rwlocks(), semaphores_and_mutexes(), busted_locks()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return t;
}

}  // namespace

const std::deque<LockEntry>& lock_registry() { return table(); }

void add_lock(const LockEntry& entry) { table().push_back(entry); }

const LockEntry* find_lock(std::string_view name) {
  for (const auto& e : table())
    if (e.meta.name == name) return &e;
  return nullptr;
}

std::string valid_lock_names() {
  std::string names = std::string(kSelectAll) + ", rwlock, semaphore, mutex, " +
                      std::string(kSelectBusted);
  for (const auto& e : table()) names += ", " + std::string(e.meta.name);
  return names;
}

std::vector<const LockMeta*> select_locks(std::string_view spec, std::string* error) {
  const std::deque<LockEntry>& locks = table();
  std::vector<bool> chosen(locks.size(), false);
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string_view name = spec.substr(pos, comma == std::string_view::npos ? spec.npos : comma - pos);
    bool matched = false;
    for (size_t i = 0; i < locks.size(); ++i) {
      const LockMeta& m = locks[i].meta;
      bool hit = m.name == name || (name == kSelectAll && !m.busted) ||
                 (name == kSelectBusted && m.busted) || (name == family_name(m.family) && !m.busted);
      if (hit) chosen[i] = matched = true;
    }
    if (!matched) {
      *error = "unknown lock '" + std::string(name) + "'; valid names: " + valid_lock_names();
      return {};
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  std::vector<const LockMeta*> out;
  for (size_t i = 0; i < locks.size(); ++i)
    if (chosen[i]) out.push_back(&locks[i].meta);
  return out;
}

const LockEntry& entry_of(const LockMeta& meta) {
  for (const LockEntry& e : table())
    if (&e.meta == &meta) return e;
  std::abort();
}

}  // namespace rwstress
