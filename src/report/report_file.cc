#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "report/report.h"

namespace rwstress {

namespace {

// Writes all of `text` to fd; "" or why not (a full disk is the usual why).
std::string write_all(int fd, std::string_view text, const std::string& shown) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fmt::format("cannot write '{}': {}", shown, std::strerror(n < 0 ? errno : EIO));
    p += n;
    left -= std::size_t(n);
  }
  return "";
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string write_pieces(int fd, const std::vector<ReportPiece>& pieces, const std::string& shown) {
  for (const ReportPiece& piece : pieces) {
    std::string err = std::holds_alternative<std::string>(piece)
                          ? write_all(fd, std::get<std::string>(piece), shown)
                          : std::get<const Spool*>(piece)->copy_to(fd, shown);
    if (!err.empty()) return err;
  }
  return "";
}

// A device, a pipe or a symlink (to /dev/stdout, or a file the user keeps
// elsewhere) is written through, in place: renaming over it would replace
// /dev/null or the link itself with a regular file. A FIFO is opened
// without blocking: with no process reading it, open() would wait for
// one for ever, deaf to SIGINT (the handler restarts it).
std::string write_in_place(const std::string& path, const std::vector<ReportPiece>& pieces) {
  struct stat st;
  const bool fifo = stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | (fifo ? O_NONBLOCK : O_TRUNC);
  int fd = open(path.c_str(), flags);
  if (fd < 0 && errno == EINVAL) fd = open(path.c_str(), flags & ~O_TRUNC);
  if (fd < 0 && fifo && errno == ENXIO)
    return fmt::format("cannot write '{}': it is a FIFO and no process is reading it", path);
  if (fd < 0) return fmt::format("cannot open '{}': {}", path, std::strerror(errno));
  if (fifo) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // a reader is there: wait for it
  std::string err = write_pieces(fd, pieces, path);
  if (close(fd) != 0 && err.empty())
    err = fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  return err;
}

// Whether a new file can be made beside `path` (and so renamed over it),
// without touching `path`: "" or why not.
std::string can_create_beside(const std::string& path) {
  std::string tmp = directory_of(path) + "/." + base_name(path) + ".XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0)
    return fmt::format("cannot create a file in '{}': {}", directory_of(path), std::strerror(errno));
  close(fd);
  unlink(tmp.c_str());
  return "";
}

}  // namespace

Spool::Spool() {
  const char* dir = std::getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  fd_ = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0) {  // a file system without O_TMPFILE: a named one, unlinked at once
    std::string name = std::string(dir) + "/.rwstress-spool.XXXXXX";
    fd_ = mkstemp(name.data());
    if (fd_ >= 0) unlink(name.c_str());
  }
  if (fd_ < 0) error_ = fmt::format("cannot create a temporary file in '{}': {}", dir, std::strerror(errno));
}

Spool::~Spool() {
  if (fd_ >= 0) close(fd_);
}

std::string Spool::append(std::string_view text) {
  if (!error_.empty()) return error_;
  std::string err = write_all(fd_, text, "a temporary file");
  if (!err.empty()) return error_ = err;
  size_ += text.size();
  return "";
}

std::string Spool::copy_to(int fd, const std::string& shown) const {
  if (!error_.empty()) return error_;
  char buf[1 << 16];
  for (off_t at = 0; std::uint64_t(at) < size_;) {
    ssize_t n = pread(fd_, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fmt::format("cannot read back a temporary file: {}", std::strerror(n < 0 ? errno : EIO));
    std::string err = write_all(fd, std::string_view(buf, std::size_t(n)), shown);
    if (!err.empty()) return err;
    at += n;
  }
  return "";
}

std::string write_report_file(const std::string& path, const std::string& text, mode_t mode) {
  return write_report_file(path, std::vector<ReportPiece>{text}, mode);
}

namespace {

std::string write_file(const std::string& path, const std::vector<ReportPiece>& pieces, mode_t mode,
                       bool through_links) {
  if (path.empty()) return "an empty path";
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return fmt::format("'{}' is a directory", path);
    if (through_links) return write_in_place(path, pieces);
  }
  // A fresh temporary beside the target (mkstemp: O_CREAT|O_EXCL, so a name
  // planted in a shared directory is never followed), then one rename: a
  // reader sees the old file or the whole new one, never half of it.
  std::string tmp = directory_of(path) + "/." + base_name(path) + ".XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return fmt::format("cannot create a file in '{}': {}", directory_of(path),
                                 std::strerror(errno));
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, mode & ~mask);  // as an ordinary create would, not mkstemp's 0600
  std::string err = write_pieces(fd, pieces, path);
  if (err.empty() && fsync(fd) != 0)
    err = fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  if (close(fd) != 0 && err.empty())
    err = fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  if (err.empty() && std::rename(tmp.c_str(), path.c_str()) != 0)
    err = fmt::format("cannot replace '{}': {}", path, std::strerror(errno));
  if (!err.empty()) unlink(tmp.c_str());
  return err;
}

}  // namespace

std::string write_report_file(const std::string& path, const std::vector<ReportPiece>& pieces,
                              mode_t mode) {
  return write_file(path, pieces, mode, true);
}

std::string write_chosen_file(const std::string& path, const std::string& text, mode_t mode) {
  return write_file(path, std::vector<ReportPiece>{text}, mode, false);
}

}  // namespace rwstress

namespace rwstress {

bool is_stream(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::string check_report_path(const std::string& path) {
  if (path.empty()) return "an empty path";
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
    // A link is written through, never used to create what it points at
    // (a link planted in a shared directory could aim anywhere).
    if (lstat(path.c_str(), &st) == 0)
      return fmt::format("'{}' is a symlink to a file that does not exist (rwstress writes through "
                         "links, it does not create their targets)",
                         path);
    return can_create_beside(path);
  }
  if (S_ISDIR(st.st_mode)) return fmt::format("'{}' is a directory", path);
  if (access(path.c_str(), W_OK) != 0) return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  struct stat link;
  if (S_ISREG(st.st_mode) && lstat(path.c_str(), &link) == 0 && S_ISREG(link.st_mode))
    return can_create_beside(path);  // replaced by a rename: its directory must take a new file
  return "";
}

std::string open_report_file(const char* flag, const std::string& path,
                             const std::vector<ReportPiece>& empty) {
  // A file that is there already is the user's until this session has
  // something true to put in its place: it is checked, not replaced.
  struct stat st;
  const bool exists = stat(path.c_str(), &st) == 0 || lstat(path.c_str(), &st) == 0;
  std::string err = check_report_path(path);
  if (err.empty() && !exists) err = write_report_file(path, empty);
  return err.empty() ? "" : fmt::format("{}: {}", flag, err);
}

std::string resolved_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path at = fs::absolute(path, ec);
  if (ec) return path;
  // Follow the chain of links by hand: a link to a file not made yet
  // names that file, which fs::canonical would not say.
  for (int hops = 0; hops < 40; ++hops) {
    const fs::path parent = fs::weakly_canonical(at.parent_path(), ec);
    if (!ec) at = parent / at.filename();
    if (!fs::is_symlink(fs::symlink_status(at, ec))) break;
    const fs::path to = fs::read_symlink(at, ec);
    if (ec) break;
    at = to.is_absolute() ? to : at.parent_path() / to;
  }
  return at.lexically_normal().string();
}

std::string file_identity(const std::string& path) {
  const std::string at = resolved_path(path);
  struct stat st;
  if (stat(at.c_str(), &st) == 0) return fmt::format("inode {}:{}", st.st_dev, st.st_ino);
  return at;
}

}  // namespace rwstress
