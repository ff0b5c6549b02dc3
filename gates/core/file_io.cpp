#include "gates/core/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace pg {

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Invalid(path + ": cannot read: " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Status::Invalid(path + ": read failed");
  return buffer.str();
}

Status AppendToFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Io(path + ": " + std::strerror(errno));
  ssize_t n = write(fd, text.data(), text.size());
  int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size()))
    return Status::Io(path + ": " + std::strerror(n < 0 ? err : EIO));
  return Status();
}

AppendingFile::~AppendingFile() {
  if (fd_ >= 0) close(fd_);
}

Status AppendingFile::Append(const std::string& path, const std::string& text) {
  if (fd_ < 0 || path != path_) {
    if (fd_ >= 0) close(fd_);
    path_ = path;
    fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) return Status::Io(path + ": " + std::strerror(errno));
  }
  ssize_t n = write(fd_, text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size()))
    return Status::Io(path + ": " + std::strerror(n < 0 ? errno : EIO));
  return Status();
}

Status WriteFileAtomic(const std::string& path, const std::string& content) {
  std::string temp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::Io(temp + ": cannot write: " + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) return Status::Io(temp + ": write failed: " + std::strerror(errno));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    std::remove(temp.c_str());
    return Status::Io(path + ": cannot replace: " + reason);
  }
  return Status();
}

std::string RelativePath(const std::string& path, const std::string& root) {
  std::string base = root;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (path.size() <= base.size() || path.compare(0, base.size(), base) != 0 ||
      path[base.size()] != '/')
    return path;
  size_t from = path.find_first_not_of('/', base.size());
  return from == std::string::npos ? "" : path.substr(from);
}

Status MakeDirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::Io(path + ": cannot create directory: " + ec.message());
  return Status();
}

}  // namespace pg
