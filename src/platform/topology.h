// Machine topology (hwloc), placement plans, and thread pinning.
//
// A PlacementPlan says which CPU (OS index) each worker thread runs on. It is
// computed from a topology that is either this machine's or a synthetic one
// ("pack:2 [numa] core:8 pu:2"), so placement logic for a 256-CPU machine is
// tested on a 2-CPU one. Binding on a synthetic topology would silently do
// nothing in hwloc; here it is an error.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace rwstress {

enum class Placement {
  kCompact,  // fill hardware threads in topology order: SMT siblings, then cores, then packages
  kScatter,  // round-robin across packages, then cores, then SMT siblings
  kSmt,      // SMT-aware: one hardware thread of every core (in compact order) before any
             // core's second thread
};

const char* placement_name(Placement p);

struct PlacementPlan {
  std::vector<int> cpu_of_thread;  // OS CPU index per worker thread
  std::vector<int> cpus;           // the CPUs the plan uses, in placement order
  bool oversubscribed = false;     // more threads than CPUs

  std::string describe() const;    // "6 threads on 2 CPUs (0,1): oversubscribed 3x"
};

class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Topology {
 public:
  static Topology load_system();
  static Topology synthetic(const std::string& description);

  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  bool is_synthetic() const;
  int allowed_cpu_count() const;
  std::string summary() const;  // "1 package, 2 cores, 2 PUs"

  // Every CPU this process may use, in the order the placement fills them.
  std::vector<int> placement_order(Placement p) const;

  // The CPUs a run uses: the first `count` of the placement order, or the
  // listed CPUs (kept in placement order). Throws TopologyError when a listed
  // CPU is not usable or the count exceeds what is allowed.
  std::vector<int> select_cpus(Placement p, int count) const;
  std::vector<int> select_cpus(Placement p, const std::vector<int>& listed) const;

  PlacementPlan plan(int threads, const std::vector<int>& cpus) const;

  // Pins the calling thread to one CPU. Returns "" or the reason it failed.
  std::string bind_current_thread(int os_cpu) const;

 private:
  struct Impl;
  explicit Topology(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rwstress
