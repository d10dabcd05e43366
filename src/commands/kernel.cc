#include "commands/kernel.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

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
Judged judge(int rc, const char* what) {
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

// The shapes rwstress kernel --explore runs for a lock (by its name's
// suffix: the family): PCT at depth 3 over the 3-thread shapes, every
// schedule with at most 2 preemptions at 2 threads, and for the locks with
// killable entry points (rwsem.c, mutex.c, semaphore.c) random schedules
// with fatal signals (explore --signals: the bail-out paths); for rwsem.c,
// whose HANDOFF waits for RWSEM_WAIT_TIMEOUT (4 jiffies), time jumps at
// its jiffies reads in two of its shapes (explore --time-jumps); all of
// them with the memory model's ordering check (--memory c11).
std::vector<std::vector<std::string>> explore_shapes(std::string_view suffix) {
  const std::string pct = "pct:depth=3", exhaustive = "exhaustive:preemptions=2";
  const bool killable = suffix == "rwsem" || suffix == "semaphore" ||
                        suffix.find("mutex") != std::string_view::npos;
  std::vector<std::vector<std::string>> shapes;
  if (suffix.find("rwsem") != std::string_view::npos || suffix == "qrwlock") {
    shapes = {{"--readers", "2", "--writers", "1", "--strategy", pct},
              {"--readers", "1", "--writers", "2", "--strategy", pct},
              {"--readers", "1", "--writers", "1", "--strategy", exhaustive}};
    if (killable) shapes.push_back({"--readers", "2", "--writers", "2", "--strategy", "random", "--signals"});
    if (suffix == "rwsem")  // (the shapes that wait most: two writers)
      for (std::vector<std::string>& s : shapes)
        if (std::find(s.begin(), s.end(), exhaustive) == s.end() && s[3] == "2")
          s.insert(s.end(), {"--time-jumps", "2"});
  } else if (suffix == "semaphore") {
    shapes = {{"--threads", "3", "--count", "1", "--strategy", pct},
              {"--threads", "3", "--count", "2", "--strategy", pct},
              {"--threads", "2", "--count", "1", "--strategy", exhaustive},
              {"--threads", "3", "--count", "1", "--strategy", "random", "--signals"}};
  } else {
    shapes = {{"--threads", "3", "--strategy", pct}, {"--threads", "2", "--strategy", exhaustive}};
    if (killable) shapes.push_back({"--threads", "3", "--strategy", "random", "--signals"});
  }
  // Every one under the memory model too: schedules are the same, and a
  // holder that took the lock without the last write hold's data in its
  // view (a missing ACQUIRE or RELEASE) fails (docs/explore.md). The
  // exhaustive search takes validate's bound on weak choices.
  for (std::vector<std::string>& s : shapes) {
    s.insert(s.end(), {"--memory", "c11"});
    if (std::find(s.begin(), s.end(), exhaustive) != s.end())
      s.insert(s.end(), {"--stale-reads", std::to_string(kExhaustiveStaleReads)});
  }
  return shapes;
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
  if (files.empty())
    for (const KernelFileGroup& g : kernel_file_groups()) files.push_back(g.name);

  std::string patches;
  for (const std::string& p : k.patches) patches += (patches.empty() ? "" : ", ") + p;
  std::string stages;
  if (k.validate) stages = fmt::format("validate --time {} per lock", format_duration(k.time));
  if (k.explore)
    stages += fmt::format("{}explore (the -DRWSTRESS_KERNEL_EXPLORE build) at most {} schedules "
                          "per shape",
                          stages.empty() ? "" : ", then ", k.explore_schedules);
  out.print(fmt::format("rwstress {} kernel: {} ({}){}; {}; plugins cached in {}/plugins", kVersion,
                        version.name(), tree, patches.empty() ? "" : ", patched with " + patches,
                        stages, cache));

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
    if (name == "rwsem" || name == "mutex" || name == "ww-mutex") {
      const std::string key = name == "rwsem" ? "RWSEM_SPIN_ON_OWNER" : "MUTEX_SPIN_ON_OWNER";
      const bool spin = on(key.c_str());
      config_text = fmt::format("{}={}", key, spin ? "y" : "n");
      if (spin) {
        flags.push_back(fmt::format("-DCONFIG_{}=1", key));
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
        keep_worst(judge(rc, "validate"), &row);
      }
      if (k.explore) {
        // Each shape of the lock's family, explored on the explore build;
        // the worst verdict is the row's (the first of equals; each failing
        // run's trace and replay line are in the output above the table).
        std::string explored;
        for (const std::vector<std::string>& shape : explore_shapes(suffix)) {
          out.print("");
          std::vector<std::string> argv = {layout.exe, "--plugin", explore_plugin, "explore",
                                           "--lock", row.lock, "--schedules",
                                           std::to_string(k.explore_schedules)};
          argv.insert(argv.end(), shape.begin(), shape.end());
          const int rc = run_program(argv, "", &error);
          if (interrupt_signal() != 0) {
            cut = fmt::format("exploring {}", row.lock);
            break;
          }
          const Judged one = judge(rc, "explore");
          keep_worst(one, &row);
          std::string text;
          for (const std::string& a : shape) text += (text.empty() ? "" : " ") + a;
          explored += fmt::format("{}{}: {}", explored.empty() ? "" : "; ", text, one.verdict);
        }
        if (!cut.empty()) break;
        row.note += (row.note.empty() ? "" : "\n    ") + fmt::format("explore ({}): {}",
                                                                   explore_plugin, explored);
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
