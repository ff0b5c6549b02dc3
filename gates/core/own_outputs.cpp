#include "gates/core/own_outputs.h"

#include <sys/stat.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace pg {
namespace {

// The file behind a standard stream, when it is a regular file (not a tty, pipe or /dev/null).
std::string RegularFileOf(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::error_code ec;
  fs::path target = fs::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
  return ec ? "" : target.lexically_normal().string();
}

}  // namespace

std::vector<std::string> OwnOutputFiles(const std::vector<std::string>& reports) {
  std::vector<std::string> out;
  for (int fd : {1, 2}) {
    std::string file = RegularFileOf(fd);
    if (!file.empty()) out.push_back(file);
  }
  std::error_code ec;
  for (const std::string& r : reports) {
    if (!r.empty()) out.push_back(fs::absolute(r, ec).lexically_normal().string());
  }
  return out;
}

std::vector<std::string> InsideTree(const std::string& root,
                                    const std::vector<std::string>& files) {
  std::error_code ec;
  fs::path base = fs::weakly_canonical(root, ec);
  std::vector<std::string> out;
  for (const std::string& f : files) {
    fs::path real = fs::weakly_canonical(f, ec);
    fs::path rel = real.lexically_relative(base);
    if (ec || rel.empty() || *rel.begin() == "..") continue;
    out.push_back(rel.generic_string());
  }
  return out;
}

std::string PrefixInTree(const std::string& top, const std::string& dir) {
  std::vector<std::string> inside = InsideTree(top, {dir});
  return inside.empty() || inside[0] == "." ? "" : inside[0] + "/";
}

}  // namespace pg
