#include "contention/proc_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace pg {

// Plain read(2): /proc files report size 0, so stream-size tricks do not work on them.
std::optional<std::string> RealProcSource::Read(const std::string& path) const {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[8192];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  if (n < 0) return std::nullopt;
  return out;
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
