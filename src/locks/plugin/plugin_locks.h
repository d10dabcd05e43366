// A lock from a --plugin shared object (include/rwstress/plugin.h), as a type
// the family runners take like any in-tree lock.
//
// Each instance allocates the plugin's lock object (64-byte aligned, zeroed)
// and calls its init; the destructor calls destroy and frees it. Every
// operation is one indirect call through the ops table. The optional ops
// are compile-time capabilities here, as for every lock (the runners mix
// trylocks only into a lock that has them), so each family has one
// instantiation per combination of optional ops; registry/plugins.cc picks
// the one that matches a plugin's table.
//
// A plugin lock has no hooks: injection reaches the worker-loop points.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <rwstress/plugin.h>

#include "platform/printable.h"

namespace rwstress {

// One lock object as the ABI promises it: `size` bytes, 64-byte aligned,
// zeroed. nullptr when out of memory; free it with std::free.
inline void* alloc_plugin_object(const rwstress_lock_ops& ops) noexcept {
  const std::size_t size = (ops.size + 63) / 64 * 64;
  void* obj = std::aligned_alloc(64, size);
  if (obj) std::memset(obj, 0, size);
  return obj;
}

// The ops tables of plugins built on the kernel-compat layer: their
// threads know themselves by the task the host gave them (a waiter's id
// is controlled::thread_tid()), never by gettid(). Filled as they load.
inline std::vector<const rwstress_lock_ops*>& kernel_layer_ops() {
  static auto* ops = new std::vector<const rwstress_lock_ops*>;
  return *ops;
}

class PluginObject {
 public:
  PluginObject(const rwstress_lock_ops* ops, long count) noexcept : ops_(ops) {
    obj_ = alloc_plugin_object(*ops);
    if (!obj_) fail("out of memory", 0);
    // The loader has run init once already; a lock that fails it later has
    // nothing to run on.
    if (int rc = ops->init(obj_, count); rc != 0) fail("init returned", rc);
  }
  ~PluginObject() {
    if (ops_->destroy) ops_->destroy(obj_);
    std::free(obj_);
  }
  PluginObject(const PluginObject&) = delete;
  PluginObject& operator=(const PluginObject&) = delete;

  // The plugin's lock object (explore names the words in it).
  const void* object() const noexcept { return obj_; }
  std::size_t object_size() const noexcept { return ops_->size; }

  // The idle check (lock_traits.h, HasIdleCheck) where the plugin has one
  // (ABI 3, not_idle): its line, cut to something printable.
  const char* not_idle() const noexcept {
    if (ops_->abi < 3 || !ops_->not_idle) return nullptr;
    const char* what = ops_->not_idle(obj_);
    if (!what) return nullptr;
    idle_text_ = printable(std::string_view(what, ::strnlen(what, 1000)), 200);
    return idle_text_.c_str();
  }

  // The hand-off waiter report (lock_traits.h, ReportsHandoffWaiter) where
  // the plugin has one (ABI 5, handoff_waiter): the kernel thread id of the
  // waiter the lock owes the lock next, 0 for none.
  bool reports_handoff() const noexcept { return ops_->abi >= 5 && ops_->handoff_waiter; }
  int handoff_waiter() const noexcept { return reports_handoff() ? ops_->handoff_waiter(obj_) : 0; }
  // Whether explore runs its threads as OS threads: a plugin of its own
  // (not built on the kernel-compat layer) may tell its threads apart by
  // gettid(), which a schedule's user-level contexts (explore's fiber.h)
  // share.
  bool wants_os_threads() const {
    return std::find(kernel_layer_ops().begin(), kernel_layer_ops().end(), ops_) ==
           kernel_layer_ops().end();
  }

 protected:
  const rwstress_lock_ops* ops_;
  void* obj_;
  mutable std::string idle_text_;

 private:
  [[noreturn]] void fail(const char* what, int rc) noexcept {
    std::fprintf(stderr, "rwstress: plugin lock '%s': %s %d\n", ops_->name, what, rc);
    std::_Exit(2);
  }
};

template <bool kTry, bool kTryShared, bool kDowngrade>
class PluginRwlock : PluginObject {
 public:
  PluginRwlock(const rwstress_lock_ops* ops, long count) noexcept : PluginObject(ops, count) {}
  using PluginObject::object;
  using PluginObject::not_idle;
  using PluginObject::handoff_waiter;
  using PluginObject::wants_os_threads;
  using PluginObject::reports_handoff;
  using PluginObject::object_size;
  void down_read() noexcept { ops_->lock_shared(obj_); }
  void up_read() noexcept { ops_->unlock_shared(obj_); }
  void down_write() noexcept { ops_->lock(obj_); }
  void up_write() noexcept { ops_->unlock(obj_); }
  bool down_read_trylock() noexcept
    requires kTryShared
  {
    return ops_->try_lock_shared(obj_) != 0;
  }
  bool down_write_trylock() noexcept
    requires kTry
  {
    return ops_->try_lock(obj_) != 0;
  }
  void downgrade_write() noexcept
    requires kDowngrade
  {
    ops_->downgrade(obj_);
  }
};

template <bool kTry>
class PluginMutex : PluginObject {
 public:
  PluginMutex(const rwstress_lock_ops* ops, long count) noexcept : PluginObject(ops, count) {}
  using PluginObject::object;
  using PluginObject::not_idle;
  using PluginObject::handoff_waiter;
  using PluginObject::wants_os_threads;
  using PluginObject::reports_handoff;
  using PluginObject::object_size;
  void lock() noexcept { ops_->lock(obj_); }
  void unlock() noexcept { ops_->unlock(obj_); }
  bool trylock() noexcept
    requires kTry
  {
    return ops_->try_lock(obj_) != 0;
  }
};

template <bool kTry, bool kTimeout = false>
class PluginSemaphore : PluginObject {
 public:
  PluginSemaphore(const rwstress_lock_ops* ops, long count) noexcept : PluginObject(ops, count) {}
  using PluginObject::object;
  using PluginObject::not_idle;
  using PluginObject::handoff_waiter;
  using PluginObject::wants_os_threads;
  using PluginObject::reports_handoff;
  using PluginObject::object_size;
  void down() noexcept { ops_->lock(obj_); }
  void up() noexcept { ops_->unlock(obj_); }
  bool down_trylock() noexcept
    requires kTry
  {
    return ops_->try_lock(obj_) != 0;
  }
  bool down_timeout(std::chrono::nanoseconds limit) noexcept
    requires kTimeout
  {
    return ops_->lock_timeout(obj_, std::uint64_t(std::max<std::int64_t>(0, limit.count()))) != 0;
  }
};

}  // namespace rwstress
