// --plugin: loads a shared object written against include/rwstress/plugin.h,
// checks every ops table it exports, and adds its locks to the registry
// (docs/plugins.md). A plugin stays loaded for the life of the process: its
// names and ops tables are read until the end.
#include <dlfcn.h>

#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "locks/plugin/plugin_locks.h"
#include "platform/child_process.h"
#include "registry/explore_host.h"
#include "registry/kernel_host.h"
#include "registry/lock_entry.h"
#include "registry/registry.h"

namespace rwstress {

namespace {

using namespace lock_entry;

// The registry keeps string_views: each plugin's origin line lives here.
std::deque<std::string>& origins() {
  static std::deque<std::string> o;
  return o;
}

// ABI 2's declarations, or what an ABI 1 table (which ends before them)
// gets: unfair, so its starvation is reported but never judged, no flags.
std::optional<Fairness> fairness_declared(const rwstress_lock_ops& ops) {
  if (ops.abi < 2) return Fairness::kUnfair;
  switch (ops.fairness) {
    case RWSTRESS_FAIRNESS_UNFAIR: return Fairness::kUnfair;
    case RWSTRESS_FAIRNESS_TASK_FAIR: return Fairness::kTaskFair;
    case RWSTRESS_FAIRNESS_PHASE_FAIR: return Fairness::kPhaseFair;
    case RWSTRESS_FAIRNESS_READER_PREF: return Fairness::kReaderPref;
    case RWSTRESS_FAIRNESS_WRITER_PREF: return Fairness::kWriterPref;
    case RWSTRESS_FAIRNESS_HANDOFF: return Fairness::kHandoff;
  }
  return std::nullopt;
}

unsigned flags_declared(const rwstress_lock_ops& ops) { return ops.abi < 2 ? 0 : ops.flags; }
// ABI 4's lock_timeout; an older table ends before it.
bool timeout_declared(const rwstress_lock_ops& ops) { return ops.abi >= 4 && ops.lock_timeout; }

constexpr unsigned kKnownFlags =
    RWSTRESS_LOCK_SPINS | RWSTRESS_LOCK_KILLABLE | RWSTRESS_LOCK_CONTROLLED;

// How a plugin was built: on the kernel-compat layer (it took the kernel
// host), and with explore's points (it took the explore host; the layer's
// explore build does, and makes every lock of the plugin explorable).
struct PluginKind {
  bool kernel_layer = false;
  bool explore_points = false;
  bool explore_model = false;  // built on the ABI 3 <rwstress/explore.h>: its accesses tell the model
};

// The entry's controlled schedule: the plugin type itself (its points are
// its own calls into the explore host, not a hooks instantiation).
template <class Lock>
LockEntry explorable(LockEntry e) {
  e.explore = &explore_schedule<Lock>;
  return e;
}

// The entries are made unfair; plugin_entry then sets what the table declares.
constexpr Fairness kUntil = Fairness::kUnfair;

template <bool kTry, bool kTryShared>
LockEntry rwlock_with_downgrade(const rwstress_lock_ops& ops, std::string_view origin) {
  using WithDowngrade = PluginRwlock<kTry, kTryShared, true>;
  using Without = PluginRwlock<kTry, kTryShared, false>;
  return ops.downgrade ? explorable<WithDowngrade>(rwlock<WithDowngrade>(ops.name, kUntil, origin))
                       : explorable<Without>(rwlock<Without>(ops.name, kUntil, origin));
}

template <bool kTry>
LockEntry rwlock_with_try_shared(const rwstress_lock_ops& ops, std::string_view origin) {
  return ops.try_lock_shared ? rwlock_with_downgrade<kTry, true>(ops, origin)
                             : rwlock_with_downgrade<kTry, false>(ops, origin);
}

template <bool kTry>
LockEntry semaphore_with_timeout(const rwstress_lock_ops& ops, std::string_view origin) {
  using WithTimeout = PluginSemaphore<kTry, true>;
  using Without = PluginSemaphore<kTry, false>;
  return timeout_declared(ops)
             ? explorable<WithTimeout>(semaphore<WithTimeout>(ops.name, kUntil, origin))
             : explorable<Without>(semaphore<Without>(ops.name, kUntil, origin));
}

// The instantiation whose capabilities are the plugin's optional ops.
LockEntry plugin_entry(const rwstress_lock_ops& ops, std::string_view origin, PluginKind kind) {
  LockEntry e;
  switch (ops.family) {
    case RWSTRESS_FAMILY_RWLOCK:
      e = ops.try_lock ? rwlock_with_try_shared<true>(ops, origin)
                       : rwlock_with_try_shared<false>(ops, origin);
      break;
    case RWSTRESS_FAMILY_MUTEX:
      e = ops.try_lock ? explorable<PluginMutex<true>>(mutex<PluginMutex<true>>(ops.name, kUntil, origin))
                       : explorable<PluginMutex<false>>(mutex<PluginMutex<false>>(ops.name, kUntil, origin));
      break;
    case RWSTRESS_FAMILY_SEMAPHORE:
      e = ops.try_lock ? semaphore_with_timeout<true>(ops, origin)
                       : semaphore_with_timeout<false>(ops, origin);
      break;
  }
  // Explorable only where every access and sleep of the lock is a point.
  const bool controlled = (kind.kernel_layer && kind.explore_points) ||
                          (kind.explore_points && (flags_declared(ops) & RWSTRESS_LOCK_CONTROLLED));
  if (!controlled) e.explore = nullptr;
  e.meta.fairness = *fairness_declared(ops);  // check_ops refused an unknown one
  e.meta.caps.spins = flags_declared(ops) & RWSTRESS_LOCK_SPINS;
  e.meta.caps.killable = flags_declared(ops) & RWSTRESS_LOCK_KILLABLE;
  e.meta.plugin = &ops;
  e.meta.kernel_layer = kind.kernel_layer;
  if (kind.kernel_layer) kernel_layer_ops().push_back(&ops);
  e.meta.explore_points = kind.explore_points;
  e.meta.explore_model = kind.explore_model;
  return e;
}

bool valid_name(const char* name) {
  if (!name || !*name) return false;
  for (const char* c = name; *c; ++c)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' ||
          *c == '-'))
      return false;
  return true;
}

// "" or what is wrong with one ops table.
std::string check_ops(const rwstress_lock_ops& ops) {
  if (ops.abi < 1 || ops.abi > RWSTRESS_PLUGIN_ABI)
    return fmt::format("ABI {} (this rwstress speaks ABI 1 to {})", ops.abi, RWSTRESS_PLUGIN_ABI);
  if (!fairness_declared(ops))
    return fmt::format("fairness {} is none of unfair (0), task-fair (1), phase-fair (2), "
                       "reader-pref (3), writer-pref (4), hand-off (5)",
                       int(ops.fairness));
  if (flags_declared(ops) & ~kKnownFlags)
    return fmt::format("flags {:#x} has bits this rwstress does not know (it knows {:#x}: "
                       "RWSTRESS_LOCK_SPINS, RWSTRESS_LOCK_KILLABLE, RWSTRESS_LOCK_CONTROLLED)",
                       flags_declared(ops), kKnownFlags);
  if (!valid_name(ops.name)) return "a name must be non-empty and only [a-z0-9._-]";
  const bool rwlock = ops.family == RWSTRESS_FAMILY_RWLOCK;
  if (!rwlock && ops.family != RWSTRESS_FAMILY_MUTEX && ops.family != RWSTRESS_FAMILY_SEMAPHORE)
    return fmt::format("family {} is none of rwlock (1), semaphore (2), mutex (3)",
                       int(ops.family));
  if (ops.size == 0) return "size is 0";
  if (ops.size > (std::size_t(1) << 30)) return fmt::format("size {} is over 1 GiB", ops.size);
  if (!ops.init) return "init is NULL";
  if (!ops.lock || !ops.unlock) return "lock and unlock are mandatory";
  if (rwlock && (!ops.lock_shared || !ops.unlock_shared))
    return "a rwlock needs lock_shared and unlock_shared";
  if (!rwlock && (ops.lock_shared || ops.unlock_shared || ops.try_lock_shared || ops.downgrade))
    return "lock_shared, unlock_shared, try_lock_shared and downgrade are for rwlocks only";
  if (timeout_declared(ops) && ops.family != RWSTRESS_FAMILY_SEMAPHORE)
    return "lock_timeout is for semaphores only";
  if (ops.abi >= 5 && ops.handoff_waiter && ops.fairness != RWSTRESS_FAIRNESS_HANDOFF)
    return "handoff_waiter is for hand-off locks (fairness RWSTRESS_FAIRNESS_HANDOFF) only";
  // One object, initialised and destroyed, before any run relies on it.
  const long count = ops.family == RWSTRESS_FAMILY_SEMAPHORE ? 1 : 0;
  void* obj = alloc_plugin_object(ops);
  if (!obj) return "cannot allocate one lock object";
  const int rc = ops.init(obj, count);
  if (rc == 0 && ops.destroy) ops.destroy(obj);
  std::free(obj);
  if (rc != 0) return fmt::format("init returned {} on a zeroed object", rc);
  return "";
}

// Opens the plugin and checks every lock it lists; "" and its ops, or why
// not. Runs its ELF constructors, rwstress_plugin_v1() and each init().
std::string open_and_check(const std::string& path, std::vector<const rwstress_lock_ops*>* ops,
                           PluginKind* kind = nullptr) {
  // RTLD_NOW: a symbol the plugin lacks is an error here, not a crash mid-run.
  void* handle = dlopen(path.find('/') == std::string::npos ? ("./" + path).c_str() : path.c_str(),
                        RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    return err ? err : "cannot load";
  }
  // A plugin built on the kernel-compat layer takes rwstress's tasks,
  // injection points and warning channel before anything else runs in it.
  using AttachFn = void (*)(const rwstress_kernel_host*);
  PluginKind found;
  if (auto attach = reinterpret_cast<AttachFn>(dlsym(handle, "rwstress_kernel_attach_v1"))) {
    attach(&kernel_host());
    found.kernel_layer = true;
    if (auto fresh = reinterpret_cast<KernelFreshCpuFn>(dlsym(handle, "rwstress_kernel_fresh_cpu_v1"));
        fresh && kind)
      add_kernel_fresh_cpu_hook(fresh);  // the loaded plugin's, not the trial child's
  }
  // One that marks its own scheduling points (<rwstress/explore.h>) takes
  // the controlled scheduler's.
  using ExploreAttachFn = void (*)(const rwstress_explore_host*);
  if (auto attach = reinterpret_cast<ExploreAttachFn>(dlsym(handle, "rwstress_explore_attach_v1"))) {
    attach(&explore_host());
    found.explore_points = true;
    found.explore_model = dlsym(handle, "rwstress_explore_model_v1") != nullptr;
  }
  if (kind) *kind = found;
  using EntryFn = const rwstress_lock_ops* const* (*)();
  auto entry = reinterpret_cast<EntryFn>(dlsym(handle, "rwstress_plugin_v1"));
  if (!entry) {
    dlclose(handle);
    return "exports no rwstress_plugin_v1 (is it an rwstress plugin?)";
  }
  const rwstress_lock_ops* const* list = entry();
  if (!list || !list[0]) {
    dlclose(handle);
    return "rwstress_plugin_v1() lists no locks";
  }
  for (const rwstress_lock_ops* const* p = list; *p; ++p) {
    const rwstress_lock_ops& o = **p;
    std::string why = check_ops(o);
    const std::string name = o.name && valid_name(o.name) ? o.name : "?";
    if (why.empty() && find_lock(name))
      why = "the name is taken (a built-in lock or an earlier plugin has it)";
    for (const rwstress_lock_ops* seen : *ops)
      if (why.empty() && name == seen->name) why = "the plugin lists this name twice";
    if (why.empty() && (flags_declared(o) & RWSTRESS_LOCK_CONTROLLED) && !found.explore_points)
      why = "declares RWSTRESS_LOCK_CONTROLLED but does not export rwstress_explore_attach_v1 "
            "(include <rwstress/explore.h> and make its points)";
    if (!why.empty())  // none of its locks is added
      return fmt::format("lock {} ('{}'): {}", p - list, name, why);
    ops->push_back(&o);
  }
  return "";
}

// How long loading one plugin may take in the trial child: its
// constructors and one init() per lock, which do next to nothing.
constexpr std::chrono::seconds kLoadLimit{10};

}  // namespace

std::string load_plugin(const std::string& path) {
  auto bad = [&](const std::string& why) { return fmt::format("--plugin {}: {}", path, why); };
  if (path.empty()) return "--plugin: an empty path";
  // What runs at load time (ELF constructors, rwstress_plugin_v1(), init())
  // runs first in a child: one that crashes, hangs or calls exit() is
  // refused by name instead of taking rwstress with it.
  const ChildEnd trial = run_in_child(
      [&] {
        std::vector<const rwstress_lock_ops*> ops;
        return "checked:" + open_and_check(path, &ops);
      },
      kLoadLimit);
  if (trial.forked) {
    if (!trial.answered || trial.text.rfind("checked:", 0) != 0)
      return bad(fmt::format("loading it (its constructors, rwstress_plugin_v1() and each lock's "
                             "init() on a zeroed object) {}",
                             child_end_text(trial, double(kLoadLimit.count()))));
    if (trial.text.size() > 8) return bad(trial.text.substr(8));
  }
  std::vector<const rwstress_lock_ops*> ops;
  PluginKind kind;
  if (std::string why = open_and_check(path, &ops, &kind); !why.empty()) return bad(why);
  const std::string& origin = origins().emplace_back(fmt::format("plugin {}", path));
  for (const rwstress_lock_ops* o : ops) add_lock(plugin_entry(*o, origin, kind));
  return "";
}

}  // namespace rwstress
