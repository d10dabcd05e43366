// Statistics and verdict logic against hand-computed values.
#define BOOST_TEST_MODULE test_stats
#include <boost/test/unit_test.hpp>

#include "model/stats.h"
#include "model/verdict.h"
#include "platform/topology.h"
#include "registry/registry.h"
#include "run/run_driver.h"
#include "tests/test_support.h"

using namespace rwstress;
namespace tt = boost::test_tools;

namespace {

RunResult with_threads(Fairness f, std::vector<std::pair<Role, std::uint64_t>> ops) {
  RunResult r;
  r.fairness = f;
  for (auto [role, n] : ops) {
    ThreadResult t;
    t.role = role;
    t.ops = n;
    t.wall_s = 1;
    r.threads.push_back(t);
    (role == Role::kReader ? r.readers : r.writers)++;
  }
  r.duration_s = 1;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(jain_index_hand_values) {
  BOOST_TEST(jain_index({5, 5, 5, 5}) == 1.0, tt::tolerance(1e-12));
  BOOST_TEST(jain_index({1, 0, 0, 0}) == 0.25, tt::tolerance(1e-12));
  BOOST_TEST(jain_index({2, 4}) == 0.9, tt::tolerance(1e-12));  // 36 / (2 * 20)
  BOOST_TEST(jain_index({}) == -1.0);
  BOOST_TEST(jain_index({0, 0}) == 1.0);
}

BOOST_AUTO_TEST_CASE(summary_totals_and_extremes) {
  RunResult r = with_threads(Fairness::kTaskFair,
                             {{Role::kReader, 100}, {Role::kReader, 300}, {Role::kWriter, 50}});
  summarize_run(r);
  BOOST_TEST(r.reads == 400u);
  BOOST_TEST(r.writes == 50u);
  BOOST_TEST(r.min_thread_ops == 50u);
  BOOST_TEST(r.max_thread_ops == 300u);
  BOOST_TEST(r.jain_readers == 0.8, tt::tolerance(1e-12));  // 160000 / (2 * 100000)
  BOOST_TEST(r.jain_writers == 1.0, tt::tolerance(1e-12));
  BOOST_TEST(r.ops_per_s() == 450.0, tt::tolerance(1e-12));
  BOOST_TEST(r.verdict == Verdict::kPass);
}

BOOST_AUTO_TEST_CASE(starved_writer_of_a_task_fair_lock_is_STARVED) {
  RunResult r = with_threads(Fairness::kTaskFair,
                             {{Role::kReader, 1000000}, {Role::kReader, 1000000}, {Role::kWriter, 3}});
  summarize_run(r);
  BOOST_TEST(r.verdict == Verdict::kStarved);
  BOOST_REQUIRE(r.starved.size() == 1u);
  BOOST_TEST(r.starved[0].find("thread 2 (writer)") != std::string::npos);
  BOOST_TEST(exit_code_of(r.verdict) == 5);
}

// The lines a STARVED verdict rests on are the judged ones, first (the
// console marks them '!'); a run too short to judge a share (a few
// scheduler periods of a loaded machine) reports the thread and is not
// STARVED (xadd, 20 ms runs under load, was: every line a '~' note).
BOOST_AUTO_TEST_CASE(a_STARVED_verdict_rests_on_judged_lines_and_a_short_run_judges_no_share) {
  RunResult judged = with_threads(Fairness::kTaskFair, {{Role::kReader, 1000000},
                                                        {Role::kReader, 1000000},
                                                        {Role::kWriter, 3}});
  summarize_run(judged);
  BOOST_TEST(judged.verdict == Verdict::kStarved);
  BOOST_TEST(judged.starved_judged == 1);
  for (double seconds : {0.02, 0.05, 0.099}) {
    RunResult brief = with_threads(Fairness::kTaskFair, {{Role::kReader, 1000000},
                                                         {Role::kReader, 1000000},
                                                         {Role::kWriter, 3}});
    brief.duration_s = seconds;
    summarize_run(brief);
    BOOST_TEST(brief.verdict == Verdict::kPass, seconds);
    BOOST_TEST(brief.starved_judged == 0, seconds);
    BOOST_REQUIRE(brief.starved.size() == 1u);
    BOOST_TEST(brief.starved[0].find("too short to judge a share") != std::string::npos,
               brief.starved[0]);
  }
  // A judged line and a note in one run: the judged one first.
  RunResult both = with_threads(Fairness::kTaskFair, {{Role::kReader, 1000000},
                                                      {Role::kReader, 3},
                                                      {Role::kWriter, 3}});
  both.threads[1].wall_s = 0;  // never ran: a note
  summarize_run(both);
  BOOST_TEST(both.verdict == Verdict::kStarved);
  BOOST_REQUIRE(both.starved.size() == 2u);
  BOOST_TEST(both.starved_judged == 1);
  BOOST_TEST(both.starved[0].find("thread 2 (writer)") != std::string::npos, both.starved[0]);
  BOOST_TEST(both.starved[1].find("never ran") != std::string::npos, both.starved[1]);
}

// A safety violation names the run, whatever happened after it: threads
// that then could not leave the lock are reported beside it.
BOOST_AUTO_TEST_CASE(a_violation_then_a_hang_is_FAIL_with_the_hang_kept) {
  RunResult r = with_threads(Fairness::kTaskFair, {{Role::kWriter, 100}, {Role::kWriter, 100}});
  r.violation_count = 1;
  r.violations_by_kind[int(ViolationKind::kWriterExclusion)] = 1;
  r.hang_report = {"thread 0 (writer, cpu 0): down_write for 10.00s, 100 ops done"};
  summarize_run(r);
  BOOST_TEST(r.verdict == Verdict::kFail);
  BOOST_TEST(r.hang_report.size() == 1u);
  RunResult h = with_threads(Fairness::kTaskFair, {{Role::kWriter, 100}, {Role::kWriter, 100}});
  h.hang_report = {"thread 0 (writer, cpu 0): down_write for 10.00s, 100 ops done"};
  summarize_run(h);
  BOOST_TEST(h.verdict == Verdict::kHang);  // no violation: the hang is the finding
}

BOOST_AUTO_TEST_CASE(the_verdicts_in_order_of_severity) {
  BOOST_TEST(worse(Verdict::kPass, Verdict::kInterrupted) == Verdict::kInterrupted);
  BOOST_TEST(worse(Verdict::kInterrupted, Verdict::kStarved) == Verdict::kStarved);
  BOOST_TEST(worse(Verdict::kInterrupted, Verdict::kFail) == Verdict::kFail);
  BOOST_TEST(std::string(verdict_name(Verdict::kInterrupted)) == "INTERRUPTED");
  BOOST_TEST(exit_code_of(Verdict::kInterrupted) > 128);
}

BOOST_AUTO_TEST_CASE(starved_writer_of_a_reader_pref_lock_is_a_note) {
  RunResult r = with_threads(Fairness::kReaderPref,
                             {{Role::kReader, 1000000}, {Role::kReader, 1000000}, {Role::kWriter, 3}});
  summarize_run(r);
  BOOST_TEST(r.verdict == Verdict::kPass);
  BOOST_REQUIRE(r.starved.size() == 1u);
  BOOST_TEST(r.starved[0].find("allowed: reader-pref") != std::string::npos);
}

// Where the writer's time went decides whose fault its few ops are. The
// xadd writer of issue 13 spent 75% of 2 s in a run queue and 12% on a CPU.
BOOST_AUTO_TEST_CASE(a_thread_the_scheduler_held_back_is_not_starved_by_the_lock) {
  auto run = [](double on_cpu, double runq, double wall) {
    RunResult r = with_threads(Fairness::kTaskFair, {{Role::kReader, 1000000},
                                                     {Role::kReader, 1000000},
                                                     {Role::kWriter, 3}});
    r.threads[2].on_cpu_s = on_cpu;
    r.threads[2].runq_wait_s = runq;
    r.threads[2].wall_s = wall;
    summarize_run(r);
    return r;
  };
  RunResult held = run(0.24, 1.5, 2.0);
  BOOST_TEST(held.verdict == Verdict::kPass);
  BOOST_REQUIRE(held.starved.size() == 1u);
  BOOST_TEST(held.starved[0].find("held back by the scheduler") != std::string::npos);
  BOOST_TEST(held.starved[0].find("in a run queue 75%") != std::string::npos);
  BOOST_TEST(held.starved_by_cause[int(StarvationCause::kScheduler)] == 1);

  // Blocked in the lock (little run-queue time): the lock's doing.
  BOOST_TEST(run(0.01, 0.05, 2.0).verdict == Verdict::kStarved);
  // Spinning in the lock: on a CPU a third of the time is not "held back".
  BOOST_TEST(run(0.7, 1.2, 2.0).verdict == Verdict::kStarved);
  // Never entered its loop: not the lock.
  RunResult never = run(-1, -1, 0);
  BOOST_TEST(never.verdict == Verdict::kPass);
  BOOST_TEST(never.starved[0].find("never ran") != std::string::npos);
  // No schedstat on this kernel: judged by ops alone, as before.
  BOOST_TEST(run(-1, -1, 2.0).verdict == Verdict::kStarved);
}

// The second way the scheduler holds a thread back: a good share of its time
// in a run queue, and whenever it ran the lock let it in promptly. The shape
// is a traced xadd writer at 2R+1W (100 ms, 17% on a CPU, 46% in a run
// queue, 700 writes: 77 us per write outside the run queue).
BOOST_AUTO_TEST_CASE(a_thread_granted_promptly_whenever_it_ran_is_held_back_by_the_scheduler) {
  auto run = [](std::uint64_t writes, double on_cpu, double runq) {
    RunResult r = with_threads(Fairness::kTaskFair, {{Role::kReader, 1300000},
                                                     {Role::kReader, 1300000},
                                                     {Role::kWriter, writes}});
    for (auto& t : r.threads) t.wall_s = 0.1;
    r.threads[2].on_cpu_s = on_cpu;
    r.threads[2].runq_wait_s = runq;
    summarize_run(r);
    return r;
  };
  RunResult traced = run(700, 0.017, 0.046);
  BOOST_TEST(traced.verdict == Verdict::kPass);
  BOOST_REQUIRE(traced.starved.size() == 1u);
  BOOST_TEST(traced.starved[0].find("held back by the scheduler") != std::string::npos,
             traced.starved[0]);
  BOOST_TEST(traced.starved[0].find("77us per operation outside it") != std::string::npos,
             traced.starved[0]);
  // The same shares with 10 writes: 5.4 ms in the lock for each, the lock's doing.
  RunResult slow = run(10, 0.017, 0.046);
  BOOST_TEST(slow.verdict == Verdict::kStarved);
  BOOST_TEST(slow.starved[0].find("5.4ms per operation outside it") != std::string::npos,
             slow.starved[0]);
  // Prompt grants but hardly ever in a run queue (10%): not the scheduler.
  BOOST_TEST(run(700, 0.017, 0.01).verdict == Verdict::kStarved);
}

// A reader asleep in a FIFO lock goes no faster than the writer it queues
// behind. Shape of xadd at 200 readers and 1 writer on 2 CPUs (2 s): the
// writer 98% in a run queue with 12 writes, a few readers asleep with 12
// reads each.
BOOST_AUTO_TEST_CASE(a_reader_queued_behind_a_held_back_writer_is_not_starved_by_the_lock) {
  auto run = [](std::uint64_t convoy_reads) {
    RunResult r = with_threads(Fairness::kTaskFair, {{Role::kReader, 400000},
                                                     {Role::kReader, 400000},
                                                     {Role::kReader, convoy_reads},
                                                     {Role::kWriter, 12}});
    for (auto& t : r.threads) t.wall_s = 2, t.on_cpu_s = 0.5, t.runq_wait_s = 0.5;
    r.threads[2].on_cpu_s = 0.001, r.threads[2].runq_wait_s = 0.001;  // asleep
    r.threads[3].on_cpu_s = 0.01, r.threads[3].runq_wait_s = 1.96;    // held back
    summarize_run(r);
    return r;
  };
  RunResult convoy = run(12);
  BOOST_TEST(convoy.verdict == Verdict::kPass);
  BOOST_REQUIRE(convoy.starved.size() == 2u);
  BOOST_TEST(convoy.starved[0].find("queued behind thread 3, which the scheduler held back") !=
             std::string::npos, convoy.starved[0]);
  BOOST_TEST(convoy.starved_by_cause[int(StarvationCause::kBehindHeldBack)] == 1);
  // One behind (the run stopped in the middle of a turn): the same.
  BOOST_TEST(run(11).verdict == Verdict::kPass);
  // A held-back writer that completed nothing explains nobody.
  {
    RunResult r = with_threads(Fairness::kTaskFair, {{Role::kReader, 400000},
                                                     {Role::kReader, 400000},
                                                     {Role::kReader, 0},
                                                     {Role::kWriter, 0}});
    for (auto& t : r.threads) t.wall_s = 2, t.on_cpu_s = 0.5, t.runq_wait_s = 0.5;
    r.threads[2].on_cpu_s = 0.001, r.threads[2].runq_wait_s = 0.001;
    r.threads[3].on_cpu_s = 0.01, r.threads[3].runq_wait_s = 1.96;
    summarize_run(r);
    BOOST_TEST(r.verdict == Verdict::kStarved);
  }
  // Further behind the held-back writer than that: not explained by it.
  RunResult behind_less = run(5);
  BOOST_TEST(behind_less.verdict == Verdict::kStarved);
  BOOST_TEST(behind_less.starved[0].find("queued behind") == std::string::npos);
}

// Other programs' share of the run's CPUs: from half of them up, a starved
// thread is reported but not judged (a granted waiter that waits for a CPU
// is the machine's doing); below, judged as before; unknown, judged.
BOOST_AUTO_TEST_CASE(starvation_on_a_machine_busy_with_other_work_is_not_judged) {
  auto run = [](double cpus_busy_s) {
    RunResult r = with_threads(Fairness::kTaskFair, {{Role::kReader, 1000000},
                                                     {Role::kReader, 1000000},
                                                     {Role::kWriter, 3}});
    r.cpus = {0, 1};
    r.duration_s = 1;
    r.threads[0].user_s = r.threads[1].user_s = 0.1;  // the run's own CPU time: 0.2 s
    r.cpus_busy_s = cpus_busy_s;
    summarize_run(r);
    return r;
  };
  RunResult busy = run(1.9);  // others: 1.7 of 2 CPU-seconds
  BOOST_TEST(busy.others_share == 0.85, tt::tolerance(1e-9));
  BOOST_TEST(busy.verdict == Verdict::kPass);
  BOOST_REQUIRE(busy.starved.size() == 1u);
  BOOST_TEST(busy.starved[0].find("not judged: other programs had 85% of the CPUs") !=
             std::string::npos, busy.starved[0]);
  RunResult half = run(1.2);  // others: exactly half
  BOOST_TEST(half.verdict == Verdict::kPass);
  RunResult quiet = run(0.25);  // others: 2.5%
  BOOST_TEST(quiet.others_share == 0.025, tt::tolerance(1e-9));
  BOOST_TEST(quiet.verdict == Verdict::kStarved);
  RunResult unknown = run(-1);
  BOOST_TEST(unknown.others_share == -1);
  BOOST_TEST(unknown.verdict == Verdict::kStarved);
}

// Injected pauses in lock holders: from half the run up (summed over the
// threads), a starved thread is reported but not judged; below, judged. The
// shape is xadd 2R+1W with `sleep@in-cs:p=0.0001,fixed(50ms)`, 100 ms: the
// writer waits out a reader's 50 ms sleep for each of its 2 writes.
BOOST_AUTO_TEST_CASE(starvation_under_injected_pauses_in_holders_is_not_judged) {
  auto run = [](double reader_paused_s, double writer_paused_s) {
    RunResult r = with_threads(Fairness::kTaskFair, {{Role::kReader, 20000},
                                                     {Role::kReader, 30000},
                                                     {Role::kWriter, 2}});
    r.duration_s = 0.1;
    for (auto& t : r.threads) t.wall_s = 0.1;
    r.threads[0].injected_holding_s = reader_paused_s;
    r.threads[2].injected_holding_s = writer_paused_s;
    summarize_run(r);
    return r;
  };
  RunResult held = run(0.1, 0.05);
  BOOST_TEST(held.injected_holding_s == 0.15, tt::tolerance(1e-9));
  BOOST_TEST(held.verdict == Verdict::kPass);
  BOOST_REQUIRE(held.starved.size() == 1u);
  BOOST_TEST(held.starved[0].find("not judged: injected pauses held the lock 150.0ms in all, "
                                  "over a 100.0ms run") != std::string::npos,
             held.starved[0]);
  BOOST_TEST(run(0.03, 0.02).verdict == Verdict::kPass);    // exactly half the run
  BOOST_TEST(run(0.03, 0.0).verdict == Verdict::kStarved);  // under half: the lock's doing
  BOOST_TEST(run(0, 0).verdict == Verdict::kStarved);
}

// A hand-off lock promises a bounded wait, not a share: a writer at 1/10^5
// of the mean is a note (the kernel's rwsem writer among eight readers);
// one wait far past the bound, while the lock changed hands, is STARVED,
// unless the machine or the injector explains it.
BOOST_AUTO_TEST_CASE(a_hand_off_lock_is_judged_by_its_waits_not_by_shares) {
  auto run = [](bool long_wait, double others_cpu_s, double paused_s) {
    RunResult r = with_threads(Fairness::kHandoff, {{Role::kReader, 1000000},
                                                    {Role::kReader, 1000000},
                                                    {Role::kWriter, 3}});
    r.cpus = {0, 1};
    r.threads[0].user_s = r.threads[1].user_s = 0.1;
    r.cpus_busy_s = 0.2 + others_cpu_s;
    r.threads[0].injected_holding_s = paused_s;
    if (long_wait) r.long_waits.push_back({2, Role::kWriter, "down_write", 1.6, 1.05, 350000});
    summarize_run(r);
    return r;
  };
  RunResult share = run(false, 0, 0);
  BOOST_TEST(share.verdict == Verdict::kPass);
  BOOST_REQUIRE(share.starved.size() == 1u);
  BOOST_TEST(share.starved[0].find("a hand-off lock promises a bounded wait, not a share") !=
             std::string::npos, share.starved[0]);
  RunResult waited = run(true, 0, 0);
  BOOST_TEST(waited.verdict == Verdict::kStarved);
  BOOST_REQUIRE(waited.starved.size() == 2u);
  BOOST_TEST(waited.starved_judged == 1);  // the wait, first: the verdict rests on it
  BOOST_TEST(waited.starved[0].find("thread 2 (writer): one wait in down_write lasted 1.60s") !=
             std::string::npos, waited.starved[0]);
  BOOST_TEST(waited.starved_by_cause[int(StarvationCause::kLock)] == 2);
  RunResult busy = run(true, 1.5, 0);  // others: 75% of 2 CPU-seconds
  BOOST_TEST(busy.verdict == Verdict::kPass);
  BOOST_TEST(busy.starved[1].find("not judged: other programs had 75%") != std::string::npos,
             busy.starved[1]);
  RunResult paused = run(true, 0, 0.6);  // over half the judged 1.05 s
  BOOST_TEST(paused.verdict == Verdict::kPass);
  BOOST_TEST(paused.starved[1].find("not judged: injected pauses") != std::string::npos);
  BOOST_TEST(run(true, 0, 0.1).verdict == Verdict::kStarved);  // too short to explain it
  BOOST_TEST(handoff_wait_bound_s(6, 2) == kHandoffWaitS);
  BOOST_TEST(handoff_wait_bound_s(201, 2) == 2.01, tt::tolerance(1e-9));
  // Only hand-off promises a wait without a share; FIFO promises both.
  BOOST_TEST(promises_bounded_wait(Fairness::kHandoff, true));
  BOOST_TEST(!promises_share(Fairness::kHandoff, false));
  BOOST_TEST(promises_bounded_wait(Fairness::kTaskFair, false));
  BOOST_TEST(!promises_bounded_wait(Fairness::kUnfair, true));
  BOOST_TEST(!promises_bounded_wait(Fairness::kReaderPref, true));
}

BOOST_AUTO_TEST_CASE(short_runs_and_fair_shares_are_not_starvation) {
  RunResult tiny = with_threads(Fairness::kTaskFair, {{Role::kReader, 900}, {Role::kWriter, 0}});
  summarize_run(tiny);
  BOOST_TEST(tiny.starved.empty());
  BOOST_TEST(find_starved_threads(with_threads(Fairness::kTaskFair,
                                               {{Role::kReader, 50000}, {Role::kWriter, 60}})
                                      .threads)
                 .empty());  // 60 is above 1/1000 of the mean (25030)
}

BOOST_AUTO_TEST_CASE(verdict_severity_and_exit_codes) {
  BOOST_TEST(worse(Verdict::kPass, Verdict::kStarved) == Verdict::kStarved);
  BOOST_TEST(worse(Verdict::kFail, Verdict::kStarved) == Verdict::kFail);
  BOOST_TEST(worse(Verdict::kFail, Verdict::kHang) == Verdict::kHang);
  BOOST_TEST(exit_code_of(Verdict::kPass) == 0);
  BOOST_TEST(exit_code_of(Verdict::kFail) == 1);
  BOOST_TEST(exit_code_of(Verdict::kHang) == 3);
  BOOST_TEST(exit_code_of(Verdict::kCrash) == 4);
  // Within one run a violation names the verdict even if threads then
  // hang (a_violation_then_a_hang_is_FAIL_with_the_hang_kept); across runs
  // a HANG is still the worse exit code.
  RunResult hung = with_threads(Fairness::kTaskFair, {{Role::kWriter, 1}});
  hung.violation_count = 2;
  hung.hang_report = {"thread 0: stuck"};
  summarize_run(hung);
  BOOST_TEST(hung.verdict == Verdict::kFail);
}

BOOST_AUTO_TEST_CASE(thread_seeds_are_replayable_and_distinct) {
  BOOST_TEST(thread_seed(42, 0) == thread_seed(42, 0));
  BOOST_TEST(thread_seed(42, 0) != thread_seed(42, 1));
  BOOST_TEST(thread_seed(42, 0) != thread_seed(43, 0));
}

// the 2000 BKL report's figures: idle share of the CPUs used, by hand.
BOOST_AUTO_TEST_CASE(idle_share_and_distinct_cpus_hand_values) {
  BOOST_TEST(distinct_cpus({0, 1, 0, 1, 0}) == 2);
  BOOST_TEST(distinct_cpus({}) == 0);
  // 1.5 CPU-seconds busy over 1 s on 2 CPUs: a quarter idle.
  BOOST_TEST(idle_share(1.5, 1.0, 2) == 0.25, tt::tolerance(1e-12));
  BOOST_TEST(idle_share(3.0, 1.0, 2) == 0.0);  // measured over the run: clamped
  BOOST_TEST(idle_share(0.0, 2.0, 4) == 1.0);
  BOOST_TEST(idle_share(1.0, 0.0, 2) == 0.0);  // nothing to divide by

  RunResult r = with_threads(Fairness::kTaskFair, {{Role::kHolder, 10}, {Role::kHolder, 10}});
  r.cpus = {0, 1};
  r.duration_s = 2.0;
  r.threads[0].user_s = 1.0;
  r.threads[0].sys_s = 0.5;
  r.threads[0].voluntary_csw = 7;
  r.threads[1].user_s = 0.5;
  r.threads[1].involuntary_csw = 3;
  summarize_run(r);
  BOOST_TEST(r.user_s == 1.5, tt::tolerance(1e-12));
  BOOST_TEST(r.sys_s == 0.5, tt::tolerance(1e-12));
  BOOST_TEST(r.voluntary_csw == 7u);
  BOOST_TEST(r.involuntary_csw == 3u);
  BOOST_TEST(r.idle_share == 0.5, tt::tolerance(1e-12));  // 2 of 4 CPU-seconds busy
}

// A sleeping lock under contention blocks (voluntary switches) and leaves
// CPUs idle some of the time; the CPU time measured fits in the run.
BOOST_AUTO_TEST_CASE(system_figures_of_a_real_run) {
  static Topology topo = Topology::load_system();
  const LockEntry* e = find_lock("sem-mutex");
  BOOST_REQUIRE(e);
  Scenario sc = test::short_scenario(topo, 0, 4, std::chrono::milliseconds(400));
  sc.family = Family::kMutex;
  RunResult r = e->run(sc, e->meta);
  BOOST_TEST(r.voluntary_csw > 0u);
  BOOST_TEST(r.user_s + r.sys_s > 0.0);
  BOOST_TEST(r.user_s + r.sys_s <= r.duration_s * 4 * 1.2);  // 4 threads, some slack for ticks
  BOOST_TEST(r.idle_share >= 0.0);
  BOOST_TEST(r.idle_share <= 1.0);
}
