#include "gates/core/disk_usage.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace pg {
namespace {

std::uint64_t Allocated(const fs::path& p) {
  struct stat st {};
  if (lstat(p.c_str(), &st) != 0) return 0;
  return static_cast<std::uint64_t>(st.st_blocks) * 512;
}

}  // namespace

std::uint64_t DiskUsage(const std::string& path) {
  std::error_code ec;
  std::uint64_t total = Allocated(path);
  if (!fs::is_directory(fs::symlink_status(path, ec))) return total;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) total += Allocated(it->path());
  return total;
}

std::string HumanBytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) value /= 1024, ++unit;
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 || value >= 10 ? "%.0f %s" : "%.1f %s", value,
                units[unit]);
  return text;
}

}  // namespace pg
