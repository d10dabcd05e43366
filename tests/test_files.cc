// Reports that survive hostile paths, signals, full disks and failed
// standard output: each case as a user (or an attacker sharing a directory)
// would meet it, through the binary where it matters.
#define BOOST_TEST_MODULE test_files
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/report.h"
#include "tests/test_support.h"

using namespace rwstress;
namespace fs = std::filesystem;

namespace {

// A fresh directory under /tmp for one test, removed at the end.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    path = fs::temp_directory_path() / ("rwstress_files_" + std::to_string(getpid()) + "_" +
                                        std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

bool is_char_device(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_device_is_written_in_place_not_replaced) {
  BOOST_REQUIRE(is_char_device("/dev/null"));
  BOOST_TEST(write_report_file("/dev/null", "{}\n") == "");
  BOOST_TEST(is_char_device("/dev/null"));
}

BOOST_AUTO_TEST_CASE(a_symlink_is_written_through_and_kept) {
  ScratchDir dir;
  std::ofstream(dir / "target.json") << "old";
  fs::create_symlink(dir / "target.json", dir / "link.json");
  BOOST_TEST(write_report_file(dir / "link.json", "new") == "");
  BOOST_TEST(fs::is_symlink(dir / "link.json"));
  BOOST_TEST(test::slurp(dir / "target.json") == "new");
}

BOOST_AUTO_TEST_CASE(a_planted_temporary_name_is_never_followed) {
  ScratchDir dir;
  std::ofstream(dir / "victim") << "victim";
  // The names an older writer used, and the ones a guesser would try.
  for (const char* name : {"out.json.tmp", ".out.json.tmp", ".out.json.XXXXXX"})
    fs::create_symlink(dir / "victim", dir / name);
  BOOST_TEST(write_report_file(dir / "out.json", "{}") == "");
  BOOST_TEST(test::slurp(dir / "victim") == "victim");
  BOOST_TEST(test::slurp(dir / "out.json") == "{}");
  const bool others_read =
      (fs::status(dir / "out.json").permissions() & fs::perms::others_read) != fs::perms::none;
  BOOST_TEST(others_read);  // not mkstemp's 0600
}

BOOST_AUTO_TEST_CASE(a_failed_write_says_why_and_leaves_no_temporary) {
  ScratchDir dir;
  BOOST_TEST(write_report_file("/dev/full", "x").find("No space left") != std::string::npos);
  BOOST_TEST(write_report_file(dir.path.string(), "x").find("is a directory") != std::string::npos);
  BOOST_TEST(write_report_file(dir / "no/such/dir/out.json", "x") != "");
  BOOST_TEST(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 0);
}

// A session spools each run's text to an unnamed temporary file and builds
// the report from pieces: strings and spools, in order, whatever their size.
BOOST_AUTO_TEST_CASE(a_report_is_written_from_strings_and_spools) {
  ScratchDir dir;
  Spool spool;
  std::string expected = "head\n";
  for (int i = 0; i < 5000; ++i) {  // past the copy buffer (64 KB)
    const std::string line = "run " + std::to_string(i) + " " + std::string(40, 'x') + "\n";
    BOOST_REQUIRE(spool.append(line).empty());
    expected += line;
  }
  expected += "tail\n";
  const std::string path = dir / "r.txt";
  BOOST_TEST(write_report_file(path, std::vector<ReportPiece>{"head\n", &spool, "tail\n"}).empty());
  BOOST_TEST((test::slurp(path) == expected));
  // Written again, the spool gives the same text: it is read, not drained.
  BOOST_TEST(write_report_file(path, std::vector<ReportPiece>{"head\n", &spool, "tail\n"}).empty());
  BOOST_TEST((test::slurp(path) == expected));
  Spool empty;
  BOOST_TEST(write_report_file(path, std::vector<ReportPiece>{"a", &empty, "b"}).empty());
  BOOST_TEST(test::slurp(path) == "ab");
}

// --repeat: every run reaches every file, as the same documents the
// formatters give (the JSON parses, the CSV has a row a run, the JUnit
// counts them), however the session kept them.
BOOST_AUTO_TEST_CASE(binary_repeat_streams_every_run_to_every_file) {
  ScratchDir dir;
  const std::string json = dir / "r.json", csv = dir / "r.csv", xml = dir / "r.xml";
  // Two unfair locks: 20 ms runs on a loaded machine can leave a thread of
  // a fair lock with too little to judge, and this test is about the files.
  auto r = test::run_rwstress("--lock tas,pthread-mutex --threads 2 --duration 20ms --repeat 15 "
                              "--json " + json + " --csv " + csv + " --junit " + xml);
  BOOST_REQUIRE(r.exit_code == 0);
  nlohmann::json doc = nlohmann::json::parse(test::slurp(json));
  BOOST_REQUIRE(doc["runs"].size() == 30u);
  BOOST_TEST(doc["runs"][0]["lock"] == "tas");
  BOOST_TEST(doc["runs"][29]["lock"] == "pthread-mutex");
  BOOST_TEST(doc["runs"][29]["repeat"] == 14);
  BOOST_TEST(doc["verdict"] == "PASS");
  BOOST_TEST(doc["interrupted"].is_null());
  const std::string c = test::slurp(csv);
  BOOST_TEST(std::count(c.begin(), c.end(), '\n') == 31);
  const std::string x = test::slurp(xml);
  BOOST_TEST(x.find("tests=\"30\"") != std::string::npos);
  BOOST_TEST(std::count(x.begin(), x.end(), '\n') > 30);
}

BOOST_AUTO_TEST_CASE(binary_json_to_dev_null_and_stdout) {
  test::ProcessResult r = test::run_rwstress("--lock xadd --duration 100ms --json /dev/null");
  BOOST_TEST(r.exit_code == 0, r.err);
  BOOST_TEST(is_char_device("/dev/null"));
  ScratchDir dir;
  const std::string out = dir / "stdout.txt";
  // --json /dev/stdout: the document once, after the table.
  test::ProcessResult s = test::run_rwstress("--lock xadd,ticket --duration 100ms --json /dev/stdout");
  BOOST_TEST(s.exit_code == 0, s.err);
  BOOST_TEST(std::count(s.out.begin(), s.out.end(), '{') > 0);
  const auto first = s.out.find("\"rwstress_version\"");
  BOOST_TEST(first != std::string::npos);
  BOOST_TEST(s.out.find("\"rwstress_version\"", first + 1) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(binary_colliding_and_hostile_paths_are_refused_up_front) {
  ScratchDir dir;
  const std::string x = dir / "x";
  for (const std::string& args :
       {"--json " + x + " --csv " + x, "--json " + x + " --junit " + dir.path.string() + "/./x",
        std::string("--json ''"), std::string("--csv ''"), std::string("--plot /nonexistent/p"),
        std::string("--plot 'p`touch PWNED`'")}) {
    test::ProcessResult r = test::run_rwstress("--lock xadd --duration 5s " + args);
    BOOST_TEST(r.exit_code == 2, args);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, args << ": " << r.err);
    BOOST_TEST(r.out.find("xadd ") == std::string::npos, args);  // nothing ran
  }
  BOOST_TEST(!fs::exists("PWNED"));
}

BOOST_AUTO_TEST_CASE(binary_a_quote_in_a_plot_prefix_stays_a_file_name) {
  ScratchDir dir;
  const std::string prefix = dir / "it's";
  test::ProcessResult r = test::run_rwstress("--lock xadd --duration 100ms --hist hold --plot \"" +
                                             prefix + "\"");
  BOOST_TEST(r.exit_code == 0, r.out << r.err);
  BOOST_TEST(fs::exists(prefix + "-hold.dat"));
  BOOST_TEST(fs::exists(prefix + "-hold.gp"));
}

BOOST_AUTO_TEST_CASE(binary_sigint_finishes_every_report_marked_interrupted) {
  ScratchDir dir;
  const char* bin = std::getenv("RWSTRESS_BIN");
  BOOST_REQUIRE(bin);
  const std::string json = dir / "r.json", csv = dir / "r.csv", xml = dir / "r.xml";
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    std::fflush(stdout);  // or the child flushes our buffered output again
    pid_t pid = fork();
    if (pid == 0) {
      freopen("/dev/null", "w", stdout);
      execl(bin, "rwstress", "--lock", "xadd,ticket", "--duration", "20s", "--json", json.c_str(),
            "--csv", csv.c_str(), "--junit", xml.c_str(), nullptr);
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 128 + sig);
    nlohmann::json doc = nlohmann::json::parse(test::slurp(json));
    BOOST_TEST(doc["interrupted"].is_string());
    BOOST_REQUIRE(doc["runs"].size() == 1u);  // the run cut short; ticket never started
    BOOST_TEST(doc["runs"][0]["interrupted"] == true);
    BOOST_TEST(doc["runs"][0]["duration_s"].get<double>() < 10.0);
    // A run cut short proves nothing by passing: INTERRUPTED, run and session.
    BOOST_TEST(doc["runs"][0]["verdict"] == "INTERRUPTED");
    BOOST_TEST(doc["verdict"] == "INTERRUPTED");
    BOOST_TEST(doc["complete"] == true);
    const std::string c = test::slurp(csv);
    BOOST_TEST(std::count(c.begin(), c.end(), '\n') == 2);
    BOOST_TEST(c.find(",INTERRUPTED,") != std::string::npos);
    BOOST_TEST(c.find(",PASS,") == std::string::npos);
    BOOST_TEST(c.find(",yes\n") != std::string::npos);
    const std::string x = test::slurp(xml);
    BOOST_TEST(x.find("</testsuites>") != std::string::npos);
    BOOST_TEST(x.find("name=\"interrupted\"") != std::string::npos);
    BOOST_TEST(x.find("type=\"INTERRUPTED\"") != std::string::npos);  // not a green suite
  }
}

BOOST_AUTO_TEST_CASE(binary_failed_stdout_or_report_is_an_error_exit) {
  test::ProcessResult r = test::run_rwstress("--lock xadd --duration 100ms");  // the baseline
  BOOST_TEST(r.exit_code == 0);
  const char* bin = std::getenv("RWSTRESS_BIN");
  BOOST_REQUIRE(bin);
  const std::string cmd = std::string(bin) + " --lock xadd --duration 100ms >/dev/full 2>/dev/null";
  const int status = std::system(cmd.c_str());
  BOOST_TEST(WEXITSTATUS(status) == 2);
}

// Every file rwstress writes, aimed at a planted link or a device copy:
// the link's target and the device stay as they were.
BOOST_AUTO_TEST_CASE(binary_every_writer_leaves_planted_links_and_devices_alone) {
  ScratchDir dir;
  std::ofstream(dir / "victim") << "victim";
  const bool root = geteuid() == 0;
  const std::string device = dir / "null-copy";
  if (root) BOOST_REQUIRE(mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
  // Each writer's output name with a link planted at the old fixed
  // temporary name beside it.
  for (const char* name_text : {"r.json", "r.csv", "r.xml", "p-hold.dat", "p-hold.gp", "p-hold.svg",
                                 "p-hold.png", "fz.json", "fz.xml"}) {
    const std::string name = name_text;
    for (const std::string& planted : std::vector<std::string>{name + ".tmp", "." + name + ".tmp"})
      fs::create_symlink(dir / "victim", dir / planted);
  }
  test::ProcessResult r = test::run_rwstress(
      "--lock xadd --duration 100ms --hist hold --json " + (dir / "r.json") + " --csv " +
      (dir / "r.csv") + " --junit " + (dir / "r.xml") + " --plot " + (dir / "p"));
  BOOST_TEST(r.exit_code == 0, r.err);
  // A timed trial (a controlled one at depth 1 may pass busted-noop): a
  // finding, so that every campaign file is written.
  test::ProcessResult f = test::run_rwstress("fuzz --lock busted-noop --trials 1 --trial-time 100ms "
                                             "--explore-share 0 --reproduce 1 --shrink-time 0 --out " +
                                             (dir / "camp") +
                                             " --json " + (dir / "fz.json") + " --junit " + (dir / "fz.xml"));
  BOOST_TEST(f.exit_code == 1, f.out << f.err);
  BOOST_TEST(fs::exists(dir / "fz.json"));
  // A campaign directory with a link planted at a log's name: refused, the
  // link's target untouched.
  fs::create_directories(dir / "camp2");
  fs::create_symlink(dir / "victim", dir / "camp2/findings.jsonl");
  test::ProcessResult planted = test::run_rwstress("fuzz --lock xadd --trials 1 --trial-time 50ms --out " +
                                                   (dir / "camp2"));
  BOOST_TEST(planted.exit_code == 2, planted.out << planted.err);
  BOOST_TEST(test::slurp(dir / "victim") == "victim");
  if (root) {
    for (const std::string flag : {"--json", "--csv", "--junit"}) {
      test::ProcessResult d = test::run_rwstress("--lock xadd --duration 50ms " + flag + " " + device);
      BOOST_TEST(d.exit_code == 0, flag << ": " << d.err);
      BOOST_TEST(is_char_device(device), flag);
    }
    for (const std::string flag : {"--json", "--junit"}) {
      test::ProcessResult d = test::run_rwstress("fuzz --lock xadd --trials 1 --trial-time 50ms " + flag + " " + device);
      BOOST_TEST(d.exit_code == 0, flag << ": " << d.err);
      BOOST_TEST(is_char_device(device), flag);
    }
  }
}

BOOST_AUTO_TEST_CASE(binary_outputs_that_are_one_file_spelled_twice_are_refused) {
  ScratchDir dir;
  fs::create_symlink(dir / "a.out", dir / "link");  // dangling: a.out is not made yet
  for (const std::string& args :
       {"--json " + (dir / "a.out") + " --csv " + (dir / "link"),
        "--hist hold --plot " + (dir / "pp") + " --json " + (dir / "pp-hold.svg"),
        "--hist hold --plot " + (dir / "pp") + " --csv " + (dir / "pp-wait.dat"),
        // a link to nothing: written through, never used to create its target
        "--json " + (dir / "link")}) {
    test::ProcessResult r = test::run_rwstress("--lock xadd --duration 5s " + args);
    BOOST_TEST(r.exit_code == 2, args);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, args << ": " << r.err);
    BOOST_TEST(r.out.find("xadd ") == std::string::npos, args);  // nothing ran
  }
}

BOOST_AUTO_TEST_CASE(binary_a_fifo_without_a_reader_is_said_not_waited_for) {
  ScratchDir dir;
  BOOST_REQUIRE(mkfifo((dir / "fifo").c_str(), 0600) == 0);
  test::ProcessResult r =
      test::run_rwstress("--lock xadd --duration 50ms --json " + (dir / "fifo"), "timeout -s KILL 30 ");
  BOOST_TEST(r.exit_code == 2, r.err);
  BOOST_TEST(r.err.find("no process is reading it") != std::string::npos, r.err);
}

// The user's file is left alone until there is a run to put in its place,
// and a snapshot taken mid-session claims no verdict.
BOOST_AUTO_TEST_CASE(binary_an_existing_report_is_kept_until_runs_replace_it) {
  ScratchDir dir;
  const std::string json = dir / "keep.json";
  std::ofstream(json) << "{\"mine\": 1}\n";
  const char* bin = std::getenv("RWSTRESS_BIN");
  BOOST_REQUIRE(bin);
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    execl(bin, "rwstress", "--lock", "ticket", "--threads", "2", "--duration", "400ms", "--repeat",
          "10", "--json", json.c_str(), nullptr);
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  BOOST_TEST(test::slurp(json) == "{\"mine\": 1}\n");  // the first run has not ended
  // Snapshots while runs go on: never a session verdict.
  bool saw_snapshot = false;
  for (int i = 0; i < 40; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::string text = test::slurp(json);
    if (text.find("\"mine\"") != std::string::npos) continue;
    nlohmann::json doc = nlohmann::json::parse(text);
    BOOST_TEST(doc["complete"] == false);
    BOOST_TEST(doc["verdict"] == "INCOMPLETE");
    BOOST_TEST(doc["runs"].size() >= 1u);
    saw_snapshot = true;
    break;
  }
  BOOST_TEST(saw_snapshot);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  nlohmann::json left = nlohmann::json::parse(test::slurp(json));
  BOOST_TEST(left["complete"] == false);  // a kill -9 leaves no claim of a passing session
  BOOST_TEST(left["verdict"] == "INCOMPLETE");
}

BOOST_AUTO_TEST_CASE(binary_a_sweep_that_can_run_no_point_is_a_usage_error) {
  ScratchDir dir;
  const int too_many = int(std::thread::hardware_concurrency()) + 1;
  test::ProcessResult r = test::run_rwstress("sweep --lock xadd --duration 50ms --cpus " +
                                             std::to_string(too_many) + " --json " + (dir / "s.json"));
  BOOST_TEST(r.exit_code == 2, r.out << r.err);
  BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
  BOOST_TEST(!fs::exists(dir / "s.json"));
}

namespace {

// Starts rwstress with `args`, its output to `out`; `ignore_int`: as a
// script's background job starts it, SIGINT ignored.
pid_t start_rwstress(const std::vector<std::string>& args, const std::string& out, bool ignore_int) {
  const char* bin = std::getenv("RWSTRESS_BIN");
  BOOST_REQUIRE(bin);
  std::vector<char*> argv = {const_cast<char*>("rwstress")};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    if (ignore_int) signal(SIGINT, SIG_IGN);
    freopen(out.c_str(), "w", stdout);
    freopen((out + ".err").c_str(), "w", stderr);
    execv(bin, argv.data());
    _exit(127);
  }
  return pid;
}

// Its exit status within `limit`, or -1 (then it is killed).
int exit_within(pid_t pid, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

// Whether the process catches `sig` yet (/proc/PID/status, SigCgt).
bool catches(pid_t pid, int sig) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("SigCgt:", 0) == 0)
      return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1;
  return false;
}

}  // namespace

// explore and validate end as every command does: a signal (kill -INT of
// a run started with SIGINT ignored, as a script's background job is)
// stops them with INTERRUPTED, the count of what ran, never "complete"
// or PASS, and 128 + the signal.
BOOST_AUTO_TEST_CASE(binary_explore_and_validate_end_on_a_signal_with_a_report) {
  ScratchDir dir;
  const std::string out = dir / "out.txt";
  const std::vector<std::string> endless = {"explore", "--lock", "linux-rwsem", "--readers", "2",
                                            "--writers", "2", "--strategy",
                                            "exhaustive:preemptions=6", "--schedules", "1000000000"};
  for (int sig : {SIGINT, SIGTERM}) {
    const pid_t pid = start_rwstress(endless, out, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    kill(pid, sig);
    BOOST_TEST(exit_within(pid, std::chrono::seconds(30)) == 128 + sig);
    const std::string text = test::slurp(out);
    BOOST_TEST(text.find(fmt::format("linux-rwsem: INTERRUPTED by {} after ",
                                     sig == SIGINT ? "SIGINT" : "SIGTERM")) != std::string::npos,
               text);
    BOOST_TEST(text.find("complete:") == std::string::npos, text);
    BOOST_TEST(text.find("PASS") == std::string::npos, text);
  }
  const pid_t pid = start_rwstress({"validate", "--lock", "xadd", "--time", "60s"}, out, true);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  kill(pid, SIGINT);
  BOOST_TEST(exit_within(pid, std::chrono::seconds(60)) == 130);
  const std::string text = test::slurp(out);
  BOOST_TEST(text.find("validate xadd: INTERRUPTED by SIGINT in scenario ") != std::string::npos, text);
  BOOST_TEST(text.find("all ") == std::string::npos, text);
}

// A signal as soon as the process can catch one (before the command line
// is read to its end) is held for the run: every report finished and
// INTERRUPTED, never a process gone without a word.
BOOST_AUTO_TEST_CASE(binary_a_signal_at_the_very_start_still_finishes_every_report) {
  ScratchDir dir;
  const std::string json = dir / "r.json";
  for (int attempt = 0; attempt < 3; ++attempt) {
    const pid_t pid =
        start_rwstress({"--lock", "xadd,ticket", "--duration", "5s", "--json", json}, dir / "out", false);
    for (int i = 0; i < 100000 && !catches(pid, SIGTERM); ++i)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    kill(pid, SIGTERM);
    BOOST_TEST(exit_within(pid, std::chrono::seconds(30)) == 143);
    const nlohmann::json doc = nlohmann::json::parse(test::slurp(json));
    BOOST_TEST(doc["verdict"] == "INTERRUPTED");
    BOOST_TEST(doc["complete"] == true);
  }
}

// Names rwstress chooses inside a directory (a campaign's repro-ID.sh, a
// plot's PREFIX.svg) are never written through a link planted there: the
// link is replaced, what it points at is left alone.
BOOST_AUTO_TEST_CASE(binary_names_rwstress_chooses_are_never_written_through_links) {
  ScratchDir dir;
  std::ofstream(dir / "victim") << "victim";
  fs::create_symlink(dir / "victim", dir / "chosen.txt");
  BOOST_TEST(write_chosen_file(dir / "chosen.txt", "mine") == "");
  BOOST_TEST(!fs::is_symlink(dir / "chosen.txt"));
  BOOST_TEST(test::slurp(dir / "chosen.txt") == "mine");
  BOOST_TEST(test::slurp(dir / "victim") == "victim");
  // A plot's files.
  for (const char* name : {"p-hold.dat", "p-hold.gp", "p-hold.svg", "p-hold.png"})
    fs::create_symlink(dir / "victim", dir / name);
  test::ProcessResult plot =
      test::run_rwstress("--lock xadd --duration 100ms --hist hold --plot " + (dir / "p"));
  BOOST_TEST(plot.exit_code == 0, plot.err);
  BOOST_TEST(test::slurp(dir / "victim") == "victim");
  BOOST_TEST(!fs::is_symlink(dir / "p-hold.gp"));
  // A campaign's reproducer, planted before --resume writes it again.
  const std::string camp = dir / "camp";
  test::ProcessResult f = test::run_rwstress("fuzz --lock busted-noop --trials 1 --trial-time 100ms "
                                             "--explore-share 0 --reproduce 1 --shrink-time 0 --out " +
                                             camp);
  BOOST_TEST(f.exit_code == 1, f.out << f.err);
  std::string repro;
  for (const auto& e : fs::directory_iterator(camp))
    if (e.path().filename().string().rfind("repro-", 0) == 0) repro = e.path();
  BOOST_REQUIRE(!repro.empty());
  fs::remove(repro);
  fs::create_symlink(dir / "victim", repro);
  test::ProcessResult resumed = test::run_rwstress("fuzz --resume " + camp);
  BOOST_TEST(resumed.exit_code == 1, resumed.out << resumed.err);
  BOOST_TEST(test::slurp(dir / "victim") == "victim");
  BOOST_TEST(!fs::is_symlink(repro));
  BOOST_TEST(test::slurp(repro).find("exec ") != std::string::npos);
}
