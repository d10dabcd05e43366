#include "platform/topology.h"

#include <hwloc.h>

#include <algorithm>
#include <map>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rwstress {

const char* placement_name(Placement p) {
  switch (p) {
    case Placement::kCompact: return "compact";
    case Placement::kScatter: return "scatter";
    case Placement::kSmt: return "smt";
  }
  return "?";
}

std::string PlacementPlan::describe() const {
  std::string text = fmt::format("{} threads on {} CPUs ({})", cpu_of_thread.size(),
                                 cpus.size(), fmt::join(cpus, ","));
  if (oversubscribed)
    text += fmt::format(": oversubscribed {:.1f}x",
                        double(cpu_of_thread.size()) / double(cpus.size()));
  return text;
}

struct Topology::Impl {
  hwloc_topology_t topo = nullptr;
  hwloc_bitmap_t allowed = nullptr;
  bool synthetic = false;

  ~Impl() {
    if (allowed) hwloc_bitmap_free(allowed);
    if (topo) hwloc_topology_destroy(topo);
  }

  bool usable(hwloc_obj_t pu) const { return hwloc_bitmap_isset(allowed, pu->os_index); }

  // Round-robin over the children of obj, each child's list built the same
  // way: the first PU of every package, then the second of every package...
  std::vector<int> scatter_order(hwloc_obj_t obj) const {
    if (obj->type == HWLOC_OBJ_PU) {
      if (usable(obj)) return {int(obj->os_index)};
      return {};
    }
    std::vector<std::vector<int>> lists;
    size_t longest = 0;
    for (unsigned i = 0; i < obj->arity; ++i) {
      lists.push_back(scatter_order(obj->children[i]));
      longest = std::max(longest, lists.back().size());
    }
    std::vector<int> order;
    for (size_t k = 0; k < longest; ++k)
      for (const auto& l : lists)
        if (k < l.size()) order.push_back(l[k]);
    return order;
  }
};

Topology::Topology(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

Topology Topology::load_system() {
  auto impl = std::make_unique<Impl>();
  if (hwloc_topology_init(&impl->topo) != 0 || hwloc_topology_load(impl->topo) != 0)
    throw TopologyError("hwloc could not read this machine's topology");
  impl->allowed = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(impl->topo));
  // Honour taskset/cgroup limits on the process as well.
  hwloc_bitmap_t bound = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(impl->topo, bound, HWLOC_CPUBIND_PROCESS) == 0 &&
      !hwloc_bitmap_iszero(bound))
    hwloc_bitmap_and(impl->allowed, impl->allowed, bound);
  hwloc_bitmap_free(bound);
  return Topology(std::move(impl));
}

Topology Topology::synthetic(const std::string& description) {
  auto impl = std::make_unique<Impl>();
  impl->synthetic = true;
  if (hwloc_topology_init(&impl->topo) != 0 ||
      hwloc_topology_set_synthetic(impl->topo, description.c_str()) != 0 ||
      hwloc_topology_load(impl->topo) != 0)
    throw TopologyError(fmt::format("bad synthetic topology '{}'", description));
  impl->allowed = hwloc_bitmap_dup(hwloc_topology_get_complete_cpuset(impl->topo));
  return Topology(std::move(impl));
}

bool Topology::is_synthetic() const { return impl_->synthetic; }

int Topology::allowed_cpu_count() const { return hwloc_bitmap_weight(impl_->allowed); }

std::string Topology::summary() const {
  auto count = [&](hwloc_obj_type_t t) { return hwloc_get_nbobjs_by_type(impl_->topo, t); };
  int numa = count(HWLOC_OBJ_NUMANODE);
  return fmt::format("{} package{}, {} NUMA node{}, {} cores, {} PUs ({} allowed){}",
                     count(HWLOC_OBJ_PACKAGE), count(HWLOC_OBJ_PACKAGE) == 1 ? "" : "s", numa,
                     numa == 1 ? "" : "s", count(HWLOC_OBJ_CORE), count(HWLOC_OBJ_PU),
                     allowed_cpu_count(), impl_->synthetic ? ", synthetic" : "");
}

std::vector<int> Topology::placement_order(Placement p) const {
  if (p == Placement::kScatter) return impl_->scatter_order(hwloc_get_root_obj(impl_->topo));
  // Compact order, each PU ranked by how many usable PUs of its core came
  // before it; kSmt then takes rank 0 of every core first.
  std::vector<std::pair<int, int>> ranked;  // (rank within core, OS index)
  std::map<const void*, int> seen_in_core;
  for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(impl_->topo, HWLOC_OBJ_PU, nullptr); pu;
       pu = hwloc_get_next_obj_by_type(impl_->topo, HWLOC_OBJ_PU, pu)) {
    if (!impl_->usable(pu)) continue;
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(impl_->topo, HWLOC_OBJ_CORE, pu);
    ranked.emplace_back(seen_in_core[core ? core : pu]++, int(pu->os_index));
  }
  if (p == Placement::kSmt)
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> order;
  for (const auto& r : ranked) order.push_back(r.second);
  return order;
}

std::vector<int> Topology::select_cpus(Placement p, int count) const {
  std::vector<int> order = placement_order(p);
  if (count < 1 || size_t(count) > order.size())
    throw TopologyError(fmt::format("--cpus {}: this process may use {} CPU{}", count,
                                    order.size(), order.size() == 1 ? "" : "s"));
  order.resize(size_t(count));
  return order;
}

std::vector<int> Topology::select_cpus(Placement p, const std::vector<int>& listed) const {
  std::vector<int> order = placement_order(p);
  for (int cpu : listed)
    if (std::find(order.begin(), order.end(), cpu) == order.end())
      throw TopologyError(fmt::format("--cpus: CPU {} does not exist or is not allowed", cpu));
  std::vector<int> chosen;
  for (int cpu : order)
    if (std::find(listed.begin(), listed.end(), cpu) != listed.end()) chosen.push_back(cpu);
  return chosen;
}

PlacementPlan Topology::plan(int threads, const std::vector<int>& cpus) const {
  PlacementPlan plan;
  plan.cpus = cpus;
  for (int t = 0; t < threads; ++t) plan.cpu_of_thread.push_back(cpus[size_t(t) % cpus.size()]);
  plan.oversubscribed = size_t(threads) > cpus.size();
  return plan;
}

std::string Topology::bind_current_thread(int os_cpu) const {
  if (impl_->synthetic) return "cannot bind a thread on a synthetic topology";
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  hwloc_bitmap_only(set, unsigned(os_cpu));
  int rc = hwloc_set_cpubind(impl_->topo, set, HWLOC_CPUBIND_THREAD);
  int err = errno;
  hwloc_bitmap_free(set);
  if (rc != 0) return fmt::format("binding to CPU {} failed: {}", os_cpu, std::strerror(err));
  return "";
}

}  // namespace rwstress
