#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
// /dev/null or the link itself with a regular file.
std::string write_in_place(const std::string& path, const std::vector<ReportPiece>& pieces) {
  int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
  if (fd < 0 && errno == EINVAL) fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return fmt::format("cannot open '{}': {}", path, std::strerror(errno));
  std::string err = write_pieces(fd, pieces, path);
  if (close(fd) != 0 && err.empty())
    err = fmt::format("cannot write '{}': {}", path, std::strerror(errno));
  return err;
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

std::string write_report_file(const std::string& path, const std::string& text) {
  return write_report_file(path, std::vector<ReportPiece>{text});
}

std::string write_report_file(const std::string& path, const std::vector<ReportPiece>& pieces) {
  if (path.empty()) return "an empty path";
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return fmt::format("'{}' is a directory", path);
    return write_in_place(path, pieces);
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
  fchmod(fd, 0666 & ~mask);  // as an ordinary create would, not mkstemp's 0600
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

}  // namespace rwstress

namespace rwstress {

bool is_stream(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::string open_report_file(const char* flag, const std::string& path,
                             const std::vector<ReportPiece>& empty) {
  std::string err;
  if (is_stream(path))
    err = access(path.c_str(), W_OK) == 0 ? "" : fmt::format("cannot write '{}'", path);
  else
    err = write_report_file(path, empty);
  return err.empty() ? "" : fmt::format("{}: {}", flag, err);
}

}  // namespace rwstress
