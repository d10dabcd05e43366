// --plugin: the example plugin's correct locks PASS in the main run, its
// broken ones are caught, and every malformed plugin is refused with one
// line and exit 2. The plugins are built next to this test (both build
// files): RWSTRESS_PLUGIN_DIR.
#define BOOST_TEST_MODULE plugins
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace rwstress::test {
namespace {

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// The command of explore's first "  replay: rwstress ..." line in `out`
// (after "rwstress "), or "" where there is none.
std::string replay_line(const std::string& out) {
  const std::string mark = "  replay: rwstress ";
  const std::size_t at = out.find(mark);
  if (at == std::string::npos) return "";
  const std::size_t from = at + mark.size();
  return out.substr(from, out.find('\n', from) - from);
}

// An explore run that must find what it is told: ARGS exits WANT with
// TEXT in its output, and its replay line reruns it to the same exit step
// for step. Returns the first run.
ProcessResult found_and_replayed(const std::string& args, int want, const std::string& text) {
  ProcessResult found = run_rwstress(args);
  BOOST_TEST(found.exit_code == want, args << ": " << found.out << found.err);
  BOOST_TEST(found.out.find(text) != std::string::npos, found.out);
  const std::string replay = replay_line(found.out);
  BOOST_TEST_REQUIRE(!replay.empty(), found.out);
  ProcessResult again = run_rwstress(replay);
  BOOST_TEST(again.exit_code == want, again.out + again.err);
  BOOST_TEST(again.out.find("(the recorded schedule, step for step") != std::string::npos,
             again.out);
  return found;
}

// An explore run that must pass: ARGS exits 0 and says "LOCK: PASS".
ProcessResult passed(const std::string& args, const std::string& lock) {
  ProcessResult r = run_rwstress(args);
  BOOST_TEST(r.exit_code == 0, args << ": " << r.out << r.err);
  BOOST_TEST(r.out.find(lock + ": PASS") != std::string::npos, r.out);
  return r;
}

BOOST_AUTO_TEST_CASE(plugin_locks_are_listed_with_their_capabilities) {
  ProcessResult r = run_rwstress("--plugin " + plugin("plain_locks") + " list");
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(r.out.find("c-rwlock") != std::string::npos);
  BOOST_TEST(r.out.find("read-trylock,write-trylock,downgrade") != std::string::npos);
  BOOST_TEST(r.out.find("c-semaphore") != std::string::npos);
  BOOST_TEST(r.out.find("plugin " + plugin("plain_locks")) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(correct_plugin_locks_pass_and_the_replay_line_loads_the_plugin) {
  for (const char* shape : {"--readers 2 --writers 1", "--readers 4 --writers 2 --sched"}) {
    ProcessResult r = run_rwstress("--plugin " + plugin("plain_locks") +
                                   " --lock c-rwlock,c-mutex,c-semaphore --duration 300ms " +
                                   shape);
    BOOST_TEST(r.exit_code == 0, r.out + r.err);
    BOOST_TEST(r.out.find("rwstress --plugin " + plugin("plain_locks") + " --lock") !=
               std::string::npos, r.out);
  }
  // The worker-loop injection points reach a plugin lock too.
  ProcessResult inj = run_rwstress("--plugin " + plugin("plain_locks") +
                                   " --lock c-rwlock --duration 300ms --inject "
                                   "'sleep@in-cs:p=0.01,fixed(50us)'");
  BOOST_TEST(inj.exit_code == 0, inj.out + inj.err);
}

// futex_locks.c is built with the plugin ABI's include path alone (as
// pkg-config's rwstress module and rwstress::plugin give it): a plain C lock
// that includes <stdatomic.h>, <linux/futex.h> and <sys/syscall.h>, and
// sleeps in the kernel. Its locks pass, oversubscribed.
BOOST_AUTO_TEST_CASE(a_plain_futex_plugin_builds_without_the_layer_and_passes) {
  ProcessResult r = run_rwstress("--plugin " + plugin("futex_locks") +
                                 " --lock futex-mutex,futex-semaphore --threads 6 --count 2"
                                 " --duration 300ms");
  BOOST_TEST(r.exit_code == 0, r.out + r.err);
  BOOST_TEST(r.out.find("futex-mutex") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("futex-semaphore") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(broken_plugin_locks_are_caught) {
  ProcessResult rw = run_rwstress("--plugin " + plugin("broken_locks") +
                                  " --lock c-rwlock-broken --duration 1 --cs-read 200 --cs-write 200");
  BOOST_TEST(rw.exit_code == 1, rw.out + rw.err);  // FAIL: a writer among readers
  ProcessResult mx = run_rwstress("--plugin " + plugin("broken_locks") +
                                  " --lock c-mutex-broken --threads 4 --duration 1");
  BOOST_TEST(mx.exit_code == 1, mx.out + mx.err);
  ProcessResult sem = run_rwstress("--plugin " + plugin("broken_locks") +
                                   " --lock c-semaphore-broken --threads 4 --count 1 --duration 1");
  BOOST_TEST(sem.exit_code == 1, sem.out + sem.err);
}

// Plugin ABI 2's fairness, judged; an ABI 1 table (which ends before it,
// at a page's end in fairness_plugin.c) is read as ABI 1 and judged unfair.
BOOST_AUTO_TEST_CASE(declared_fairness_is_judged_and_an_abi1_table_reads_as_abi1) {
  const std::string p = "--plugin " + plugin("fairness_plugin");
  ProcessResult list = run_rwstress(p + " list");
  BOOST_TEST(list.exit_code == 0, list.err);
  auto row = [&](const std::string& name) {
    const auto at = list.out.find(name + " ");
    return at == std::string::npos ? std::string() : list.out.substr(at, list.out.find('\n', at) - at);
  };
  BOOST_TEST(row("abi1-mutex").find("unfair") != std::string::npos, list.out);
  BOOST_TEST(row("pref-claims-handoff").find("hand-off") != std::string::npos, list.out);
  BOOST_TEST(row("ticket-handoff").find("hand-off") != std::string::npos, list.out);
  BOOST_TEST(row("ticket-handoff").find("spins") != std::string::npos, list.out);
  ProcessResult old = run_rwstress(p + " --lock abi1-mutex --threads 3 --duration 300ms");
  BOOST_TEST(old.exit_code == 0, old.out + old.err);
  // A waiting writer among readers that keep overlapping waits as long as
  // they come: a hand-off lock's promise broken, named with the wait. On a
  // machine busy with other programs (meson runs two tests at once) the
  // wait is reported but not judged: tried up to three times for a run the
  // machine let it judge, and a run that was not judged must say so.
  for (int attempt = 0; attempt < 3; ++attempt) {
    ProcessResult pref = run_rwstress(p + " --lock pref-claims-handoff --readers 4 --writers 1 "
                                          "--cs-read 20000 --duration 3s");
    BOOST_TEST(pref.out.find("a hand-off lock promises every waiter the lock within its bound") !=
                   std::string::npos, pref.out);
    if (pref.exit_code == 5) break;
    BOOST_TEST(pref.exit_code == 0, pref.out + pref.err);
    BOOST_TEST(pref.out.find("not judged: other programs had") != std::string::npos, pref.out);
  }
  // A FIFO lock keeps the promise.
  ProcessResult fifo = run_rwstress(p + " --lock ticket-handoff --threads 2 --duration 2s");
  BOOST_TEST(fifo.exit_code == 0, fifo.out + fifo.err);
}

// Plugin ABI 3's idle check: a lock that leaves a field set after every
// thread left FAILs `not-idle` with the plugin's own line, in a timed run
// and in validate; the same lock that clears it passes; an ABI 2 table
// (which ends before not_idle, at a page's end) loads and runs.
BOOST_AUTO_TEST_CASE(a_plugin_lock_not_idle_after_the_run_fails_and_an_abi2_table_reads_as_abi2) {
  const std::string p = "--plugin " + plugin("fairness_plugin");
  ProcessResult leak = run_rwstress(p + " --lock queue-leak --threads 3 --duration 300ms");
  BOOST_TEST(leak.exit_code == 1, leak.out + leak.err);
  BOOST_TEST(leak.out.find("not-idle") != std::string::npos, leak.out);
  BOOST_TEST(leak.out.find("the spinning-waiter count is not 0") != std::string::npos, leak.out);
  ProcessResult counted = run_rwstress(p + " --lock queue-count --threads 3 --duration 300ms");
  BOOST_TEST(counted.exit_code == 0, counted.out + counted.err);
  BOOST_TEST(counted.out.find("not-idle") == std::string::npos, counted.out);
  ProcessResult old = run_rwstress(p + " --lock abi2-mutex --threads 3 --duration 300ms");
  BOOST_TEST(old.exit_code == 0, old.out + old.err);
}

BOOST_AUTO_TEST_CASE(malformed_plugins_get_one_line_and_exit_2) {
  const std::pair<const char*, const char*> cases[] = {
      {"bad_abi", "ABI 6 (this rwstress speaks ABI 1 to 5)"},
      {"bad_timeout_in_rwlock", "lock_timeout is for semaphores only"},
      {"bad_handoff_waiter", "handoff_waiter is for hand-off locks"},
      {"bad_fairness", "fairness 9 is none of"},
      {"bad_flags", "flags 0x80 has bits"},
      {"bad_controlled", "declares RWSTRESS_LOCK_CONTROLLED but does not export"},
      {"bad_name", "[a-z0-9._-]"},
      {"bad_duplicate", "the name is taken"},
      {"bad_twice", "lists this name twice"},
      {"bad_family", "family 7"},
      {"bad_shared_in_mutex", "for rwlocks only"},
      {"bad_missing_unlock", "lock and unlock are mandatory"},
      {"bad_init_fails", "init returned -22"},
      {"bad_no_symbol", "exports no rwstress_plugin_v1"},
      {"bad_empty", "lists no locks"},
      // What runs at load time runs in a child first: refused by name.
      {"bad_init_segv", "crashed: SIGSEGV"},
      {"bad_init_hang", "gave nothing within 10s"},
      {"bad_init_exit", "exited with status 0"},
      {"bad_ctor_segv", "crashed: SIGSEGV"},
      {"bad_ctor_exit", "exited with status 0"},
  };
  for (const auto& [name, why] : cases) {
    ProcessResult r = run_rwstress("--plugin " + plugin(name) + " --lock xadd --duration 100ms");
    BOOST_TEST(r.exit_code == 2, name);
    BOOST_TEST(lines(r.err) == 1, name << ": " << r.err);
    BOOST_TEST(r.err.find("--plugin " + plugin(name)) != std::string::npos, r.err);
    BOOST_TEST(r.err.find(why) != std::string::npos, name << ": " << r.err);
    BOOST_TEST(r.out.empty(), name << ": ran anyway");
  }
  for (const char* name : {"bad_init_segv", "bad_ctor_exit"}) {  // list and validate, too
    for (const std::string& cmd : {std::string(" list"), std::string(" validate --lock x --time 1s")}) {
      ProcessResult r = run_rwstress("--plugin " + plugin(name) + cmd);
      BOOST_TEST(r.exit_code == 2, name << cmd);
      BOOST_TEST(lines(r.err) == 1, name << cmd << ": " << r.err);
    }
  }
  ProcessResult missing = run_rwstress("--plugin /nonexistent/x.so list");
  BOOST_TEST(missing.exit_code == 2);
  BOOST_TEST(lines(missing.err) == 1, missing.err);
  // Not a shared object at all.
  ProcessResult text = run_rwstress("--plugin " + std::string(RWSTRESS_SOURCE_DIR) +
                                    "/README.md list");
  BOOST_TEST(text.exit_code == 2);
  BOOST_TEST(lines(text.err) == 1, text.err);
}

// explore: a plugin's lock is explorable when every access and sleep of it
// is a scheduling point. Plain C locks that mark their own points
// (<rwstress/explore.h>, examples/explore_locks.c) and a kernel-style lock
// built with the layer's points (-DRWSTRESS_KERNEL_EXPLORE) pass; their
// broken twins are found, and the printed replay line (which loads the
// plugin) replays the schedule step for step in a new process; under the
// memory model (--memory c11) the correct ones pass too; a plugin
// without points is refused in one line that says how to make it
// explorable; and the explore build runs as an ordinary plugin too.
BOOST_AUTO_TEST_CASE(explore_runs_plugins_that_mark_their_points) {
  struct Case {
    const char* so;
    const char* lock;
    const char* shape;
  };
  const auto npos = std::string::npos;
  for (const Case& c : {Case{"explore_locks", "explore-ticket", "--threads 3"},
                        Case{"explore_locks", "explore-futex", "--threads 3"},
                        Case{"explore_locks", "explore-adaptive", "--threads 4"},
                        Case{"kernel_semaphore_explore", "kernel-semaphore", "--threads 3 --count 1"}})
    for (const char* strategy :
         {"pct:depth=3", "exhaustive:preemptions=1", "random", "pct:depth=3 --memory c11"}) {
      ProcessResult r = run_rwstress("--plugin " + plugin(c.so) + " explore --lock " + c.lock + " " +
                                     c.shape + " --schedules 300 --strategy " + strategy);
      BOOST_TEST(r.exit_code == 0, c.lock << " " << strategy << ": " << r.out << r.err);
      BOOST_TEST(r.out.find(std::string(c.lock) + ": PASS") != npos, r.out);
    }
  for (const Case& c :
       {Case{"explore_locks_broken", "explore-ticket-broken", "--threads 3"},
        Case{"explore_locks_broken", "explore-futex-broken", "--threads 3"},
        // Past its stated spin bound only when denied again and again:
        // a random schedule shows it (PCT at depth 3 does not).
        Case{"explore_locks_broken", "explore-adaptive-broken", "--threads 4 --strategy random"},
        Case{"kernel_semaphore_broken_explore", "kernel-semaphore-broken", "--threads 3 --count 1"}}) {
    ProcessResult r = run_rwstress("--plugin " + plugin(c.so) + " explore --lock " + c.lock + " " +
                                   c.shape + " --schedules 2000");
    BOOST_TEST((r.exit_code != 0 && r.exit_code != 2), c.lock << ": " << r.out << r.err);
    BOOST_TEST(r.out.find("replayed 10 times: 10 the same step for step") != npos, r.out);
    const std::string line = replay_line(r.out);
    BOOST_REQUIRE_MESSAGE(!line.empty(), r.out);
    BOOST_TEST(line.rfind("--plugin " + plugin(c.so) + " explore --lock " + c.lock, 0) == 0, line);
    ProcessResult again = run_rwstress(line);
    BOOST_TEST(again.exit_code == r.exit_code, line << ": " << again.out << again.err);
    BOOST_TEST(again.out.find("the recorded schedule, step for step") != npos, again.out);
    if (std::string(c.lock) == "explore-adaptive-broken")
      BOOST_TEST(r.out.find("spin-bound (thread ") != npos, r.out);
  }
  // A plugin's stated spin bound (<rwstress/spin_bound.h>) is judged in
  // timed runs too: the adaptive mutex that never stops spinning fails
  // spin-bound, the one that sleeps after its turns passes.
  ProcessResult spins = run_rwstress("--plugin " + plugin("explore_locks_broken") +
                                     " --lock explore-adaptive-broken --threads 4 --duration 300ms");
  BOOST_TEST(spins.exit_code == 1, spins.out + spins.err);
  BOOST_TEST(spins.out.find("[spin-bound]") != npos, spins.out);
  BOOST_TEST(spins.out.find("more than its 2 busy-wait turns") != npos, spins.out);
  // The kernel-style lost wake-up, told in the layer's terms: the sleeper is
  // blocked on its own task's state, and the waker's try_to_wake_up read it
  // as still running.
  ProcessResult lost = run_rwstress("--plugin " + plugin("kernel_semaphore_broken_explore") +
                                    " explore --lock kernel-semaphore-broken --threads 3 --count 1"
                                    " --trace 40");
  BOOST_TEST(lost.out.find("deadlock: every unfinished thread is blocked") != npos, lost.out);
  BOOST_TEST(lost.out.find("task.__state at schedule(): asleep") != npos, lost.out);
  BOOST_TEST(lost.out.find("try_to_wake_up: its state") != npos, lost.out);

  const std::pair<const char*, const char*> refused[] = {
      {"plain_locks", "<rwstress/explore.h>"},
      {"kernel_semaphore", "-DRWSTRESS_KERNEL_EXPLORE"},
  };
  for (const auto& [so, why] : refused) {
    const std::string lock = std::string(so) == "plain_locks" ? "c-mutex" : "kernel-semaphore";
    ProcessResult r = run_rwstress("--plugin " + plugin(so) + " explore --lock " + lock +
                                   " --threads 2");
    BOOST_TEST(r.exit_code == 2, so << ": " << r.out << r.err);
    BOOST_TEST(lines(r.err) == 1, r.err);
    BOOST_TEST(r.err.find(why) != npos, r.err);
  }
  // A plugin built on a header older than host ABI 3 (its accesses do not
  // tell the memory model what they are): explored, but not under
  // --memory c11, which it refuses in one line.
  ProcessResult old = run_rwstress("--plugin " + plugin("explore_locks_abi2") +
                                   " explore --lock explore-ticket --threads 2 --schedules 50");
  BOOST_TEST(old.exit_code == 0, old.out + old.err);
  ProcessResult old_c11 = run_rwstress("--plugin " + plugin("explore_locks_abi2") +
                                       " explore --lock explore-ticket --threads 2 --memory c11");
  BOOST_TEST(old_c11.exit_code == 2, old_c11.out + old_c11.err);
  BOOST_TEST(lines(old_c11.err) == 1, old_c11.err);
  BOOST_TEST(old_c11.err.find("older than host ABI 3") != npos, old_c11.err);
  ProcessResult plain = run_rwstress("--plugin " + plugin("kernel_semaphore_explore") + " --plugin " +
                                     plugin("explore_locks") +
                                     " --lock kernel-semaphore,explore-ticket,explore-futex,"
                                     "explore-adaptive"
                                     " --threads 4 --count 1 --duration 300ms");
  BOOST_TEST(plain.exit_code == 0, plain.out + plain.err);
}

// A wake-up from another waker's wake_q (the kernel layer's wake_q_add()
// under explore: one of the schedule's spurious wake-ups). A kernel-style
// mutex that queues its waiter's wake-up before it publishes the grant
// (tests/plugins/kernel_time.c kwake-broken; rwsem.c's reader wake-up
// before 2018) is correct while the wake-up waits for the unlock's
// wake_up_q(), and loses it when the add fails and the other waker wakes
// the task at once: sampled and exhaustive searches find that (HANG),
// without spurious wake-ups none does; the trace shows the event and the
// replay line reruns it step for step. The correct twin passes.
BOOST_AUTO_TEST_CASE(explore_wakes_from_another_wake_q_find_a_wake_up_queued_too_early) {
  const auto npos = std::string::npos;
  const std::string broken = "--plugin " + plugin("kernel_time_broken_explore") +
                             " explore --lock kwake-broken --threads 2 ";
  const std::string correct =
      "--plugin " + plugin("kernel_time_explore") + " explore --lock kwake --threads 2 ";
  // (the exhaustive search takes no spurious wake-up unless told)
  for (const auto& [strategy, wakes] : {std::pair{"pct:depth=3", ""}, std::pair{"random", ""},
                                        std::pair{"exhaustive:preemptions=2", " --spurious-wakes 1"}}) {
    ProcessResult none =
        run_rwstress(broken + "--schedules 400 --spurious-wakes 0 --strategy " + strategy);
    BOOST_TEST(none.exit_code == 0, strategy << ": " << none.out << none.err);
    ProcessResult found =
        found_and_replayed(broken + "--schedules 2000 --strategy " + strategy + wakes, 3,
                           "(the task is on another waker's wake_q: woken now, not queued)");
    BOOST_TEST(found.out.find("kwake-broken: HANG at schedule") != npos, found.out);
    passed(correct + "--schedules 2000 --strategy " + strategy + wakes, "kwake");
  }
}

// Interrupts under explore: a reader-writer lock over per-CPU counts whose
// read holds a completion interrupt releases. Counted in with
// __this_cpu_inc() (a load and a store), an interrupt between the two that
// drops another reader's hold on this CPU is lost and the writer waits for
// good: found by every strategy once interrupts may arrive, never without,
// and by validate's one search that takes them; the interrupt-safe
// this_cpu_inc() passes the same searches (under c11 too) and validate.
BOOST_AUTO_TEST_CASE(explore_interrupts_find_a_per_cpu_count_an_interrupt_splits) {
  const auto npos = std::string::npos;
  const std::string shape = " --readers 2 --writers 1 ";
  const std::string broken =
      "--plugin " + plugin("kernel_time_broken_explore") + " explore --lock kirq-broken" + shape;
  const std::string correct =
      "--plugin " + plugin("kernel_time_explore") + " explore --lock kirq" + shape;
  for (const char* strategy : {"pct:depth=3", "random", "exhaustive:preemptions=2"}) {
    const std::string how = std::string("--strategy ") + strategy;
    ProcessResult none = run_rwstress(broken + how + " --schedules 400");
    BOOST_TEST(none.exit_code == 0, strategy << ": " << none.out << none.err);
    ProcessResult found = run_rwstress(broken + how + " --schedules 3000 --interrupts 1");
    BOOST_TEST(found.exit_code != 0, strategy << ": " << found.out << found.err);
    BOOST_TEST(found.exit_code != 2, strategy << ": " << found.out << found.err);
    BOOST_TEST(found.out.find("kirq-broken: PASS") == npos, found.out);
    BOOST_TEST(found.out.find("(an interrupt arrives on this CPU: its handler runs next)") != npos,
               found.out);
    BOOST_TEST(found.out.find("+irq:") != npos, found.out);
    BOOST_REQUIRE_MESSAGE(!replay_line(found.out).empty(), found.out);
    ProcessResult again = run_rwstress(replay_line(found.out));
    BOOST_TEST(again.exit_code == found.exit_code, again.out + again.err);
    BOOST_TEST(again.out.find("(the recorded schedule, step for step") != npos, again.out);
    ProcessResult pass =
        passed(correct + how + " --schedules 3000 --interrupts 1 --memory c11", "kirq");
    BOOST_TEST(pass.out.find("changed nothing") == npos, pass.out);  // (its releases were)
  }
  // validate's exploration stage has a search that takes interrupts: it
  // alone finds the broken twin; the correct one passes the whole stage.
  ProcessResult validated = run_rwstress("--plugin " + plugin("kernel_time_broken_explore") +
                                         " validate --lock kirq-broken --time 8s");
  BOOST_TEST(validated.exit_code == 3, validated.out + validated.err);
  BOOST_TEST(validated.out.find("exploration: 1 of 11 runs did not PASS") != npos, validated.out);
  BOOST_TEST(validated.out.find("pct:depth=3 2R+1W interrupts         HANG") != npos, validated.out);
  ProcessResult clean = run_rwstress("--plugin " + plugin("kernel_time_explore") +
                                     " validate --lock kirq --time 8s");
  BOOST_TEST(clean.exit_code == 0, clean.out + clean.err);
  BOOST_TEST(clean.out.find("exploration: all 11 runs PASS") != npos, clean.out);
  // A lock that gives an interrupt handler no work is told so.
  ProcessResult idle = run_rwstress("--plugin " + plugin("kernel_time_explore") +
                                    " explore --lock kwake --threads 2 --schedules 50 "
                                    "--interrupts 1");
  BOOST_TEST(idle.exit_code == 0, idle.out + idle.err);
  BOOST_TEST(idle.out.find("--interrupts 1 changed nothing") != npos, idle.out);
  // In-tree locks have no interrupt context: refused in one line.
  ProcessResult refused = run_rwstress("explore --lock ticket --threads 2 --interrupts 1");
  BOOST_TEST(refused.exit_code == 2, refused.out + refused.err);
  BOOST_TEST(refused.err.find("gives an interrupt handler no work") != npos, refused.err);
}

// explore's check that a writer has every earlier read hold in view
// (--memory c11): a reader that leaves with a relaxed decrement is an
// ordering FAIL under each strategy, in the check's words, and its replay
// line replays it; the same lock leaving with a release passes; without
// the memory model nothing shows (no value can be read early).
BOOST_AUTO_TEST_CASE(explore_finds_a_writer_not_ordered_after_a_read_hold) {
  const std::string shape = " --readers 2 --writers 1 ";
  const std::string broken = "--plugin " + plugin("kernel_time_broken_explore") +
                             " explore --lock kreadrel-broken" + shape;
  const std::string correct =
      "--plugin " + plugin("kernel_time_explore") + " explore --lock kreadrel" + shape;
  ProcessResult plain = run_rwstress(broken + "--schedules 500");
  BOOST_TEST(plain.exit_code == 0, plain.out + plain.err);
  for (const char* strategy : {"pct:depth=3", "random", "exhaustive:preemptions=2"}) {
    const std::string how = std::string("--strategy ") + strategy + " --memory c11";
    found_and_replayed(broken + how + " --schedules 2000", 1,
                       "'s last read hold in view: nothing orders that reader's release");
    passed(correct + how + " --schedules 2000", "kreadrel");
  }
}

// lockdep's interrupt-state rule: a semaphore whose up() is made in an
// interrupt handler and whose down() takes the same spinlock with
// interrupts on is an inconsistent lock state (a lock-order FAIL naming
// both uses), under each strategy, once handlers run (--interrupts); taken
// with interrupts off everywhere it PASSes; without interrupts nothing
// shows.
BOOST_AUTO_TEST_CASE(a_lock_taken_in_a_handler_and_with_interrupts_on_is_inconsistent) {
  const auto npos = std::string::npos;
  const std::string shape = " --threads 3 --count 1 ";
  const std::string broken =
      "--plugin " + plugin("kernel_time_broken_explore") + " explore --lock ksemirq-broken" + shape;
  const std::string correct =
      "--plugin " + plugin("kernel_time_explore") + " explore --lock ksemirq" + shape;
  ProcessResult none = run_rwstress(broken + "--schedules 300");
  BOOST_TEST(none.exit_code == 0, none.out + none.err);
  for (const char* strategy : {"pct:depth=3", "random", "exhaustive:preemptions=2"}) {
    const std::string how = std::string("--strategy ") + strategy + " --interrupts 1";
    ProcessResult found =
        found_and_replayed(broken + how + " --schedules 500", 1, "inconsistent lock state: ");
    BOOST_TEST(found.out.find("was taken in an interrupt handler") != npos, found.out);
    BOOST_TEST(found.out.find("and in task context with interrupts on") != npos, found.out);
    passed(correct + how + " --schedules 500", "ksemirq");
  }
}

// lockdep's indirect rule: a spinlock taken in up()'s handler ordered
// before a statistics spinlock taken elsewhere with interrupts on (neither
// ever taken both ways) is a lock-order FAIL naming the chain and both
// uses, once handlers run; the statistics lock taken with interrupts off
// everywhere PASSes; without interrupts nothing shows.
BOOST_AUTO_TEST_CASE(an_interrupt_safe_lock_ordered_before_an_unsafe_one_is_reported) {
  const auto npos = std::string::npos;
  const std::string shape = " --threads 3 --count 1 ";
  const std::string broken = "--plugin " + plugin("kernel_time_broken_explore") +
                             " explore --lock kirqorder-broken" + shape;
  const std::string correct =
      "--plugin " + plugin("kernel_time_explore") + " explore --lock kirqorder" + shape;
  ProcessResult none = run_rwstress(broken + "--schedules 300");
  BOOST_TEST(none.exit_code == 0, none.out + none.err);
  for (const char* strategy : {"pct:depth=3", "exhaustive:preemptions=2"}) {
    const std::string how = std::string("--strategy ") + strategy + " --interrupts 1";
    ProcessResult found = found_and_replayed(
        broken + how + " --schedules 500", 1,
        "an interrupt-safe lock ordered before an interrupt-unsafe one: ");
    BOOST_TEST(found.out.find("&l->lock (kernel_time.c:") != npos, found.out);
    BOOST_TEST(found.out.find("-> &l->stats (kernel_time.c:") != npos, found.out);
    BOOST_TEST(found.out.find("in task context with interrupts on") != npos, found.out);
    BOOST_TEST(found.out.find("inconsistent lock state") == npos, found.out);
    passed(correct + how + " --schedules 500", "kirqorder");
  }
}

// The lock-order checker: two spin locks taken in both orders (under an
// outer lock, so the run never deadlocks) are a cycle of lock classes,
// reported in the first explore schedule and in a timed run, with both
// orders and where each was taken; the same locks in one order PASS. A
// semaphore that wakes its waiter under its own lock closes a cycle with
// the scheduler's locks (pi_lock, a run-queue lock, console_sem's lock
// under it: the kernel's orders, modelled); woken after the unlock, it
// PASSes.
BOOST_AUTO_TEST_CASE(lock_order_checker_fires_on_a_cycle_and_stays_quiet_on_one_order) {
  const auto npos = std::string::npos;
  const std::string broken = "--plugin " + plugin("kernel_time_broken_explore") + " ";
  const std::string correct = "--plugin " + plugin("kernel_time_explore") + " ";

  ProcessResult first = run_rwstress(broken + "explore --lock korder-broken --threads 2");
  BOOST_TEST(first.exit_code == 1, first.out << first.err);
  BOOST_TEST(first.out.find("korder-broken: FAIL at schedule 1 ") != npos, first.out);
  BOOST_TEST(first.out.find("lock-order (thread ") != npos, first.out);
  BOOST_TEST(first.out.find("a cycle of lock classes") != npos, first.out);
  BOOST_TEST(first.out.find("took &l->a at kernel_time.c:") != npos, first.out);
  BOOST_TEST(first.out.find("took &l->b at kernel_time.c:") != npos, first.out);
  BOOST_REQUIRE_MESSAGE(!replay_line(first.out).empty(), first.out);
  ProcessResult again = run_rwstress(replay_line(first.out));
  BOOST_TEST(again.exit_code == 1, again.out + again.err);
  BOOST_TEST(again.out.find("lock-order") != npos, again.out);

  for (const char* how : {"--strategy pct:depth=3 --schedules 1000",
                          "--strategy exhaustive:preemptions=1 --schedules 3000"}) {
    ProcessResult pass =
        run_rwstress(correct + "explore --lock korder --threads 3 " + std::string(how));
    BOOST_TEST(pass.exit_code == 0, how << ": " << pass.out << pass.err);
    BOOST_TEST(pass.out.find("korder: PASS") != npos, pass.out);
  }

  ProcessResult timed = run_rwstress(broken + "--lock korder-broken --threads 4 --duration 1s");
  BOOST_TEST(timed.exit_code == 1, timed.out << timed.err);
  BOOST_TEST(timed.out.find("[lock-order]") != npos, timed.out);
  // (--no-check: the checker is off, as every other is)
  ProcessResult unchecked =
      run_rwstress(broken + "--lock korder-broken --threads 4 --duration 1s --no-check");
  BOOST_TEST(unchecked.exit_code == 0, unchecked.out << unchecked.err);
  for (int round = 0; round < 3; ++round) {
    ProcessResult ok = run_rwstress(correct + "--lock korder --threads 4 --duration 1s");
    BOOST_TEST(ok.exit_code == 0, ok.out << ok.err);
  }

  ProcessResult sem = run_rwstress(broken + "explore --lock ksema-broken --threads 3");
  BOOST_TEST(sem.exit_code == 1, sem.out << sem.err);
  BOOST_TEST(sem.out.find("semaphore->lock -> &p->pi_lock -> &rq->__lock -> semaphore->lock") !=
                 npos,
             sem.out);
  BOOST_TEST(sem.out.find("woke a task at kernel_time.c:") != npos, sem.out);
  BOOST_TEST(sem.out.find("console_sem") != npos, sem.out);
  ProcessResult sem_timed =
      run_rwstress(broken + "--lock ksema-broken --threads 4 --duration 1s");
  BOOST_TEST(sem_timed.exit_code == 1, sem_timed.out << sem_timed.err);
  BOOST_TEST(sem_timed.out.find("[lock-order]") != npos, sem_timed.out);
  for (const char* how : {"explore --lock ksema --threads 3 --schedules 1000",
                          "--lock ksema --threads 4 --duration 1s"}) {
    ProcessResult ok = run_rwstress(correct + how);
    BOOST_TEST(ok.exit_code == 0, how << ": " << ok.out << ok.err);
  }
}

// A release that returns with a spin lock still held (lockdep's "lock held
// when returning to user space") is a lock-warning naming the release, the
// lock and where it was taken; a release that drops everything is quiet.
BOOST_AUTO_TEST_CASE(a_release_that_returns_holding_a_spin_lock_is_a_lock_warning) {
  const auto npos = std::string::npos;
  const std::string broken = "--plugin " + plugin("kernel_time_broken_explore") + " ";
  const std::string correct = "--plugin " + plugin("kernel_time_explore") + " ";
  for (const char* how : {"explore --lock kleak-broken --threads 2",
                          "--lock kleak-broken --threads 2 --duration 500ms"}) {
    ProcessResult r = run_rwstress(broken + how);
    BOOST_TEST(r.exit_code == 1, how << ": " << r.out << r.err);
    BOOST_TEST(r.out.find("lock-warning") != npos, r.out);
    BOOST_TEST(r.out.find("kleak_unlock() returned with 1 spin lock held: &kleak_stats "
                          "(kernel_time.c:") != npos,
               r.out);
  }
  for (const char* how : {"explore --lock kleak --threads 2 --schedules 500",
                          "--lock kleak --threads 2 --duration 500ms"}) {
    ProcessResult r = run_rwstress(correct + how);
    BOOST_TEST(r.exit_code == 0, how << ": " << r.out << r.err);
  }
}

// A lock that crashes under explore takes its process with it: the
// handler prints the schedule and a replay line (which crashes the same
// way). With --outcome the search runs in a process of its own (or split
// among several), so the outcome still says CRASH, at which schedule, and
// how many schedules ran; without it the exit code is CRASH's all the same.
BOOST_AUTO_TEST_CASE(explore_reports_a_crash_with_its_replay_line_and_its_count) {
  const auto npos = std::string::npos;
  const std::string base = "--plugin " + plugin("kernel_time_broken_explore") +
                           " explore --lock kcrash-contended --threads 2 --schedules 500 ";
  const std::string json = "/tmp/rwstress_crash_" + std::to_string(getpid()) + ".json";
  for (const char* how : {"--strategy random", "--strategy random --jobs 2",
                          "--strategy exhaustive:preemptions=1"}) {
    ProcessResult plain = run_rwstress(base + how);
    BOOST_TEST(plain.exit_code == 4, how << ": " << plain.out << plain.err);
    std::remove(json.c_str());
    ProcessResult r = run_rwstress(base + how + " --outcome " + json);
    BOOST_TEST(r.exit_code == 4, how << ": " << r.out << r.err);
    BOOST_TEST(r.out.find("kcrash-contended: CRASH (SIGSEGV) at schedule ") != npos, r.out);
    BOOST_TEST(r.out.find("the lock's code crashed under this schedule") != npos, r.out);
    const nlohmann::json doc = nlohmann::json::parse(test::slurp(json), nullptr, false);
    BOOST_REQUIRE_MESSAGE(doc.is_object() && doc.contains("runs") && doc["runs"].size() == 1,
                          how << ": " << test::slurp(json));
    const nlohmann::json& run = doc["runs"][0];
    BOOST_TEST(run.value("verdict", "") == "CRASH", how << ": " << run.dump());
    BOOST_TEST(doc.value("exit_code", 0) == 4, doc.dump());
    const std::uint64_t found_at = run.value("found_at", std::uint64_t(0));
    const std::uint64_t schedules = run.value("schedules", std::uint64_t(0));
    BOOST_TEST(found_at >= 2u, run.dump());  // (schedule 1 runs the threads one after the other)
    BOOST_TEST(schedules >= 1u, run.dump());
    BOOST_TEST(r.out.find("kcrash-contended: CRASH at schedule " + std::to_string(found_at) +
                          ", after " + std::to_string(schedules) + " schedule") != npos,
               r.out);
    const std::string replay = run.value("replay", "");
    BOOST_TEST(replay.find(" --replay ") != npos, run.dump());
    BOOST_TEST(r.out.find("  replay: rwstress " + replay + "\n") != npos, replay << "\n" << r.out);
    BOOST_REQUIRE_MESSAGE(!replay_line(r.out).empty(), r.out);
    ProcessResult again = run_rwstress(replay_line(r.out));
    BOOST_TEST(again.exit_code == 4, again.out + again.err);
    BOOST_TEST(again.out.find("kcrash-contended: CRASH (SIGSEGV)") != npos, again.out);
  }
  std::remove(json.c_str());
}

// Time as a choice (explore --time-jumps): a kernel-style lock whose bug
// waits for 4 jiffies (tests/plugins/kernel_time.c), as rwsem.c's HANDOFF
// waits for RWSEM_WAIT_TIMEOUT. Steps of a microsecond never get there:
// without jumps explore passes it, sampled or exhaustive; with one jump
// at its jiffies read it fails (two holders), the trace shows the jump,
// and the replay line reruns it step for step. The correct twin passes
// with jumps; a lock that reads no clock refuses the option in one line.
BOOST_AUTO_TEST_CASE(explore_time_jumps_reach_code_that_waits_for_time) {
  const auto npos = std::string::npos;
  const std::string broken =
      "--plugin " + plugin("kernel_time_broken_explore") + " explore --lock ktime-spin-broken ";
  for (const char* strategy : {"pct:depth=3", "random", "exhaustive:preemptions=1"}) {
    ProcessResult none =
        run_rwstress(broken + "--threads 3 --schedules 400 --strategy " + strategy);
    BOOST_TEST(none.exit_code == 0, strategy << ": " << none.out << none.err);
    ProcessResult jumps = run_rwstress(broken + "--threads 3 --schedules 400 --time-jumps 1 --strategy " +
                                       strategy);
    BOOST_TEST(jumps.exit_code == 1, strategy << ": " << jumps.out << jumps.err);
    BOOST_TEST(jumps.out.find("(time jumps: +20ms, jiffies +20)") != npos, jumps.out);
    BOOST_TEST(jumps.out.find(":sc+jumps:") != npos, jumps.out);  // the code says time could jump
    BOOST_TEST(jumps.out.find("replayed 10 times: 10 the same step for step") != npos, jumps.out);
    BOOST_REQUIRE_MESSAGE(!replay_line(jumps.out).empty(), jumps.out);
    ProcessResult again = run_rwstress(replay_line(jumps.out));
    BOOST_TEST(again.exit_code == 1, again.out << again.err);
    BOOST_TEST(again.out.find("the recorded schedule, step for step") != npos, again.out);
  }
  // How long a jump is matters: 2 ms is not past 4 jiffies, 5 ms is (the
  // search completes and passes the first; the replay line carries the
  // length of the second).
  ProcessResult two_ms = run_rwstress(
      broken + "--threads 2 --strategy exhaustive:preemptions=1 --time-jumps 1 --time-jump 2ms");
  BOOST_TEST(two_ms.exit_code == 0, two_ms.out << two_ms.err);
  BOOST_TEST(two_ms.out.find("complete") != npos, two_ms.out);
  ProcessResult five_ms = run_rwstress(
      broken + "--threads 2 --strategy exhaustive:preemptions=1 --time-jumps 1 --time-jump 5ms");
  BOOST_TEST(five_ms.exit_code == 1, five_ms.out << five_ms.err);
  BOOST_TEST(five_ms.out.find("--time-jump 5ms") != npos, five_ms.out);
  for (const char* strategy : {"pct:depth=3", "random", "exhaustive:preemptions=2"}) {
    ProcessResult ok = run_rwstress("--plugin " + plugin("kernel_time_explore") +
                                    " explore --lock ktime-spin --threads 3 --schedules 400"
                                    " --time-jumps 2 --strategy " + strategy);
    BOOST_TEST(ok.exit_code == 0, strategy << ": " << ok.out << ok.err);
  }
  ProcessResult refused = run_rwstress("explore --lock ticket --time-jumps 1");
  BOOST_TEST(refused.exit_code == 2, refused.out + refused.err);
  BOOST_TEST(lines(refused.err) == 1, refused.err);
  BOOST_TEST(refused.err.find("reads no clock") != npos, refused.err);
}

// validate: the battery passes a correct lock, built-in or plugin, and
// catches a broken one with the replay line of each scenario it failed.
BOOST_AUTO_TEST_CASE(validate_passes_correct_locks_and_catches_broken_ones) {
  ProcessResult ok = run_rwstress("validate --lock xadd --time 5s");
  BOOST_TEST(ok.exit_code == 0, ok.out + ok.err);
  BOOST_TEST(ok.out.find("validate xadd: all 39 scenarios PASS; exploration: all 10 runs PASS "
                         "(exhaustive: 1 of 1 complete)") != std::string::npos,
             ok.out);
  for (const char* row : {"inject before-sleep", "trylock+downgrade heavy", "1 CPU", "scatter placement"})
    BOOST_TEST(ok.out.find(row) != std::string::npos, row);

  ProcessResult plugins = run_rwstress("--plugin " + plugin("plain_locks") +
                                       " validate --lock c-rwlock,c-mutex,c-semaphore --time 4s");
  BOOST_TEST(plugins.exit_code == 0, plugins.out + plugins.err);
  for (const char* lock : {"c-rwlock", "c-mutex", "c-semaphore"})
    BOOST_TEST(plugins.out.find(std::string("validate ") + lock + ": all") != std::string::npos,
               plugins.out);
  BOOST_TEST(plugins.out.find("exploration not run: the plugin does not mark its scheduling "
                              "points") != std::string::npos,
             plugins.out);

  ProcessResult broken = run_rwstress("--plugin " + plugin("broken_locks") +
                                      " validate --lock c-rwlock-broken --time 4s --watchdog 1s");
  BOOST_TEST(broken.exit_code == 1, broken.out + broken.err);
  BOOST_TEST(broken.out.find("scenarios did not PASS (first after ") != std::string::npos, broken.out);
  BOOST_TEST(broken.out.find("; replay each with:") != std::string::npos, broken.out);
  BOOST_TEST(broken.out.find("rwstress --plugin " + plugin("broken_locks") +
                             " --lock c-rwlock-broken") != std::string::npos, broken.out);

  ProcessResult hang = run_rwstress("validate --lock busted-lost-wakeup --time 3s --watchdog 1s");
  BOOST_TEST(hang.exit_code == 3, hang.out + hang.err);  // HANG, under sleep@before-sleep
  BOOST_TEST(hang.out.find("inject before-sleep          HANG") != std::string::npos, hang.out);
}

// The kernel-compat layer (include/rwstress/kernel.h): the kernel-style
// examples, written in the shape of kernel/locking/semaphore.c and qrwlock.c,
// pass; their broken twins are caught; injection reaches inside them.
BOOST_AUTO_TEST_CASE(kernel_style_plugins_pass_and_their_broken_twins_are_caught) {
  const std::string both = "--plugin " + plugin("kernel_semaphore") + " --plugin " +
                           plugin("kernel_qrwlock");
  for (const char* shape : {"--readers 2 --writers 1", "--readers 4 --writers 2 --sched"}) {
    ProcessResult r = run_rwstress(both + " --lock kernel-semaphore,kernel-qrwlock,kernel-qspinlock"
                                          " --duration 300ms " + shape);
    BOOST_TEST(r.exit_code == 0, r.out + r.err);
  }
  // after-enqueue and before-sleep are the layer's set_current_state and
  // schedule(): the injector fires inside the plugin's slow path.
  ProcessResult inj = run_rwstress(both + " --lock kernel-semaphore --threads 4 --count 1"
                                          " --duration 500ms --inject "
                                          "'delay@after-enqueue+before-sleep+before-wake:p=0.5,fixed(5us)'");
  BOOST_TEST(inj.exit_code == 0, inj.out + inj.err);
  for (const char* point : {"after-enqueue", "before-sleep", "before-wake"}) {
    const std::string fired = std::string(" at ") + point + ": fired ";
    const std::size_t at = inj.out.find(fired);
    BOOST_TEST(at != std::string::npos, point << " in " << inj.out);
    if (at != std::string::npos) BOOST_TEST(inj.out.compare(at + fired.size(), 2, "0 ") != 0);
  }

  ProcessResult rw = run_rwstress("--plugin " + plugin("kernel_qrwlock_broken") +
                                  " --lock kernel-qrwlock-broken --duration 1 --cs-read 200");
  BOOST_TEST(rw.exit_code == 1, rw.out + rw.err);
  BOOST_TEST(rw.out.find("writer-exclusion") != std::string::npos, rw.out);
  // The waiter that sets its state after dropping the lock: a wake-up lost
  // in the after-enqueue window (validate's after-enqueue schedule).
  ProcessResult sem = run_rwstress("--plugin " + plugin("kernel_semaphore_broken") +
                                   " --lock kernel-semaphore-broken --threads 4 --count 1"
                                   " --duration 2 --watchdog 1s --inject "
                                   "'delay@after-enqueue+mid-release:p=0.01,fixed(20us)'");
  BOOST_TEST(sem.exit_code == 3, sem.out + sem.err);  // HANG
}

// Each rule the layer checks fires, as a lock-warning violation naming the
// file and line, on a lock that breaks only that rule; a lock that uses
// every check and breaks none passes.
BOOST_AUTO_TEST_CASE(kernel_layer_checks_fire_on_the_rule_broken_and_stay_quiet_otherwise) {
  const std::string p = "--plugin " + plugin("kernel_checks");
  const std::pair<const char*, const char*> cases[] = {
      {"kcheck-sleep-in-spin", "schedule() with a spin lock held"},
      {"kcheck-sleep-in-spin", "might_sleep() with a spin lock held"},
      {"kcheck-lockdep", "lockdep_assert_held(&k->inner) and it is not held"},
      {"kcheck-warn-on", "WARN_ON(k->holders == 0)"},
      {"kcheck-wrong-owner", "raw_spin_unlock() of a spin lock this thread does not hold"},
      {"kcheck-sleep-in-rcu",
       "schedule() with preemption disabled or inside an RCU read-side critical section"},
  };
  for (const auto& [lock, says] : cases) {
    ProcessResult r = run_rwstress(p + " --lock " + lock + " --threads 4 --duration 300ms");
    BOOST_TEST(r.exit_code == 1, lock << ": " << r.out + r.err);
    BOOST_TEST(r.out.find("[lock-warning]") != std::string::npos, lock << ": " << r.out);
    BOOST_TEST(r.out.find("kernel_checks.c:") != std::string::npos, lock << ": " << r.out);
    BOOST_TEST(r.out.find(says) != std::string::npos, lock << ": " << r.out);
  }
  // kcheck-bitlock: a bit spinlock on the layer's bitops, with a delay;
  // kcheck-wake-state: state-matched wake-ups, on_cpu, signal_pending_state;
  // kcheck-percpu: per-CPU sums over nr_cpu_ids, the run's slots.
  // kcheck-rcu: grace periods (synchronize_rcu, call_rcu) wait for the
  // preempt_disable() sections begun before them.
  ProcessResult clean = run_rwstress(p + " --lock kcheck-clean,kcheck-bitlock,kcheck-wake-state,"
                                         "kcheck-percpu,kcheck-rcu --threads 4 --duration 300ms");
  BOOST_TEST(clean.exit_code == 0, clean.out + clean.err);
  BOOST_TEST(clean.out.find("lock-warning") == std::string::npos, clean.out);
  // kcheck-rt: the layer's rt_task(current) is the thread's own SCHED_FIFO,
  // normal threads and real-time ones alike (--rt-threads; without it,
  // none), where this process may use SCHED_FIFO.
  if (test::may_use_sched_fifo()) {
    for (const char* rt : {" --rt-threads 2", " --writer-fifo", ""}) {
      ProcessResult r = run_rwstress(p + " --lock kcheck-rt --threads 3 --duration 300ms" + rt);
      BOOST_TEST(r.exit_code == 0, rt << ": " << r.out + r.err);
      BOOST_TEST(r.out.find("lock-warning") == std::string::npos, rt << ": " << r.out);
      BOOST_TEST((r.out.find("real-time: thread") != std::string::npos) == (*rt != '\0'), r.out);
    }
  }
  // --nested-locks over a lock that is a spin lock held across its hold:
  // the nested instances are lock classes of their own (no recursion of one
  // class), and a release that returns to the harness's outer instances
  // returns holding only them (no "returned with spin locks held"). But a
  // lock that may sleep before it spins (kcheck-clean's might_sleep())
  // does sleep under an outer instance's spin lock, which the kernel
  // forbids: that is still said, and nothing else is. And a lock that is
  // correct only one instance at a time (kcheck-percpu sums a count shared
  // by every instance under its own instance's lock) is found.
  ProcessResult nested = run_rwstress(p + " --lock kcheck-rt,kcheck-wake-state,kcheck-bitlock "
                                          "--threads 3 --nested-locks 4 --duration 300ms");
  BOOST_TEST(nested.exit_code == 0, nested.out + nested.err);
  BOOST_TEST(nested.out.find("lock-warning") == std::string::npos, nested.out);
  ProcessResult shared = run_rwstress(p + " --lock kcheck-percpu --threads 3 --nested-locks 4 "
                                          "--duration 300ms");
  BOOST_TEST(shared.exit_code == 1, shared.out + shared.err);
  BOOST_TEST(shared.out.find("lock-warning") != std::string::npos, shared.out);
  ProcessResult sleeps = run_rwstress(p + " --lock kcheck-clean --threads 3 --nested-locks 4 "
                                          "--duration 300ms");
  BOOST_TEST(sleeps.exit_code == 1, sleeps.out + sleeps.err);
  BOOST_TEST(sleeps.out.find("might_sleep() with a spin lock held") != std::string::npos, sleeps.out);
  BOOST_TEST(sleeps.out.find("lock-order") == std::string::npos, sleeps.out);
  BOOST_TEST(sleeps.out.find("returned with") == std::string::npos, sleeps.out);
  // The signal injector wakes a killable sleep, and only a killable one,
  // with a signal pending (kcheck-signal's WARN_ONs say otherwise).
  ProcessResult signalled = run_rwstress(p + " --lock kcheck-signal --threads 2 --duration 300ms"
                                             " --inject signal:p=1");
  BOOST_TEST(signalled.exit_code == 0, signalled.out + signalled.err);
  BOOST_TEST(signalled.out.find("signal@before-sleep:p=1 at before-sleep: fired") !=
                 std::string::npos, signalled.out);
  BOOST_TEST(signalled.out.find("lock-warning") == std::string::npos, signalled.out);
  // need_resched() under the resched injector: a spinner that asks and
  // spins on is a soft lockup, with where it spun; one that reschedules
  // when told is not.
  ProcessResult lockup = run_rwstress(p + " --lock kcheck-soft-lockup --threads 2 --duration 300ms"
                                          " --inject resched:p=1");
  BOOST_TEST(lockup.exit_code == 1, lockup.out + lockup.err);
  BOOST_TEST(lockup.out.find("soft lockup: still spinning") != std::string::npos, lockup.out);
  BOOST_TEST(lockup.out.find("kernel_checks.c:") != std::string::npos, lockup.out);
  ProcessResult obeys = run_rwstress(p + " --lock kcheck-resched --threads 2 --duration 300ms"
                                         " --inject resched:p=1");
  BOOST_TEST(obeys.exit_code == 0, obeys.out + obeys.err);
  BOOST_TEST(obeys.out.find("resched@need-resched:p=1 at need-resched: fired") != std::string::npos,
             obeys.out);
}

// A killed task goes away (the host's killed()) until the others make
// progress: a bail-out path that drops the wake-up the unlock gave it
// leaves the lock free and the other thread asleep, a HANG, where the
// killed task's own immediate retry used to heal it (measured: 3 of 3 runs
// PASSed so). The correct bail-out passes the same schedule; with
// --killable-every 0 no acquisition is killable and the broken one passes
// too; validate's battery catches it with its default settings.
BOOST_AUTO_TEST_CASE(a_killed_waiter_that_drops_its_wake_up_hangs_the_others) {
  const std::string p = "--plugin " + plugin("kernel_checks");
  const std::string schedule =
      " --threads 2 --duration 1s --watchdog 1s --inject signal:p=0.5"
      " --inject 'delay@after-wake:p=1,fixed(500us)'";
  ProcessResult broken = run_rwstress(p + " --lock kcheck-eintr-nowake --killable-every 1" + schedule);
  BOOST_TEST(broken.exit_code == 3, broken.out + broken.err);  // HANG
  BOOST_TEST(broken.out.find("away (killed in its acquisition") != std::string::npos, broken.out);
  ProcessResult correct = run_rwstress(p + " --lock kcheck-eintr --killable-every 1" + schedule);
  BOOST_TEST(correct.exit_code == 0, correct.out + correct.err);
  ProcessResult never = run_rwstress(p + " --lock kcheck-eintr-nowake --killable-every 0" + schedule);
  BOOST_TEST(never.exit_code == 0, never.out + never.err);
  BOOST_TEST(never.out.find("--killable-every 0") != std::string::npos, never.out);
  ProcessResult v = run_rwstress(p + " validate --lock kcheck-eintr,kcheck-eintr-nowake --time 15s --watchdog 2s");
  BOOST_TEST(v.exit_code == 3, v.out + v.err);
  BOOST_TEST(v.out.find("validate kcheck-eintr: all") != std::string::npos, v.out);
  BOOST_TEST(v.out.find("combo killed after wake      HANG") != std::string::npos, v.out);
}

BOOST_AUTO_TEST_CASE(validate_passes_the_kernel_style_examples) {
  ProcessResult r = run_rwstress("--plugin " + plugin("kernel_semaphore") + " --plugin " +
                                 plugin("kernel_qrwlock") +
                                 " validate --lock kernel-semaphore,kernel-qrwlock --time 6s");
  BOOST_TEST(r.exit_code == 0, r.out + r.err);
  for (const char* lock : {"kernel-semaphore", "kernel-qrwlock"})
    BOOST_TEST(r.out.find(std::string("validate ") + lock + ": all") != std::string::npos, r.out);
}

// A plugin lock that crashes mid-run is a CRASH run, in its own child
// process; the locks run before and after it keep their results, on the
// console and in --json, and the exit code is 4.
BOOST_AUTO_TEST_CASE(a_crashing_plugin_lock_is_a_crash_run_and_the_others_are_kept) {
  const std::string json = "/tmp/rwstress_plugins_" + std::to_string(getpid()) + ".json";
  ProcessResult r = run_rwstress("--plugin " + plugin("plain_locks") + " --plugin " +
                                 plugin("crashing_plugin") +
                                 " --lock c-mutex,crash-segv,crash-abort,c-semaphore --threads 4"
                                 " --duration 300ms --json " + json);
  BOOST_TEST(r.exit_code == 4, r.out + r.err);
  BOOST_TEST(r.out.find("plugin lock crash-segv crashed the run: SIGSEGV") != std::string::npos,
             r.out);
  BOOST_TEST(r.out.find("plugin lock crash-abort crashed the run: SIGABRT") != std::string::npos,
             r.out);
  const nlohmann::json doc = nlohmann::json::parse(slurp(json));
  std::remove(json.c_str());
  std::map<std::string, std::string> verdicts;
  for (const auto& run : doc.at("runs")) verdicts[run.at("lock")] = run.at("verdict");
  BOOST_TEST(verdicts.size() == 4u);
  BOOST_TEST(verdicts["c-mutex"] == "PASS");
  BOOST_TEST(verdicts["c-semaphore"] == "PASS");
  BOOST_TEST(verdicts["crash-segv"] == "CRASH");
  BOOST_TEST(verdicts["crash-abort"] == "CRASH");
  // An isolated run is the run itself: a broken plugin lock still FAILs
  // with its violations (they came back through the pipe).
  ProcessResult broken = run_rwstress("--plugin " + plugin("broken_locks") +
                                      " --lock c-mutex-broken --threads 4 --duration 300ms");
  BOOST_TEST(broken.exit_code == 1, broken.out + broken.err);
  BOOST_TEST(broken.out.find("writer-exclusion") != std::string::npos, broken.out);
}

// A lock that calls exit() mid-run has ended the run as surely as a
// SIGSEGV: CRASH in the main run and in validate alike; and a run's result
// counts when it arrives, even with a descendant still holding the pipe.
BOOST_AUTO_TEST_CASE(an_exiting_lock_is_a_crash_everywhere_and_a_lingering_grandchild_is_no_hang) {
  ProcessResult run = run_rwstress("--plugin " + plugin("crashing_plugin") +
                                   " --lock exit-200 --threads 2 --duration 200ms");
  BOOST_TEST(run.exit_code == 4, run.out + run.err);
  BOOST_TEST(run.out.find("exited with status 0 and no readable result") != std::string::npos, run.out);
  ProcessResult val = run_rwstress("--plugin " + plugin("crashing_plugin") +
                                   " validate --lock exit-200 --time 3s");
  BOOST_TEST(val.exit_code == 4, val.out + val.err);
  BOOST_TEST(val.out.find(" HANG") == std::string::npos, val.out);
  const auto t0 = std::chrono::steady_clock::now();
  ProcessResult fork = run_rwstress("--plugin " + plugin("crashing_plugin") +
                                    " --lock fork-sleeper --threads 2 --duration 200ms");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  BOOST_TEST(fork.exit_code == 0, fork.out + fork.err);
  BOOST_TEST(took < 20.0, "took " << took << "s");
}

// A semaphore without down_trylock that loses a unit: the after-run check
// takes the units with down() and says how many are left.
BOOST_AUTO_TEST_CASE(a_semaphore_that_loses_a_unit_is_units_lost) {
  ProcessResult r = run_rwstress("--plugin " + plugin("crashing_plugin") +
                                 " --lock sem-leak-50 --threads 4 --count 2 --duration 300ms");
  BOOST_TEST(r.exit_code == 1, r.out + r.err);
  BOOST_TEST(r.out.find("only 1 of the 2 units could be taken") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("units lost") != std::string::npos, r.out);
  // The leak takes the last unit: every thread waits in down() and nobody
  // holds. A HANG, and it says units lost too.
  ProcessResult last = run_rwstress("--plugin " + plugin("crashing_plugin") +
                                    " --lock sem-leak-50 --threads 3 --count 1 --duration 300ms "
                                    "--watchdog 1s");
  BOOST_TEST(last.exit_code == 3, last.out + last.err);
  BOOST_TEST(last.out.find("units lost: none of the semaphore's 1 units is held and 3 threads wait "
                           "in down()") != std::string::npos,
             last.out);
  for (const char* args : {" --lock sem-futex --threads 4 --count 2 --duration 300ms",
                           " --lock sem-futex --threads 3 --count 1 --duration 300ms"}) {
    ProcessResult ok = run_rwstress("--plugin " + plugin("crashing_plugin") + args);
    BOOST_TEST(ok.exit_code == 0, args << ": " << ok.out + ok.err);
  }
}

// Plugin ABI 4's lock_timeout is a semaphore's down_timeout: the timed run
// takes one trylock turn in two through it, and the semantics probe before
// the run calls it with every unit taken. One that says it took a unit when
// its time ran out fails there (trylock-truth); the correct one passes, run
// after run, at count 1 and 2.
BOOST_AUTO_TEST_CASE(a_plugin_semaphore_timeout_is_called_and_judged) {
  ProcessResult bad = run_rwstress("--plugin " + plugin("crashing_plugin") +
                                   " --lock sem-timeout-grants --threads 4 --count 1 --duration 300ms");
  BOOST_TEST(bad.exit_code == 1, bad.out + bad.err);
  BOOST_TEST(bad.out.find("down_timeout succeeded with every unit taken") != std::string::npos,
             bad.out);
  for (int i = 0; i < 3; ++i)
    for (const char* args : {" --lock sem-timeout --threads 4 --count 1 --duration 300ms",
                             " --lock sem-timeout --threads 4 --count 2 --duration 300ms"}) {
      ProcessResult ok = run_rwstress("--plugin " + plugin("crashing_plugin") + args);
      BOOST_TEST(ok.exit_code == 0, args << ": " << ok.out + ok.err);
    }
}

// Oversubscribed spinlocks beside CPU hogs: a holder preempted for longer
// than the watchdog is waiting for a CPU, not for the lock, and is no HANG
// (the audit saw HANG in 3 of 3 runs of each shape, so one run a shape
// catches it); a lock that never releases is still a HANG under the same
// load.
BOOST_AUTO_TEST_CASE(an_overloaded_machine_gives_no_hang_and_a_deadlock_still_is_one) {
  std::vector<pid_t> hogs;
  for (int i = 0; i < 2; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      alarm(120);  // never outlives the test
      // Above the runs' priority where allowed (root, as CI runs): plain
      // busy loops at the same priority did not stall f858843 here, these
      // made it HANG in 9 of 9 runs.
      (void)setpriority(PRIO_PROCESS, 0, -15);
      for (;;) asm volatile("" ::: "memory");
    }
    hogs.push_back(pid);
  }
  int hangs = 0;
  std::string seen;
  for (const char* lock : {"pthread-spinlock", "ck-ticket", "mutex"}) {
    ProcessResult r = run_rwstress(std::string("--lock ") + lock +
                                   " --threads 16 --duration 300ms --cpus 0-1 --watchdog 100ms --seed 0x6");
    if (r.exit_code == 3) {
      ++hangs;
      seen += r.out;
    }
  }
  ProcessResult dead = run_rwstress("--plugin " + plugin("crashing_plugin") +
                                    " --lock deadlock-200 --threads 16 --duration 300ms --cpus 0-1 --watchdog 100ms");
  for (pid_t pid : hogs) kill(pid, SIGKILL);
  for (pid_t pid : hogs) waitpid(pid, nullptr, 0);
  BOOST_TEST(hangs == 0, seen);
  BOOST_TEST(dead.exit_code == 3, dead.out + dead.err);
}

// validate's exploration stage: a lock the controlled scheduler sees inside
// is explored at its family's smallest shapes after the timed battery; a
// failure's row names what was found and its replay line replays it step
// for step; a kernel-compat explore build is explored like an in-tree lock
// (the upstream files' glue, with killable entry points, also gets the
// fatal-signal run: kernel-upstream.sh); --no-explore skips the stage.
BOOST_AUTO_TEST_CASE(validate_explores_the_locks_it_can_see_inside) {
  const auto npos = std::string::npos;
  ProcessResult busted = run_rwstress("validate --lock busted-downgrade --time 2s");
  BOOST_TEST(busted.exit_code == 1, busted.out + busted.err);
  BOOST_TEST(busted.out.find("exploration: ") != npos, busted.out);
  const std::string mark = "1R+2W: rwstress explore --lock busted-downgrade --readers 1 --writers 2";
  const std::size_t at = busted.out.find(mark);
  BOOST_REQUIRE_MESSAGE(at != npos, busted.out);
  const std::size_t from = at + mark.size() - std::string("explore --lock busted-downgrade --readers 1 --writers 2").size();
  const std::string line = busted.out.substr(from, busted.out.find('\n', from) - from);
  BOOST_TEST(line.find(" --replay ") != npos, line);
  ProcessResult again = run_rwstress(line);
  BOOST_TEST(again.exit_code == 1, line << ": " << again.out << again.err);
  BOOST_TEST(again.out.find("FAIL (the recorded schedule, step for step") != npos, again.out);

  ProcessResult kernel = run_rwstress("--plugin " + plugin("kernel_semaphore_explore") +
                                      " validate --lock kernel-semaphore --time 2s");
  BOOST_TEST(kernel.exit_code == 0, kernel.out + kernel.err);
  BOOST_TEST(kernel.out.find("pct:depth=3 3T count 2") != npos, kernel.out);
  BOOST_TEST(kernel.out.find("exploration: all 11 runs PASS (exhaustive: 1 of 1 complete)") != npos,
             kernel.out);

  ProcessResult off = run_rwstress("validate --lock ticket --time 1s --no-explore");
  BOOST_TEST(off.exit_code == 0, off.out + off.err);
  BOOST_TEST(off.out.find("EXPLORATION") == npos, off.out);
  BOOST_TEST(off.out.find("; exploration off (--no-explore)") != npos, off.out);
}

BOOST_AUTO_TEST_CASE(validate_refuses_bad_input) {
  ProcessResult no_lock = run_rwstress("validate --time 5s");
  BOOST_TEST(no_lock.exit_code == 2);
  BOOST_TEST(no_lock.err.find("--lock") != std::string::npos, no_lock.err);
  ProcessResult bad_time = run_rwstress("validate --lock xadd --time 0");
  BOOST_TEST(bad_time.exit_code == 2);
  BOOST_TEST(lines(bad_time.err) == 1, bad_time.err);
  for (const char* bad : {"validate --lock xadd --explore-schedules 0",
                          "validate --lock xadd --no-explore --explore-schedules 10",
                          "validate --lock xadd --explore-time 0", "validate --lock xadd --explore-time x",
                          "validate --lock xadd --no-explore --explore-time 5s"}) {
    ProcessResult r = run_rwstress(bad);
    BOOST_TEST(r.exit_code == 2, bad);
    BOOST_TEST(lines(r.err) == 1, bad << ": " << r.err);
  }
}

// validate's exploration stage spends its time budget: each run takes
// at least --explore-schedules, then goes on within its share of
// --explore-time, so a larger budget runs more schedules.
BOOST_AUTO_TEST_CASE(validate_explores_for_its_time_budget) {
  const auto stage = [](const std::string& more) {
    ProcessResult r = run_rwstress("validate --lock ticket --time 2s --explore-schedules 10 " + more);
    BOOST_TEST(r.exit_code == 0, more << ": " << r.out << r.err);
    // The sampling runs' schedules (the rows whose last column is a count).
    std::uint64_t schedules = 0;
    double seconds = 0;
    std::istringstream in(r.out.substr(r.out.find("EXPLORATION")));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line) && !line.empty()) {
      std::istringstream row(line.substr(36));
      std::string verdict, count;
      double s = 0;
      row >> verdict >> s >> count;
      seconds += s;
      if (count != "complete") schedules += std::stoull(count);
    }
    return std::pair{schedules, seconds};
  };
  const auto [few, quick] = stage("--explore-time 1ms");
  const auto [many, slow] = stage("--explore-time 3s");
  BOOST_TEST(few >= 10u);
  BOOST_TEST(many > few * 10, few << " then " << many);
  BOOST_TEST(slow > 2.0, slow);  // (the budget is spent, less the exhaustive run's leftover)
  BOOST_TEST(quick < slow);
}

// validate's exploration stage runs under the memory model: a missing
// RELEASE no timed run can show (x86) fails every exploration run under
// c11 (five of the seven; the tso and the no-model run pass it, as x86
// does), with replay lines that carry --memory c11 and reproduce it.
BOOST_AUTO_TEST_CASE(validate_explores_under_the_memory_model) {
  ProcessResult r = run_rwstress("validate --lock busted-relaxed-unlock --time 2s");
  BOOST_TEST(r.exit_code == 1, r.out + r.err);
  BOOST_TEST(r.out.find("0 of 28 scenarios did not PASS; exploration: 5 of 7 runs did not PASS") !=
                 std::string::npos,
             r.out);
  const std::string mark = "rwstress explore --lock busted-relaxed-unlock --threads 3 --ops 2 --memory c11 --replay ";
  const std::size_t at = r.out.find(mark);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, r.out);
  const std::string line = r.out.substr(at + 9, r.out.find('\n', at) - at - 9);
  ProcessResult again = run_rwstress(line);
  BOOST_TEST(again.exit_code == 1, line << ": " << again.out << again.err);
  BOOST_TEST(again.out.find("ordering (thread") != std::string::npos, again.out);
}

}  // namespace
}  // namespace rwstress::test

