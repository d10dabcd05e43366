#include "commands/kernel.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands/explore.h"
#include "model/run_result.h"
#include "model/version.h"
#include "platform/duration.h"
#include "platform/interrupt.h"
#include "platform/spawn.h"
#include "report/report.h"

namespace rwstress {

namespace fs = std::filesystem;

const std::vector<KernelFileGroup>& kernel_file_groups() {
  static const std::vector<KernelFileGroup> groups = {
      {"rwsem", {"rwsem.c"}, "upstream_rwsem.c", {"rwsem"}, "the rw_semaphore (rwsem.c)"},
      {"mutex", {"mutex.c"}, "upstream_mutex.c", {"mutex"}, "the mutex (mutex.c)"},
      {"ww-mutex", {"mutex.c"}, "upstream_ww_mutex.c", {"ww-mutex", "wd-mutex"},
       "wound/wait mutexes, wound-wait and wait-die (mutex.c's ww_mutex entry points)"},
      {"semaphore", {"semaphore.c"}, "upstream_semaphore.c", {"semaphore"},
       "the counting semaphore (semaphore.c)"},
      {"qrwlock", {"qrwlock.c", "qspinlock.c"}, "upstream_qrwlock.c", {"qrwlock", "qspinlock"},
       "the queued rwlock and spinlock (qrwlock.c, qspinlock.c)"},
      {"percpu-rwsem", {"percpu-rwsem.c"}, "upstream_percpu_rwsem.c", {"percpu-rwsem"},
       "the per-CPU rwsem (percpu-rwsem.c, on the layer's RCU)"},
  };
  return groups;
}

const std::vector<KernelConfigKey>& kernel_config_keys() {
  static const std::vector<KernelConfigKey> keys = {
      {"RWSEM_SPIN_ON_OWNER", true,
       "rwsem.c spins on a running owner (with osq_lock.c), as x86 distributions build it",
       {"rwsem"}},
      {"MUTEX_SPIN_ON_OWNER", true,
       "mutex.c spins on a running owner (with osq_lock.c), as x86 distributions build it",
       {"mutex", "ww-mutex"}},
  };
  return keys;
}

std::string check_kernel_files(const std::vector<std::string>& files) {
  std::string known;
  for (const KernelFileGroup& g : kernel_file_groups())
    known += (known.empty() ? "" : ", ") + std::string(g.name);
  for (const std::string& f : files) {
    const auto& groups = kernel_file_groups();
    if (std::none_of(groups.begin(), groups.end(),
                     [&](const KernelFileGroup& g) { return f == g.name; }))
      return fmt::format("kernel --files: '{}' is not a file rwstress kernel builds (it builds {})",
                         f, known);
    if (std::count(files.begin(), files.end(), f) > 1)
      return fmt::format("kernel --files: '{}' is given twice", f);
  }
  return {};
}

std::string parse_kernel_config(const std::string& text,
                                std::vector<std::pair<std::string, bool>>* out) {
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto eq = item.find('=');
    std::string key = item.substr(0, eq);
    if (key.rfind("CONFIG_", 0) == 0) key = key.substr(7);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    const auto& keys = kernel_config_keys();
    if (std::none_of(keys.begin(), keys.end(),
                     [&](const KernelConfigKey& k) { return key == k.name; })) {
      std::string known;
      for (const KernelConfigKey& k : keys) known += (known.empty() ? "" : ", ") + std::string(k.name);
      return fmt::format("kernel --config: '{}' is not an option rwstress kernel sets (it sets {})",
                         item, known);
    }
    if (value != "y" && value != "n")
      return fmt::format("kernel --config {}: want {}=y or {}=n", item, key, key);
    if (std::any_of(out->begin(), out->end(), [&](const auto& kv) { return kv.first == key; }))
      return fmt::format("kernel --config: {} is given twice", key);
    out->emplace_back(key, value == "y");
  }
  return {};
}

std::string check_kernel_config_read(const std::vector<std::string>& files,
                                     const std::vector<std::pair<std::string, bool>>& config) {
  if (files.empty()) return {};  // every group is built
  for (const auto& [name, on] : config)
    for (const KernelConfigKey& key : kernel_config_keys()) {
      if (name != key.name) continue;
      const bool read = std::any_of(key.groups.begin(), key.groups.end(), [&](const char* g) {
        return std::find(files.begin(), files.end(), g) != files.end();
      });
      if (!read) {
        std::string groups;
        for (const char* g : key.groups) groups += (groups.empty() ? "" : " and ") + std::string(g);
        return fmt::format("kernel --config {}={}: only {} read{} it, and --files builds none of "
                           "them: the option would change nothing",
                           name, on ? "y" : "n", groups, key.groups.size() == 1 ? "s" : "");
      }
    }
  return {};
}

bool kernel_version_text(const std::string& text) {
  int parts = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == start || i - start > 6) return false;
    ++parts;
    if (i == text.size()) break;
    if (text[i] != '.' || ++i == text.size()) return false;
  }
  return parts == 2 || parts == 3;
}

namespace {

// A path a patch names, judged: "" when it is a file under kernel/locking/
// (no "..", ".", empty or absolute part), else why not.
std::string patch_path_problem(const std::string& path) {
  if (path.empty()) return "an empty path";
  if (path[0] == '"') return "a quoted path (a name git had to escape)";
  if (path[0] == '/') return "an absolute path";
  std::vector<std::string> parts;
  std::stringstream in(path);
  for (std::string part; std::getline(in, part, '/');) {
    if (part.empty() || part == "." || part == "..") return "a path with an empty, . or .. part";
    parts.push_back(part);
  }
  if (parts.size() < 3 || parts[0] != "kernel" || parts[1] != "locking")
    return "outside kernel/locking/ (rwstress kernel builds only that directory)";
  return {};
}

// The path of a ---, +++ or diff --git side with -p1's first part dropped;
// false for /dev/null (a file created or deleted).
bool strip_p1(std::string side, std::string* path) {
  if (const auto tab = side.find('\t'); tab != std::string::npos) side.resize(tab);  // a date
  if (side == "/dev/null") return false;
  if (!side.empty() && side[0] == '/') {  // judged as absolute
    *path = side;
    return true;
  }
  const auto slash = side.find('/');
  *path = slash == std::string::npos ? std::string() : side.substr(slash + 1);
  if (!side.empty() && side[0] == '"') *path = side;  // judged as quoted
  return true;
}

// The lines of a git diff that name a path without a/ and b/.
constexpr std::string_view kNamedBy[] = {"rename from ", "rename to ", "copy from ", "copy to "};

}  // namespace

std::string check_patch_text(const std::string& text) {
  std::stringstream lines(text);
  std::string line;
  long old_left = 0, new_left = 0;  // the hunk being read: its lines still to come
  std::size_t number = 0;
  const auto refuse = [&](const std::string& what, const std::string& path = "") {
    return fmt::format("line {}: {}{}", number, path.empty() ? "" : path + ": ", what);
  };
  const auto starts = [&](std::string_view prefix) { return line.rfind(prefix, 0) == 0; };
  while (std::getline(lines, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (old_left > 0 || new_left > 0) {  // a hunk's body: context, removed and added lines
      const char c = line.empty() ? ' ' : line[0];
      if (c == '\\') continue;  // "\ No newline at end of file"
      if (c == ' ' || c == '-') --old_left;
      if (c == ' ' || c == '+') --new_left;
      if (c != ' ' && c != '-' && c != '+') old_left = new_left = 0;  // a short hunk: patch's call
      continue;
    }
    std::string path;
    if (starts("@@ ")) {
      long a = 0, b = 1, c = 0, d = 1;
      if (std::sscanf(line.c_str(), "@@ -%ld,%ld +%ld,%ld @@", &a, &b, &c, &d) == 4 ||
          std::sscanf(line.c_str(), "@@ -%ld +%ld,%ld @@", &a, &c, &d) == 3 ||
          (b = 1, std::sscanf(line.c_str(), "@@ -%ld,%ld +%ld @@", &a, &b, &c) == 3) ||
          (b = d = 1, std::sscanf(line.c_str(), "@@ -%ld +%ld @@", &a, &c) == 2)) {
        old_left = b;
        new_left = d;
      }
    } else if (starts("--- ") || starts("+++ ")) {
      if (strip_p1(line.substr(4), &path))
        if (std::string why = patch_path_problem(path); !why.empty())
          return refuse(why, line.substr(4));
    } else if (starts("diff --git ")) {
      const std::string sides = line.substr(11);
      const auto b = sides.rfind(" b/");
      if (sides[0] == '"' || b == std::string::npos)
        return refuse("a diff --git line whose paths rwstress cannot read (quoted or unusual)");
      for (const std::string& side : {sides.substr(0, b), sides.substr(b + 1)})
        if (strip_p1(side, &path))
          if (std::string why = patch_path_problem(path); !why.empty()) return refuse(why, side);
    } else if (const auto named = std::find_if(
                   std::begin(kNamedBy), std::end(kNamedBy),
                   [&](std::string_view prefix) { return starts(prefix); });
               named != std::end(kNamedBy)) {  // rename/copy from/to: the path as it is
      path = line.substr(named->size());
      if (std::string why = patch_path_problem(path); !why.empty()) return refuse(why, path);
    } else if (starts("new file mode ") || starts("deleted file mode ") || starts("old mode ") ||
               starts("new mode ") || starts("index ")) {
      const std::string mode = line.substr(line.rfind(' ') + 1);
      const bool has_mode = !starts("index ") || std::count(line.begin(), line.end(), ' ') == 2;
      if (has_mode && mode != "100644" && mode != "100755")
        return refuse(mode == "120000" ? "a symbolic link (rwstress kernel takes regular files only)"
                                       : fmt::format("file mode {} (regular files only)", mode));
    } else if (starts("GIT binary patch") || starts("Binary files ")) {
      return refuse("a binary patch (rwstress kernel takes text diffs of kernel/locking/ only)");
    } else if (starts("*** ") || starts("***************")) {
      return refuse("a context diff: give a unified diff (diff -u, git diff, git format-patch)");
    } else if (starts("Index: ")) {
      path = line.substr(7);
      std::string stripped;
      if (!patch_path_problem(path).empty() &&
          (!strip_p1(path, &stripped) || !patch_path_problem(stripped).empty()))
        return refuse("outside kernel/locking/ (rwstress kernel builds only that directory)", path);
    }
  }
  return {};
}

namespace {

bool is_file(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool is_dir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The first line of a log that says what went wrong (a compiler's first
// error, patch's complaint), or its first line.
std::string first_problem(const std::string& log_path) {
  std::stringstream lines(read_text(log_path));
  std::string line, first;
  while (std::getline(lines, line)) {
    if (first.empty() && !line.empty()) first = line;
    if (line.find("error") != std::string::npos || line.find("FAILED") != std::string::npos ||
        line.find("can't find") != std::string::npos || line.find("No such") != std::string::npos)
      return line;
  }
  return first.empty() ? "(no output)" : first;
}

// The explore build's flags (share/rwstress/kernel-glue/explore-cflags:
// words, lines starting with # left out).
std::vector<std::string> explore_cflags(const std::string& data_dir) {
  std::stringstream lines(read_text(data_dir + "/kernel-glue/explore-cflags"));
  std::vector<std::string> flags;
  std::string line, word;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream words(line);
    while (words >> word) flags.push_back(word);
  }
  return flags;
}

// Where the layer's headers and the kernel glue are: beside an installed
// binary (PREFIX/include, PREFIX/share/rwstress), or in the source tree a
// build-tree binary came from.
struct Layout {
  std::string exe, include_dir, data_dir;
};
bool find_layout(Layout* layout, std::string* error) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    *error = "kernel: cannot find rwstress's own binary: " + ec.message();
    return false;
  }
  layout->exe = exe.string();
  const fs::path prefix = exe.parent_path().parent_path();
  std::vector<fs::path> roots = {prefix};
#ifdef RWSTRESS_SOURCE_DIR
  roots.emplace_back(RWSTRESS_SOURCE_DIR);
#endif
  for (const fs::path& root : roots) {
    const fs::path data = root / "share" / "rwstress";
    if (is_file((root / "include/rwstress/kernel.h").string()) &&
        is_file((data / "kernel-fetch.sh").string())) {
      layout->include_dir = (root / "include").string();
      layout->data_dir = data.string();
      return true;
    }
  }
  *error = fmt::format("kernel: the kernel-compat layer is not installed beside {} "
                       "(want {}/include/rwstress/kernel.h and {}/share/rwstress/)",
                       exe.string(), prefix.string(), prefix.string());
  return false;
}

std::string default_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/rwstress/kernel";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/rwstress/kernel";
  return "/tmp/rwstress-kernel-cache-" + std::to_string(getuid());
}

// FNV-1a, 64 bits: the cache key of a build.
struct Hash {
  std::uint64_t h = 1469598103934665603ULL;
  void add(const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;  // a separator, so "ab"+"c" != "a"+"bc"
  }
  // Every regular file under dir, by path relative to it, in a fixed order.
  void add_tree(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
         it.increment(ec))
      if (it->is_regular_file()) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      add(fs::relative(f, dir).string());
      add(read_text(f.string()));
    }
  }
};

std::uint64_t content_digest(const std::string& text) {
  Hash h;
  h.add(text);
  return h.h;
}

// A directory's regular files (not links) by path relative to it, with
// the digest of each one's content; `skip`: a subdirectory left out.
using FileDigests = std::map<std::string, std::uint64_t>;
FileDigests files_under(const fs::path& dir, const fs::path& skip = {}) {
  FileDigests files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!skip.empty() && it->path() == skip) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && !it->is_symlink(ec))
      files[fs::relative(it->path(), dir).string()] = content_digest(read_text(it->path().string()));
  }
  return files;
}
// A patch's work copy: kernel/locking/ (and the Makefile) under `work`.
fs::path locking_work(const std::string& work) { return fs::path(work) / "kernel" / "locking"; }
FileDigests outside_locking(const std::string& work) { return files_under(work, locking_work(work)); }

// The cache holds code rwstress loads and runs: a directory another user
// may write is refused, as ssh refuses a key file others can write.
std::string cache_problem(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0)
    return fmt::format("kernel --cache {}: {}", dir, std::strerror(errno));
  if (st.st_uid != geteuid())
    return fmt::format("kernel --cache {}: owned by uid {}, not by this user (uid {}): its plugins "
                       "would be loaded and run; give a cache of your own",
                       dir, st.st_uid, geteuid());
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return fmt::format("kernel --cache {}: writable by others than its owner (mode {:04o}): anyone "
                       "could put a plugin there for rwstress to load; chmod go-w {}",
                       dir, st.st_mode & 07777, dir);
  return {};
}

// Beside each built plugin: PLUGIN.digest, the digest of the file and of
// its build inputs. A plugin whose digest does not match (replaced or
// damaged in the cache) is rebuilt, never loaded. (The digest catches a
// file changed under its name; against a user who may write the cache,
// the ownership and mode check is the defence.)
std::string digest_text(std::uint64_t so, std::uint64_t inputs) {
  return fmt::format("rwstress-kernel-plugin 1\nso {:016x}\ninputs {:016x}\n", so, inputs);
}
bool plugin_matches(const std::string& plugin, std::uint64_t inputs) {
  return read_text(plugin + ".digest") == digest_text(content_digest(read_text(plugin)), inputs);
}

// Why a build that failed is not the compiler rejecting the source (a
// full disk, a permission, a killed or missing compiler): "" when it is.
// Only the source's fault makes a BUILD row (exit 125: git bisect run
// skips the commit); anything else is the machine's, exit 2.
std::string not_the_source(int rc, const std::string& log) {
  if (rc < 0) return "the compiler could not be started";
  if (rc >= 128) return fmt::format("the compiler was killed ({})", signal_name(rc - 128));
  const std::string text = read_text(log);
  for (const char* machine : {"No space left on device", "Disk quota exceeded", "Permission denied",
                              "Read-only file system", "Cannot allocate memory",
                              "virtual memory exhausted", "Killed signal terminated program"})
    if (text.find(machine) != std::string::npos) return machine;
  if (rc == 127 || text.empty()) return fmt::format("the compiler exited {} and said nothing", rc);
  return {};
}

struct TreeVersion {
  int major = 0, minor = 0, sub = 0;
  std::string name() const { return fmt::format("linux-{}.{}.{}", major, minor, sub); }
  std::string prefix() const { return fmt::format("k{}.{}", major, minor); }
  int code() const { return (major << 16) + (minor << 8) + std::min(sub, 255); }
};

bool read_tree_version(const std::string& tree, TreeVersion* v) {
  std::stringstream lines(read_text(tree + "/Makefile"));
  std::string line;
  int found = 0;
  while (std::getline(lines, line) && found < 3) {
    int value = 0;
    if (std::sscanf(line.c_str(), "VERSION = %d", &value) == 1) v->major = value, ++found;
    else if (std::sscanf(line.c_str(), "PATCHLEVEL = %d", &value) == 1) v->minor = value, ++found;
    else if (std::sscanf(line.c_str(), "SUBLEVEL = %d", &value) == 1) v->sub = value, ++found;
  }
  return found == 3 && v->major > 0;
}

// The paths (under kernel/locking/) that differ between two listings.
std::vector<std::string> changed_files(const FileDigests& before, const FileDigests& after) {
  std::vector<std::string> changed;
  for (const auto& [path, digest] : after)
    if (auto it = before.find(path); it == before.end() || it->second != digest) changed.push_back(path);
  for (const auto& [path, digest] : before)
    if (!after.count(path)) changed.push_back(path);
  return changed;
}

// The --config key a group is built with (its spin-on-owner option,
// which adds osq_lock.c), or nullptr.
const KernelConfigKey* config_key_of(const KernelFileGroup& group) {
  for (const KernelConfigKey& key : kernel_config_keys())
    for (const char* name : key.groups)
      if (std::string_view(name) == group.name) return &key;
  return nullptr;
}

// Whether `group` builds `path` (under kernel/locking/) as one of its
// sources: its own files, and osq_lock.c where its spin-on-owner key is on.
bool group_builds(const KernelFileGroup& group, const std::string& path,
                  const std::function<bool(const char*)>& on) {
  for (const char* f : group.files)
    if (path == f) return true;
  const KernelConfigKey* key = config_key_of(group);
  return path == "osq_lock.c" && key && on(key->name);
}

struct Row {
  std::string lock, files, config, verdict, plugin, note;
  int rank = 0;  // PASS 0 < BUILD 1 < each verdict in the model's order of severity < ERROR
  int code = 0;
};

// validate's or explore's exit code as a row's verdict and rank: the
// verdict whose exit code it is (model/run_result.h), or ERROR for
// anything else. A row keeps its worst.
struct Judged {
  std::string verdict, note;
  int rank = 0, code = 0;
};
Judged judge(int rc, const char* what, const std::string& spawn_error = "") {
  if (rc < 0)  // (run_program: it never ran, or could not be waited for)
    return {"ERROR", fmt::format("{} could not run: {}", what, spawn_error), 2 + kVerdictCount, rc};
  for (int v = 0; v < kVerdictCount; ++v)
    if (Verdict(v) != Verdict::kInterrupted && exit_code_of(Verdict(v)) == rc)
      return {verdict_name(Verdict(v)), "", Verdict(v) == Verdict::kPass ? 0 : 2 + v, rc};
  return {"ERROR", fmt::format("{} exited {}", what, rc), 2 + kVerdictCount, rc};
}
void keep_worst(const Judged& j, Row* row) {
  if (j.rank < row->rank || (j.rank == row->rank && row->code != 0)) return;
  row->verdict = j.verdict;
  row->rank = j.rank;
  row->code = j.code;
  if (!j.note.empty()) row->note += (row->note.empty() ? "" : "\n    ") + j.note;
}

// One search of a lock's exploration portfolio: the flags after
// `explore --lock L`, its line in the coverage table, and its share of
// the time budget (a random search gets twice a PCT one: its schedules
// switch threads at every step, so it runs fewer of them a second).
struct PortfolioEntry {
  std::string label;
  std::vector<std::string> args;
  bool exhaustive = false;
  int weight = 1;
};

// What rwstress kernel --explore searches for a lock (by its name's
// suffix: the family), in order: the small shape exhaustively at
// preemption bounds 2 then 3 (iterative: bound 2 completes first); PCT at
// depths 3 to 5 (for the reader-writer locks also conflict-guided PCT)
// and random schedules over 3 to 5 threads, 2 and 3 operations each; the
// killable entry points (rwsem.c, mutex.c, semaphore.c) under fatal signals (explore --signals: the bail-out
// paths); the files that wait for time (rwsem.c's HANDOFF after
// RWSEM_WAIT_TIMEOUT, semaphore.c's timeout) with time jumps at their clock
// reads; every one under a memory model, c11 (a missing ACQUIRE or
// RELEASE) or tso (x86's store buffer); and a bounded exhaustive search of
// the 3-thread shape. Sampling searches take their spurious wake-ups and
// need_resched() ticks by default (explore's budgets of 2 each). The
// hand-off locks (rwsem.c, mutex.c) get two starvation searches last, of
// 16 operations a thread: random in fair schedules (explore --fair: a
// waiter overtaken without end past its bound is STARVED), and PCT, whose
// unfairness lets the others come back while the waiter the lock says it
// owes the hand-off waits (every schedule judges that: explore_run.h
// handoff_owed).
std::vector<PortfolioEntry> explore_portfolio(std::string_view suffix) {
  const bool killable = suffix == "rwsem" || suffix == "semaphore" ||
                        suffix.find("mutex") != std::string_view::npos;
  const bool clocks = suffix == "rwsem" || suffix == "semaphore";
  const bool rw = suffix.find("rwsem") != std::string_view::npos || suffix == "qrwlock";
  const bool sem = suffix == "semaphore";
  // percpu-rwsem's glue releases read holds from interrupts (a
  // completion's file_end_write()), qrwlock's takes every second read lock
  // in one (a reader in interrupt context passes a waiting writer),
  // semaphore's makes every second up() in one (a driver's completion):
  // every search lets them arrive (explore --interrupts).
  const bool irqs = suffix == "percpu-rwsem" || suffix == "qrwlock" || suffix == "semaphore";
  // The glue declares these two hand-off locks (their waits are judged
  // under --fair, explore_run.h handoff_overtaken, and wherever the glue
  // names the waiter owed the hand-off, handoff_owed).
  const bool handoff = suffix == "rwsem" || suffix == "mutex";
  std::vector<PortfolioEntry> entries;
  // One search: its shape (readers and writers of a rwlock, else
  // `writers` threads, a semaphore's count), strategy, operations, model
  // and events; labelled "2R+1W pct:depth=3 c11" or "3T count 1 ...".
  const auto add = [&](int readers, int writers, int count, const std::string& strategy, int ops,
                       const char* model, bool signals, bool jumps) {
    PortfolioEntry e;
    e.exhaustive = strategy.rfind("exhaustive", 0) == 0;
    e.weight = strategy == "random" ? 2 : 1;
    if (rw)
      e.args = {"--readers", std::to_string(readers), "--writers", std::to_string(writers)};
    else
      e.args = {"--threads", std::to_string(writers)};
    if (sem) e.args.insert(e.args.end(), {"--count", std::to_string(count)});
    e.args.insert(e.args.end(), {"--strategy", strategy, "--memory", model});
    if (e.exhaustive) e.args.insert(e.args.end(), {"--stale-reads", std::to_string(kExhaustiveStaleReads)});
    if (ops != 2) e.args.insert(e.args.end(), {"--ops", std::to_string(ops)});
    signals = signals && killable;
    jumps = jumps && clocks;
    if (signals) e.args.push_back("--signals");
    if (jumps) e.args.insert(e.args.end(), {"--time-jumps", "2"});
    if (irqs) e.args.insert(e.args.end(), {"--interrupts", e.exhaustive ? "1" : "2"});
    e.label = rw ? fmt::format("{}R+{}W", readers, writers)
                 : fmt::format("{}T{}", writers, sem ? fmt::format(" count {}", count) : "");
    e.label += fmt::format(" {}{} {}", strategy, ops != 2 ? fmt::format(" ops {}", ops) : "", model);
    if (e.exhaustive) e.label += fmt::format(" stale {}", kExhaustiveStaleReads);
    if (signals) e.label += " signals";
    if (jumps) e.label += " jumps";
    if (irqs) e.label += " interrupts";
    entries.push_back(std::move(e));
  };
  const std::string bounded = "exhaustive:preemptions=3";
  if (rw) {
    add(1, 1, 0, bounded, 2, "c11", false, false);
    add(2, 1, 0, "pct:depth=3", 2, "c11", false, false);
    // (change points only at steps that touch a word another thread
    // touched: on the corpus's reader-writer bugs a lower median of
    // schedules to the first failure, four of five: docs/explore.md)
    add(2, 1, 0, "pct:depth=3,conflicts", 2, "c11", false, false);
    add(1, 2, 0, "pct:depth=3", 2, "c11", false, true);
    add(2, 2, 0, "random", 2, "c11", true, true);
    add(2, 1, 0, "pct:depth=4", 3, "c11", false, false);
    add(1, 2, 0, "random", 3, "tso", false, true);
    add(3, 2, 0, "pct:depth=3", 2, "c11", false, true);
    add(2, 2, 0, "pct:depth=5", 2, "c11", true, false);
    add(2, 1, 0, "exhaustive:preemptions=2", 2, "c11", false, false);
  } else {
    add(0, 2, 1, bounded, 2, "c11", false, false);
    add(0, 3, 1, "pct:depth=3", 2, "c11", false, false);
    if (sem) add(0, 3, 2, "pct:depth=3", 2, "c11", false, false);
    add(0, 3, 1, "random", 2, "c11", true, true);
    add(0, 3, 1, "pct:depth=4", 3, "c11", false, false);
    add(0, 4, sem ? 2 : 1, "random", 2, "c11", false, true);
    add(0, 4, 1, "pct:depth=3", 2, "tso", false, false);
    add(0, 3, 1, "pct:depth=5", 2, "c11", true, false);
    add(0, 3, 1, "exhaustive:preemptions=2", 2, "c11", false, false);
  }
  // Priorities (the files that ask rt_task(): rwsem.c): every thread on
  // one CPU, the last real-time, arriving at a step of the schedule, so
  // that a real-time waiter that spins where a normal thread of its CPU
  // was preempted before it finished (a count taken, the owner not yet
  // set) spins for good (explore --virtual-cpus, --rt-threads: a livelock
  // that names the thread kept off; 48dfb5d2560d and 3f5245538a19 in the
  // corpus).
  if (suffix == "rwsem") {
    add(1, 2, 0, "random", 2, "sc", false, false);
    entries.back().args.insert(entries.back().args.end(),
                               {"--virtual-cpus", "1", "--rt-threads", "1"});
    entries.back().label += " 1 CPU rt";
  }
  // Starvation: fair schedules, long enough for the others to come back
  // many times while one waits (no memory model: a wait's length is not
  // an ordering question; time jumps let rwsem.c's 4 jiffies pass).
  const auto fair = [&] {
    entries.back().args.push_back("--fair");
    entries.back().label += " fair";
  };
  // The glue names the waiter each is owed to (handoff_waiter), which
  // every schedule judges; PCT's unfairness keeps that waiter off the CPU
  // while the others come back, so the second search is not --fair.
  if (handoff && rw) {
    add(2, 1, 0, "random", 16, "sc", false, true), fair();
    add(1, 2, 0, "pct:depth=3", 16, "sc", false, true);
  } else if (handoff) {
    // mutex.c's top waiter asks for the hand-off as soon as it is woken
    // and beaten, and it reads no clock: owed from its first wait.
    const auto at_once = [&] {
      entries.back().args.insert(entries.back().args.end(), {"--handoff-after", "0"});
    };
    add(0, 3, 1, "random", 16, "sc", false, false), fair(), at_once();
    add(0, 3, 1, "pct:depth=3", 16, "sc", false, false);
  }
  return entries;
}

// What one portfolio entry searched, over its runs (a sampling search
// runs again in each round, with the next seed).
struct Covered {
  int runs = 0;
  std::uint64_t schedules = 0;
  double seconds = 0;
  std::string verdict = "-";  // "-": not run
  bool complete = false;      // exhaustive: every schedule within its bound
  int bound_done = -1;        // exhaustive: the largest bound searched completely
  int uncounted = 0;          // runs that left no outcome (killed outright): not in `schedules`
};

// An explore run's --outcome file, added into `c`; a missing file or one
// not what explore writes adds nothing but is counted as such (explore
// writes one even when the lock crashed; a process killed outright does
// not, and its count is not known here; the run's exit code still counts).
void read_outcome(const std::string& path, Covered* c) {
  try {
    const nlohmann::json doc = nlohmann::json::parse(read_text(path));
    const nlohmann::json& run = doc.at("runs").at(0);
    c->schedules += run.at("schedules").get<std::uint64_t>();
    c->seconds += run.at("seconds").get<double>();
    c->complete = run.at("complete").get<bool>();
    c->bound_done = std::max(c->bound_done, run.at("bound_done").get<int>());
  } catch (const nlohmann::json::exception&) {
    ++c->uncounted;
  }
}

// The coverage table of one lock's portfolio: what a PASS searched.
std::vector<std::string> coverage_lines(const std::vector<PortfolioEntry>& entries,
                                        const std::vector<Covered>& covered) {
  std::size_t width = 6;
  for (const PortfolioEntry& e : entries) width = std::max(width, e.label.size());
  std::vector<std::string> lines = {fmt::format("  {:<{}} {:<8} {:>4} {:>10} {:>8}  {}", "SEARCH",
                                                width, "VERDICT", "RUNS", "SCHEDULES", "SECONDS",
                                                "COVERED")};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Covered& c = covered[i];
    std::string what;
    if (c.runs == 0) what = "not run";
    else if (entries[i].exhaustive && c.complete)
      what = fmt::format("complete: every schedule within bound {}", c.bound_done);
    else if (entries[i].exhaustive)
      what = c.bound_done >= 0 ? fmt::format("bound {} complete, bound {} not", c.bound_done,
                                             c.bound_done + 1)
                               : "no bound complete";
    else
      what = fmt::format("{} seed{} from 0", c.runs, c.runs == 1 ? "" : "s");
    if (c.uncounted > 0)
      what += fmt::format("; {} left no count (its process ended without writing its "
                          "outcome: its lines above say how)",
                          c.uncounted == c.runs ? "the search" : fmt::format("{} of the runs", c.uncounted));
    // (no count at all: a dash, not a 0 that would read as nothing run)
    const bool none = c.runs > 0 && c.uncounted == c.runs;
    lines.push_back(fmt::format("  {:<{}} {:<8} {:>4} {:>10} {:>8}  {}", entries[i].label, width,
                                c.verdict, c.runs, none ? "-" : std::to_string(c.schedules),
                                none ? "-" : fmt::format("{:.1f}", c.seconds), what));
  }
  return lines;
}

}  // namespace

int run_kernel(const RunConfig& cfg, const Output& out) {
  const RunConfig::Kernel& k = cfg.kernel;
  auto fail = [&](const std::string& message) {
    out.error(message);
    return 2;
  };
  // A signal before any lock ran: say what was cut short (the work
  // directory and a half-built plugin are removed on the way out).
  auto interrupted_before = [&](const std::string& what) {
    out.print(fmt::format("rwstress kernel: INTERRUPTED by {} while {}: nothing was judged",
                          interrupt_signal_name(interrupt_signal()), what));
    return 128 + interrupt_signal();
  };
  Layout layout;
  std::string error;
  if (!find_layout(&layout, &error)) return fail(error);

  const std::string cache = k.cache_dir.empty() ? default_cache() : k.cache_dir;
  std::error_code ec;
  for (const char* sub : {"", "/src", "/plugins", "/logs"}) {
    const std::string dir = cache + sub;
    if (!is_dir(dir)) {
      fs::create_directories(dir, ec);
      if (ec) return fail(fmt::format("kernel --cache {}: {}", cache, ec.message()));
      // Made here: writable by its owner alone, whatever the umask.
      fs::permissions(dir, fs::perms(0755), ec);
    }
    if (std::string why = cache_problem(dir); !why.empty()) return fail(why);
  }

  // The tree: the user's, or Debian's source of --version.
  std::string tree = k.source;
  if (tree.empty()) {
    const std::string path_file = cache + "/logs/fetch-path";
    const std::string log = cache + "/logs/fetch.log";
    fs::remove(path_file, ec);
    fs::remove(log, ec);
    out.print(fmt::format("rwstress kernel: fetching linux {} (Debian's source package, cached in {}/src)",
                          k.version, cache));
    const int rc = run_program({layout.data_dir + "/kernel-fetch.sh", k.version, cache + "/src",
                                path_file},
                               log, &error);
    if (interrupt_signal() != 0) return interrupted_before("fetching linux " + k.version);
    if (rc != 0)
      return fail(rc < 0 ? "kernel --version: " + error
                         : fmt::format("kernel --version {}: {}", k.version, first_problem(log)));
    tree = read_text(path_file);
    while (!tree.empty() && (tree.back() == '\n' || tree.back() == '\r')) tree.pop_back();
  }
  if (!is_dir(tree + "/kernel/locking") || !is_file(tree + "/Makefile"))
    return fail(fmt::format("kernel --source {}: not a kernel tree (no kernel/locking/ and Makefile)",
                            tree));
  TreeVersion version;
  if (!read_tree_version(tree, &version))
    return fail(fmt::format("kernel --source {}: its Makefile gives no VERSION, PATCHLEVEL and "
                            "SUBLEVEL",
                            tree));

  // The developer's patches, on a copy of kernel/locking/.
  fs::path locking = fs::path(tree) / "kernel" / "locking";
  std::vector<std::string> changed;  // the files under it they changed, made or deleted
  std::string work;
  FileDigests work_outside;  // the copy's files outside kernel/locking/
  // Everything a patch did, judged on the copy: nothing outside
  // kernel/locking/ created or changed, nothing but regular files and
  // directories anywhere.
  const auto work_tree_problem = [&](const std::string& dir) -> std::string {
    std::error_code e;
    for (auto it = fs::recursive_directory_iterator(dir, e); !e && it != fs::end(it);
         it.increment(e)) {
      const fs::file_status st = it->symlink_status(e);
      if (!fs::is_regular_file(st) && !fs::is_directory(st))
        return fmt::format("it makes {} a {} (rwstress kernel takes regular files only)",
                           fs::relative(it->path(), dir).string(),
                           fs::is_symlink(st) ? "symbolic link" : "special file");
    }
    const FileDigests now = outside_locking(dir);
    for (const auto& [path, digest] : now) {
      const auto was = work_outside.find(path);
      if (was == work_outside.end() || was->second != digest)
        return fmt::format("it {} {}, outside kernel/locking/ (rwstress kernel builds only that "
                           "directory)",
                           was == work_outside.end() ? "creates" : "changes", path);
    }
    for (const auto& [path, digest] : work_outside)
      if (!now.count(path))
        return fmt::format("it deletes {}, outside kernel/locking/", path);
    return {};
  };
  struct WorkGuard {
    std::string* dir;
    ~WorkGuard() {
      std::error_code ec;
      if (!dir->empty()) fs::remove_all(*dir, ec);
    }
  } work_guard{&work};
  if (!k.patches.empty()) {
    std::string templ = cache + "/work-XXXXXX";
    if (!mkdtemp(templ.data())) return fail(fmt::format("kernel: cannot make a work directory in {}", cache));
    work = templ;
    fs::create_directories(fs::path(work) / "kernel", ec);
    fs::copy(locking, locking_work(work), fs::copy_options::recursive, ec);
    if (!ec) fs::copy_file(fs::path(tree) / "Makefile", fs::path(work) / "Makefile", ec);
    if (ec) return fail(fmt::format("kernel: cannot copy {}: {}", locking.string(), ec.message()));
    work_outside = outside_locking(work);
    for (const std::string& patch : k.patches) {
      if (is_dir(patch))
        return fail(fmt::format("kernel --patch {}: a directory (give a patch file: git "
                                "format-patch's, or diff -u's)",
                                patch));
      if (!is_file(patch)) return fail(fmt::format("kernel --patch {}: no such file", patch));
      if (std::string why = check_patch_text(read_text(patch)); !why.empty())
        return fail(fmt::format("kernel --patch {}: {}; nothing was applied", patch, why));
      const FileDigests before = files_under(locking_work(work));
      const std::string log = cache + "/logs/patch.log";
      fs::remove(log, ec);
      const std::string abs = fs::absolute(patch).string();
      for (bool dry : {true, false}) {
        std::vector<std::string> argv = {"patch", "-p1", "--batch", "--forward", "--silent", "-d",
                                         work, "-i", abs};
        if (dry) argv.push_back("--dry-run");
        const int rc = run_program(argv, log, &error);
        if (interrupt_signal() != 0) return interrupted_before("applying " + patch);
        if (rc != 0)
          return fail(rc < 0 ? "kernel --patch: " + error
                             : fmt::format("kernel --patch {} does not apply to {}'s kernel/locking/ "
                                           "(rwstress kernel builds only that directory): {}",
                                           patch, version.name(), first_problem(log)));
      }
      // What the patch did, judged on the tree it made (patch(1) has more
      // ways to name a file than a check of its text can know).
      if (std::string why = work_tree_problem(work); !why.empty())
        return fail(fmt::format("kernel --patch {}: {}", patch, why));
      if (files_under(locking_work(work)) == before)
        return fail(fmt::format("kernel --patch {}: it changed nothing in kernel/locking/ (empty, "
                                "or file modes only): is it the patch you meant?",
                                patch));
    }
    changed = changed_files(files_under(locking), files_under(locking_work(work)));
    locking = locking_work(work);
  }

  // The configuration: each key's default, then the user's.
  std::vector<std::pair<std::string, bool>> config;
  for (const KernelConfigKey& key : kernel_config_keys()) config.emplace_back(key.name, key.default_on);
  for (const auto& [key, on] : k.config)
    for (auto& c : config)
      if (c.first == key) c.second = on;
  auto on = [&](const char* key) {
    for (const auto& c : config)
      if (c.first == key) return c.second;
    return false;
  };

  std::vector<std::string> files = k.files;
  std::string chosen;  // why these files, when --files did not say
  if (files.empty()) {
    // With patches: the groups that build a file they change; a changed
    // file no group builds (a header: any of them may read it) takes
    // every group. Without: every group.
    std::string unbuilt;
    for (const std::string& path : changed)
      if (std::none_of(kernel_file_groups().begin(), kernel_file_groups().end(),
                       [&](const KernelFileGroup& g) { return group_builds(g, path, on); }))
        unbuilt = path;
    for (const KernelFileGroup& g : kernel_file_groups())
      if (changed.empty() || !unbuilt.empty() ||
          std::any_of(changed.begin(), changed.end(),
                      [&](const std::string& path) { return group_builds(g, path, on); }))
        files.push_back(g.name);
    if (!unbuilt.empty())
      chosen = fmt::format("all: the patches change {}, which no group builds as its own source",
                           unbuilt);
    else if (!changed.empty())
      chosen = fmt::format("{}: the groups that build what the patches change (--files for "
                           "the others)",
                           fmt::join(files, ","));
  }

  std::string patches;
  for (const std::string& p : k.patches) patches += (patches.empty() ? "" : ", ") + p;
  std::string stages;
  if (k.validate) stages = fmt::format("validate --time {} per lock", format_duration(k.time));
  if (k.explore)
    stages += fmt::format("{}explore (the -DRWSTRESS_KERNEL_EXPLORE build): a portfolio of "
                          "searches per lock, {}",
                          stages.empty() ? "" : ", then ",
                          k.explore_schedules == 0
                              ? format_duration(k.explore_time) + " in all"
                              : fmt::format("{} schedules each", k.explore_schedules));
  out.print(fmt::format("rwstress {} kernel: {} ({}){}; {}; plugins cached in {}/plugins", kVersion,
                        version.name(), tree, patches.empty() ? "" : ", patched with " + patches,
                        stages, cache));
  if (!chosen.empty()) out.print("rwstress kernel: files " + chosen);

  const char* cc = std::getenv("CC");
  const std::string compiler = cc && *cc ? cc : "cc";
  Hash layer;
  layer.add(kVersion);
  layer.add(compiler);
  layer.add_tree(fs::path(layout.include_dir) / "rwstress");
  layer.add_tree(fs::path(layout.data_dir) / "kernel-glue");
  const std::vector<std::string> explore_flags = explore_cflags(layout.data_dir);
  if (k.explore && explore_flags.empty())
    return fail(fmt::format("kernel: {}/kernel-glue/explore-cflags is missing or empty (a broken "
                            "install): the explore build's flags are there", layout.data_dir));
  std::vector<Row> rows;
  std::string cut;  // what a signal cut short: the table says so and the run ends
  for (const std::string& name : files) {
    if (!cut.empty()) break;
    const KernelFileGroup& group = *std::find_if(
        kernel_file_groups().begin(), kernel_file_groups().end(),
        [&](const KernelFileGroup& g) { return name == g.name; });
    std::vector<std::string> sources;
    for (const char* f : group.files) sources.push_back((locking / f).string());
    std::vector<std::string> flags = {
        "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-I" + layout.include_dir,
        "-I" + layout.include_dir + "/rwstress/kernel-compat",
        fmt::format("-DRWSTRESS_LINUX_VERSION_CODE={}", version.code()),
        fmt::format("-DRWSTRESS_KERNEL_NAME_PREFIX=\"{}\"", version.prefix())};
    std::string config_text = "-";
    if (const KernelConfigKey* key = config_key_of(group)) {
      const bool spin = on(key->name);
      config_text = fmt::format("{}={}", key->name, spin ? "y" : "n");
      if (spin) {
        flags.push_back(fmt::format("-DCONFIG_{}=1", key->name));
        sources.push_back((locking / "osq_lock.c").string());
      }
    }
    std::string shown;
    for (const std::string& s : sources) shown += (shown.empty() ? "" : " ") + fs::path(s).filename().string();

    // Builds the files with `extra` flags into a cached plugin; "" when it
    // does not compile (the rows say why), or when the machine is at fault
    // (the cache cannot be written, the compiler failed for no fault of
    // the source: `machine_failed`, the run stops with one line, exit 2).
    bool machine_failed = false;
    auto build = [&](const std::vector<std::string>& extra, const std::string& stem,
                     std::string* why) -> std::string {
      Hash key = layer;
      for (const std::string& f : flags) key.add(f);
      for (const std::string& f : extra) key.add(f);
      key.add_tree(locking);
      const std::string plugin = fmt::format("{}/plugins/{}-{:016x}.so", cache, stem, key.h);
      if (is_file(plugin)) {
        if (plugin_matches(plugin, key.h)) {
          out.print(fmt::format("kernel: {}: {} is cached (same files, layer and flags; digest "
                                "checked)",
                                stem, plugin));
          return plugin;
        }
        out.print(fmt::format("kernel: {}: {} does not match its recorded digest (replaced or "
                              "damaged): not loaded, rebuilt",
                              stem, plugin));
        fs::remove(plugin, ec);
      }
      const std::string log = fmt::format("{}/logs/{}.log", cache, stem);
      fs::remove(log, ec);
      std::string tmp = cache + "/plugins/.build-XXXXXX";
      const int fd = mkstemp(tmp.data());
      if (fd < 0) {
        *why = fmt::format("kernel: cannot write in {}/plugins", cache);
        machine_failed = true;
        return "";
      }
      close(fd);
      std::vector<std::string> argv = {compiler};
      argv.insert(argv.end(), flags.begin(), flags.end());
      argv.insert(argv.end(), extra.begin(), extra.end());
      argv.insert(argv.end(), sources.begin(), sources.end());
      argv.push_back(layout.data_dir + "/kernel-glue/" + group.glue);
      argv.push_back("-o");
      argv.push_back(tmp);
      const int rc = run_program(argv, log, &error);
      if (rc == 0) {
        const std::string recorded = write_chosen_file(
            plugin + ".digest", digest_text(content_digest(read_text(tmp)), key.h), 0644);
        if (recorded.empty() && ::rename(tmp.c_str(), plugin.c_str()) == 0) {
          out.print(fmt::format("kernel: {}: built {}", stem, plugin));
          return plugin;
        }
        fs::remove(tmp, ec);
        *why = fmt::format("kernel: cannot keep {} in {}/plugins: {}", stem, cache,
                           recorded.empty() ? std::strerror(errno) : recorded);
        machine_failed = true;
        return "";
      }
      fs::remove(tmp, ec);
      if (interrupt_signal() != 0) {
        cut = fmt::format("building {} (nothing of it was cached)", stem);
        return "";
      }
      if (const std::string machine = not_the_source(rc, log); !machine.empty()) {
        // Not the source's fault: one line and exit 2, never 125 (git
        // bisect run would skip every commit).
        *why = fmt::format("kernel: building {} failed, and not because of the source: {}{}{}",
                           stem, machine, rc < 0 ? " (" + error + ")" : "",
                           rc < 0 ? "" : fmt::format(" (log: {})", log));
        machine_failed = true;
        return "";
      }
      *why = fmt::format("{} (log: {})", first_problem(log), log);
      return "";
    };
    const std::string stem = fmt::format("{}-{}", version.prefix(), name);
    std::string why;
    const std::string plugin = build({}, stem, &why);
    const std::string explore_plugin =
        plugin.empty() || !k.explore ? "" : build(explore_flags, stem + "-explore", &why);
    if (!cut.empty()) break;
    if (machine_failed) return fail(why);
    if (plugin.empty() || (k.explore && explore_plugin.empty())) {
      for (const char* suffix : group.locks)
        rows.push_back({fmt::format("{}-{}", version.prefix(), suffix), shown, config_text, "BUILD",
                        "-", why, 1, 125});
      continue;
    }
    for (const char* suffix : group.locks) {
      Row row{fmt::format("{}-{}", version.prefix(), suffix), shown, config_text, "PASS", plugin, "", 0, 0};
      if (k.validate) {
        out.print("");
        const int rc = run_program({layout.exe, "--plugin", plugin, "validate", "--lock", row.lock,
                                    "--time", format_duration(k.time)},
                                   "", &error);
        if (interrupt_signal() != 0) {  // interrupted: said in the table
          cut = fmt::format("validating {}", row.lock);
          break;
        }
        keep_worst(judge(rc, "validate", error), &row);
      }
      if (k.explore) {
        // The lock's portfolio on the explore build, in rounds until the
        // time budget is spent: each exhaustive search once (its share of
        // the budget: bound 2, then 3, as far as it gets), each sampling
        // search again every round with the next seed, a slice of the
        // budget each time, so that every search starts early and none
        // starves the others. The first failure ends the lock's
        // exploration (its trace and replay line are in the output above
        // the table); --explore-schedules runs each search once instead.
        const std::vector<PortfolioEntry> entries = explore_portfolio(suffix);
        std::vector<Covered> covered(entries.size());
        const bool timed = k.explore_schedules == 0;
        int weights = 0;
        for (const PortfolioEntry& e : entries) weights += e.weight;
        const double budget = std::chrono::duration<double>(k.explore_time).count();
        const auto began = std::chrono::steady_clock::now();
        const auto left = [&] {
          return budget - std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        };
        const std::string outcome = fmt::format("{}/logs/{}-explore.json", cache, row.lock);
        bool failed = false;
        for (int round = 0; !failed && cut.empty(); ++round) {
          bool ran = false;
          for (std::size_t i = 0; i < entries.size() && !failed; ++i) {
            const PortfolioEntry& e = entries[i];
            if (round > 0 && (e.exhaustive || !timed)) continue;
            double slice = 0;
            if (timed) {
              if (left() < 0.5) break;
              // An exhaustive search: its weighted share of the whole
              // budget; a sampling search: a quarter of that a round, at
              // least a second.
              const double share = budget * e.weight / weights;
              slice = std::min(left(), e.exhaustive ? share : std::max(1.0, share / 4));
            }
            out.print("");
            // (a timed search split among the CPUs, explore --jobs 0; a
            // counted one in one process: the same schedules on any machine)
            std::vector<std::string> argv = {layout.exe, "--plugin", explore_plugin, "explore",
                                             "--lock", row.lock, "--seed", std::to_string(round),
                                             "--outcome", outcome, "--jobs", timed ? "0" : "1",
                                             "--schedules",
                                             std::to_string(timed ? std::uint64_t(100'000'000)
                                                                  : k.explore_schedules)};
            if (timed)
              argv.insert(argv.end(), {"--time", format_duration(std::chrono::milliseconds(
                                                     std::int64_t(slice * 1000)))});
            argv.insert(argv.end(), e.args.begin(), e.args.end());
            fs::remove(outcome, ec);
            const int rc = run_program(argv, "", &error);
            if (interrupt_signal() != 0) {
              cut = fmt::format("exploring {}", row.lock);
              break;
            }
            ran = true;
            Covered& c = covered[i];
            ++c.runs;
            read_outcome(outcome, &c);
            const Judged one = judge(rc, "explore", error);
            if (c.verdict == "-" || one.rank > 0) c.verdict = one.verdict;
            keep_worst(one, &row);
            failed = one.rank > 0;
          }
          if (!ran) break;
        }
        fs::remove(outcome, ec);
        if (!cut.empty()) break;
        // What was searched, under the row in the table (a PASS says
        // exactly what it covers).
        std::string table = fmt::format(
            "explore ({}), {} searches{}, {}:", explore_plugin, entries.size(),
            timed ? ", budget " + format_duration(k.explore_time)
                  : fmt::format(", {} schedule{} each", k.explore_schedules, k.explore_schedules == 1 ? "" : "s"),
            failed ? "stopped at the first failure" : "no failure");
        for (const std::string& line : coverage_lines(entries, covered)) table += "\n    " + line;
        row.note += (row.note.empty() ? "" : "\n    ") + table;
      }
      if (!cut.empty()) break;
      rows.push_back(row);
    }
  }

  out.print("");
  std::size_t lock_width = 16;  // k6.18-percpu-rwsem is wider
  for (const Row& r : rows) lock_width = std::max(lock_width, r.lock.size());
  if (!rows.empty() || cut.empty())  // (an interrupted run that judged nothing has no table)
    out.print(fmt::format("{:<{}} {:<32} {:<23} {:<8} {}", "LOCK", lock_width, "FILES", "CONFIG",
                          "VERDICT", "PLUGIN (run it with --plugin)"));
  int worst = 0, code = 0;
  for (const Row& r : rows) {
    out.print(fmt::format("{:<{}} {:<32} {:<23} {:<8} {}", r.lock, lock_width, r.files, r.config,
                          r.verdict, r.plugin));
    if (!r.note.empty()) out.print("    " + r.note);
    if (r.rank > worst || (r.rank == worst && r.code != 0 && code == 0)) worst = r.rank, code = r.code;
  }
  const char* summary = worst == 0 ? "every lock PASSes"
                        : worst == 1 ? "a file does not compile against the layer (exit 125: "
                                       "git bisect run skips this commit)"
                                     : "a lock did not PASS";
  if (!cut.empty()) {
    // The rows above ran to their end; the lock cut short and those after
    // it were not judged: never a PASS.
    out.print(fmt::format("rwstress kernel: {}: INTERRUPTED by {} while {}: {}", version.name(),
                          interrupt_signal_name(interrupt_signal()), cut,
                          rows.empty() ? std::string("nothing was judged")
                                       : fmt::format("the {} row{} above ran to the end, the rest "
                                                     "was not judged",
                                                     rows.size(), rows.size() == 1 ? "" : "s")));
    return 128 + interrupt_signal();
  }
  out.print(fmt::format("rwstress kernel: {}: {}", version.name(), summary));
  return code;
}

}  // namespace rwstress
