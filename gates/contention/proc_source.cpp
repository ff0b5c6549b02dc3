#include "gates/contention/proc_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace pg {
namespace {

// "/proc/<digits>/..." names one process, which may be gone by the next read.
bool NamesAProcess(const std::string& path) {
  constexpr std::string_view kProc = "/proc/";
  if (path.compare(0, kProc.size(), kProc) != 0) return false;
  size_t i = kProc.size();
  return i < path.size() && path[i] >= '0' && path[i] <= '9';
}

// Plain reads from offset 0: /proc files report size 0, so stream-size tricks do not work.
// A read that does not fill the buffer has reached the end: procfs and cgroupfs files are
// seq_files (the kernel fills a read up to its size unless the text ends) or, as environ,
// loop until it is filled; asking again for the 0 that says so doubled a machine reading's
// system calls (eight files at every leg's end).
std::optional<std::string> ReadFrom(int fd) {
  std::string out;
  char buf[16384];
  ssize_t n;
  while ((n = pread(fd, buf, sizeof buf, static_cast<off_t>(out.size()))) > 0) {
    out.append(buf, static_cast<size_t>(n));
    if (static_cast<size_t>(n) < sizeof buf) break;
  }
  if (n < 0) return std::nullopt;
  return out;
}

}  // namespace

RealProcSource::~RealProcSource() {
  for (const auto& [path, fd] : open_) close(fd);
}

std::optional<std::string> RealProcSource::Read(const std::string& path) const {
  if (NamesAProcess(path)) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    auto text = ReadFrom(fd);
    close(fd);
    return text;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = open_.find(path);
  if (it == open_.end()) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;  // absent files (no PSI, no cgroup v2) are asked again
    it = open_.emplace(path, fd).first;
  }
  return ReadFrom(it->second);
}

std::vector<std::string> RealProcSource::List(const std::string& dir) const {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  return names;
}

}  // namespace pg
