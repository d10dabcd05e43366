// Fault injection: the grammar, the per-thread schedule (rates, replay,
// digest), and every injector firing where it was asked to in real runs.
#define BOOST_TEST_MODULE test_inject
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <type_traits>

#include "injectors/inject_spec.h"
#include "injectors/injection.h"
#include "locks/busted/busted_mutexes.h"
#include "locks/mutex/ticket.h"
#include "locks/rwlock/rwsem_aa.h"
#include "locks/rwlock/rwsem_linux.h"
#include "locks/rwlock/rwsem_xadd.h"
#include "locks/semaphore/library_semaphores.h"
#include "locks/semaphore/sem_i386.h"
#include "registry/registry.h"
#include "run/with_hooks.h"
#include "tests/test_support.h"

using namespace rwstress;
using namespace std::chrono_literals;

namespace {

InjectSpec parse_ok(const std::string& text) {
  std::string err;
  auto s = parse_inject_spec(text, &err);
  BOOST_REQUIRE_MESSAGE(s, text << ": " << err);
  return *s;
}

std::string parse_error(const std::string& text) {
  std::string err;
  auto s = parse_inject_spec(text, &err);
  BOOST_TEST(!s, text << " parsed");
  return err;
}

const Topology& machine() {
  static Topology topo = Topology::load_system();
  return topo;
}

RunResult injected_run(const char* lock, const std::vector<std::string>& specs, int readers,
                       int writers, std::chrono::milliseconds d, InjectionPlan& plan) {
  for (const auto& t : specs) plan.specs.push_back(parse_ok(t));
  const LockEntry* e = find_lock(lock);
  BOOST_REQUIRE(e);
  Scenario sc = test::short_scenario(machine(), readers, writers, d);
  sc.family = e->meta.family;
  sc.injection = &plan;
  return e->run_instrumented(sc, e->meta);
}

std::uint64_t fired(const RunResult& r, const std::string& point) {
  std::uint64_t n = 0;
  for (const auto& c : r.injections)
    if (c.point == point) n += c.fired;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(specs_parse_into_typed_values) {
  auto y = parse_ok("yield@in-cs:p=0.01");
  BOOST_TEST(int(y.kind) == int(InjectKind::kYield));
  BOOST_REQUIRE(y.points.size() == 1u);
  BOOST_TEST(int(y.points[0]) == int(InjectPoint::kInCs));
  BOOST_TEST(y.p == 0.01);

  auto d = parse_ok("delay@before-sleep+after-enqueue:exp(2us)");
  BOOST_TEST(d.points.size() == 2u);
  BOOST_TEST(int(d.dist.shape) == int(Distribution::Shape::kExp));
  BOOST_TEST(d.dist.a.count() == 2000);

  auto u = parse_ok("sleep@before-wake:every=3,uniform(10us,50us)");
  BOOST_TEST(u.every_visits == 3u);
  BOOST_TEST(u.dist.b.count() == 50000);

  auto st = parse_ok("stutter:every=500ms,for=50ms");
  BOOST_TEST(st.every.count() == 500000000);
  BOOST_TEST(st.span.count() == 50000000);
  BOOST_TEST(st.points.empty());

  BOOST_TEST(parse_ok("spurious-wake").points.size() == 1u);  // futex-wait by default
  const InjectSpec signal = parse_ok("signal");  // before-sleep, p=0.05 by default
  BOOST_TEST((signal.kind == InjectKind::kSignal));
  BOOST_TEST((signal.points == std::vector<InjectPoint>{InjectPoint::kBeforeSleep}));
  BOOST_TEST(signal.p == 0.05);
  BOOST_TEST(int(parse_ok("long-hold").points[0]) == int(InjectPoint::kInCs));

  // The canonical form parses back to itself.
  for (const char* t : {"yield@in-cs:p=0.01", "delay@spin:every=10,fixed(1us)",
                        "stall@before-release:p=0.001,exp(20ms)", "cpu-offline:every=1s,for=200ms",
                        "shuffle:every=100ms", "priority", "spurious-wake:p=0.5"})
    BOOST_TEST(parse_ok(parse_ok(t).describe()).describe() == parse_ok(t).describe(), t);
}

BOOST_AUTO_TEST_CASE(malformed_specs_name_what_and_where) {
  BOOST_TEST(parse_error("yeild@in-cs").find("unknown injector") != std::string::npos);
  BOOST_TEST(parse_error("yield@in-css").find("at 'in-css'") != std::string::npos);
  BOOST_TEST(parse_error("yield@in-cs:p=2").find("probability") != std::string::npos);
  BOOST_TEST(parse_error("delay@spin:exp(2x)").find("at 'exp(2x)'") != std::string::npos);
  BOOST_TEST(parse_error("delay@spin:uniform(5us,1us)").find("below low") != std::string::npos);
  BOOST_TEST(parse_error("yield").find("needs a point") != std::string::npos);
  BOOST_TEST(parse_error("stutter@in-cs").find("takes no point") != std::string::npos);
  BOOST_TEST(parse_error("stutter:every=10ms,for=20ms").find("shorter") != std::string::npos);
  BOOST_TEST(parse_error("yield@in-cs:fixed(1us)").find("no duration") != std::string::npos);
  BOOST_TEST(parse_error("spurious-wake@in-cs").find("futex-wait") != std::string::npos);
  BOOST_TEST(parse_error("signal@in-cs").find("before-sleep") != std::string::npos);
  BOOST_TEST(parse_error("yield@in-cs:bogus=1").find("unknown parameter") != std::string::npos);
  BOOST_TEST(parse_error("yield@in-cs:every=0").find("count") != std::string::npos);
  for (const char* t : {"yeild@in-cs", "delay@spin:exp(2x)"})
    BOOST_TEST(parse_error(t).find('\n') == std::string::npos);  // one line
}

// p=0.1 over 100000 visits: binomial, sd about 95; 6 sd is far outside any
// fixed-seed fluke. every=7 is exact.
BOOST_AUTO_TEST_CASE(injectors_fire_as_often_as_asked) {
  InjectionPlan plan;
  plan.specs.push_back(parse_ok("yield@spin:p=0.1"));
  plan.specs.push_back(parse_ok("delay@spin:every=7,fixed(1ns)"));
  InjectShared shared(plan.specs.size());
  ThreadInjector inj(plan, shared, 42, 0);
  for (int i = 0; i < 100000; ++i) inj.at(InjectPoint::kSpin);
  const auto& f = inj.fired();
  BOOST_TEST(std::abs(double(f[0][int(InjectPoint::kSpin)]) - 10000.0) < 6 * 95.0);
  BOOST_TEST(f[1][int(InjectPoint::kSpin)] == 100000u / 7);
  BOOST_TEST(f[0][int(InjectPoint::kInCs)] == 0u);  // nowhere else
}

BOOST_AUTO_TEST_CASE(same_seed_same_schedule_and_digest) {
  InjectionPlan plan;
  plan.specs.push_back(parse_ok("delay@before-sleep:p=0.3,exp(2us)"));
  InjectShared shared(1);
  ThreadInjector a(plan, shared, 7, 3), b(plan, shared, 7, 3), c(plan, shared, 8, 3);
  bool all_same = true, differs = false;
  for (int i = 0; i < 1000; ++i) {
    auto x = a.decide(0, InjectPoint::kBeforeSleep), y = b.decide(0, InjectPoint::kBeforeSleep),
         z = c.decide(0, InjectPoint::kBeforeSleep);
    all_same &= x == y;
    differs |= x != z;
  }
  BOOST_TEST(all_same);
  BOOST_TEST(differs);
  BOOST_TEST(schedule_digest(plan, 7, 4) == schedule_digest(plan, 7, 4));
  BOOST_TEST(schedule_digest(plan, 7, 4) != schedule_digest(plan, 8, 4));
}

template <class Hooks = NoHooks>
struct ForgetsWithHooks {
  void lock() { Hooks::at(HookPoint::kSpinIteration); }
  void unlock() {}
};

BOOST_AUTO_TEST_CASE(hooks_are_rebound_only_where_they_are) {
  static_assert(std::is_same_v<WithInjectHooks<RwsemXadd<>>, RwsemXadd<InjectHooks>>);
  static_assert(std::is_same_v<WithInjectHooks<RwsemXaddUnfair<>>, RwsemXadd<InjectHooks, true>>);
  static_assert(std::is_same_v<WithInjectHooks<TicketSpinlock<>>, TicketSpinlock<InjectHooks>>);
  static_assert(std::is_same_v<WithInjectHooks<SemaphoreAsMutex<SemI386<>>>,
                               SemaphoreAsMutex<SemI386<InjectHooks>>>);
  static_assert(
      std::is_same_v<WithInjectHooks<BustedSleepingMutex<WaiterBug::kLostWakeup>>,
                     BustedSleepingMutex<WaiterBug::kLostWakeup, InjectHooks>>);
  static_assert(std::is_same_v<WithInjectHooks<PosixSemaphore>, PosixSemaphore>);
  // Every in-tree lock with hooks says how to swap them; a lock over
  // NoHooks that forgot to is caught (WithInjectHooks refuses to compile).
  static_assert(DeclaresHooks<RwsemAaFair<>> && DeclaresHooks<LinuxRwsem<>>);
  static_assert(!DeclaresHooks<ForgetsWithHooks<>> && MentionsNoHooks<ForgetsWithHooks<>>::value);
  static_assert(!MentionsNoHooks<PosixSemaphore>::value);
  BOOST_TEST(true);
}

// Worker-loop points and the lock's own hook points both fire in a real
// run, and nowhere that was not asked.
BOOST_AUTO_TEST_CASE(point_injectors_fire_in_the_loop_and_inside_the_lock) {
  InjectionPlan plan;
  RunResult r = injected_run("xadd",
                             {"yield@in-cs:p=0.05", "delay@after-enqueue+before-sleep:fixed(1us)",
                              "sleep@before-wake:p=0.1,fixed(20us)", "delay@between-passes:every=50"},
                             3, 2, 400ms, plan);
  BOOST_TEST(r.violation_count == 0u);
  BOOST_TEST(fired(r, "in-cs") > 0u);
  BOOST_TEST(fired(r, "after-enqueue") > 0u);
  BOOST_TEST(fired(r, "before-sleep") > 0u);
  BOOST_TEST(fired(r, "before-wake") > 0u);
  BOOST_TEST(fired(r, "between-passes") > 0u);
  BOOST_TEST(fired(r, "spin") == 0u);
  BOOST_TEST(r.schedule_digest != 0u);
}

// wait-unlock: the internal spin lock of a sleeping in-tree lock fires it
// each time it is dropped; a lock without one (a ticket spinlock) never.
BOOST_AUTO_TEST_CASE(wait_unlock_fires_where_a_wait_list_lock_is_dropped) {
  InjectionPlan plan;
  RunResult r = injected_run("linux-rwsem", {"delay@wait-unlock:p=0.1,fixed(1us)"}, 3, 2, 300ms, plan);
  BOOST_TEST(r.violation_count == 0u);
  BOOST_TEST(fired(r, "wait-unlock") > 0u);
  InjectionPlan plan2;
  RunResult t = injected_run("ticket", {"delay@wait-unlock:p=1,fixed(1us)"}, 0, 3, 200ms, plan2);
  BOOST_TEST(fired(t, "wait-unlock") == 0u);
}

// The futex wrapper's spurious returns: correct sleeping locks tolerate
// them; the waiter that takes one as a grant is caught.
BOOST_AUTO_TEST_CASE(spurious_wakes_are_tolerated_by_correct_locks_and_catch_a_bad_waiter) {
  for (const char* lock : {"xadd", "kernel-sem", "linux-rwsem"}) {
    InjectionPlan plan;
    const LockEntry* e = find_lock(lock);
    RunResult r = injected_run(lock, {"spurious-wake:p=0.5"}, e->meta.family == Family::kRwlock ? 3 : 0,
                               e->meta.family == Family::kRwlock ? 2 : 4, 300ms, plan);
    BOOST_TEST(r.violation_count == 0u, lock);
    BOOST_TEST(r.hang_report.empty(), lock);
    BOOST_TEST(fired(r, "futex-wait") > 0u, lock);
  }
}

// The timer-driven injectors fire and the run still passes.
BOOST_AUTO_TEST_CASE(global_injectors_fire_on_their_timers) {
  InjectionPlan plan;
  RunResult r = injected_run("qrwlock",
                             {"stutter:every=100ms,for=20ms", "shuffle:every=50ms",
                              "cpu-offline:every=120ms,for=30ms", "priority:every=80ms,for=20ms"},
                             3, 2, 500ms, plan);
  BOOST_TEST(r.violation_count == 0u);
  BOOST_TEST(r.hang_report.empty());
  std::uint64_t timers = 0;
  for (const auto& c : r.injections) {
    BOOST_TEST(c.point == "timer");
    BOOST_TEST(c.fired >= 1u, c.spec);
    timers += c.fired;
  }
  BOOST_TEST(timers >= 4u);
}

// The long pauses: long-hold stretches holds (the run slows, stays
// correct), stall freezes one thread at a time.
BOOST_AUTO_TEST_CASE(long_hold_and_stall_fire) {
  InjectionPlan plan;
  RunResult r = injected_run("ticket", {"long-hold:every=100,fixed(1ms)", "stall@before-release:every=100,fixed(5ms)"},
                             0, 3, 400ms, plan);
  BOOST_TEST(r.violation_count == 0u);
  BOOST_TEST(fired(r, "in-cs") > 0u);
  BOOST_TEST(fired(r, "before-release") > 0u);
}

// The time a thread paused while holding the lock is what the starvation
// verdict weighs: a pause in the critical section or the release counts, a
// waiter's pause (before-sleep) does not, and neither does a yield.
BOOST_AUTO_TEST_CASE(pauses_while_holding_the_lock_are_summed) {
  InjectionPlan plan;
  plan.specs.push_back(parse_ok("sleep@in-cs+before-release+before-sleep:every=1,fixed(2ms)"));
  plan.specs.push_back(parse_ok("yield@in-cs:every=1"));
  InjectShared shared(plan.specs.size());
  ThreadInjector inj(plan, shared, 42, 0);
  inj.at(InjectPoint::kInCs);
  inj.at(InjectPoint::kBeforeRelease);
  const std::int64_t held = inj.holding_pause_ns();
  BOOST_TEST(held >= 4000000);  // at least the two 2 ms sleeps asked for
  inj.at(InjectPoint::kBeforeSleep);
  BOOST_TEST(inj.holding_pause_ns() == held);  // a waiter's pause holds nothing
  BOOST_TEST(inj.fired()[0][int(InjectPoint::kBeforeSleep)] == 1u);

  // In a run: the workers' sums come back per thread and summed.
  InjectionPlan run_plan;
  RunResult r = injected_run("xadd", {"sleep@in-cs:every=50,fixed(1ms)"}, 2, 1, 200ms, run_plan);
  double sum = 0;
  for (const auto& t : r.threads) sum += t.injected_holding_s;
  BOOST_TEST(sum > 0);
  BOOST_TEST(r.injected_holding_s == sum, boost::test_tools::tolerance(1e-9));
}
