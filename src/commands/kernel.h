// rwstress kernel: a kernel tree's own locking files, validated. Takes
// kernel/locking/ from a tree (--source) or from Debian's source package of
// a version (--version, fetched and cached), applies the developer's
// patches (--patch, patch -p1), builds each selected file into a plugin on
// the kernel-compat layer (cached by the files' content, the layer's and
// the flags), runs validate on each of its locks, prints one table and
// exits with the worst verdict (docs/plugins.md).
#pragma once

#include <string>
#include <vector>

#include "config/run_config.h"
#include "report/reporter.h"

namespace rwstress {

// A file group --files can name: the kernel files, the glue file, the locks.
struct KernelFileGroup {
  const char* name;                 // "rwsem"
  std::vector<const char*> files;   // under kernel/locking/
  const char* glue;                 // under the glue directory
  std::vector<const char*> locks;   // the suffixes of its lock names
  const char* describe;
};
const std::vector<KernelFileGroup>& kernel_file_groups();

// The --config keys rwstress kernel knows, each a CONFIG_ the files read.
struct KernelConfigKey {
  const char* name;  // without CONFIG_
  bool default_on;
  const char* what;
  std::vector<const char*> groups;  // the --files groups built with it
};
const std::vector<KernelConfigKey>& kernel_config_keys();

// "" or one line saying what is wrong with the --files / --config values.
std::string check_kernel_files(const std::vector<std::string>& files);
std::string parse_kernel_config(const std::string& text,
                                std::vector<std::pair<std::string, bool>>* out);
// "" or one line when a --config key is read by none of the --files
// groups (empty: every group).
std::string check_kernel_config_read(const std::vector<std::string>& files,
                                     const std::vector<std::pair<std::string, bool>>& config);
// Whether text is a kernel version --version takes: 6.18 or 6.18.15.
bool kernel_version_text(const std::string& text);

// "" or one line naming what a patch may not do: rwstress kernel builds
// kernel/locking/ alone, so every path the patch names (both sides of a
// diff, renames and copies, -p1 applied) must be a regular file under it;
// links, other file modes, binary patches and formats other than unified
// diffs are refused before anything is applied.
std::string check_patch_text(const std::string& text);

// 0 when every lock PASSes; else the exit code of the worst verdict; 125 when
// the only trouble is a file that does not compile against the layer (git
// bisect run: this commit cannot be tested); 2 with one line for bad input.
int run_kernel(const RunConfig& cfg, const Output& out);

}  // namespace rwstress
