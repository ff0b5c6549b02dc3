#include "gates/runner/program_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>

namespace pg {
namespace {

struct Kept {
  std::mutex mutex;
  std::map<std::string, std::pair<std::string, std::string>> by_name;  // name -> (PATH, file)
};

Kept& Cache() {
  static auto* kept = new Kept;  // never destroyed: spawns may run while statics end
  return *kept;
}

std::string SearchPath(const std::string& name, const std::string& path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty() || dir[0] != '/') return "";  // relative to the child's cwd: its own search
    std::string file = dir + (dir.back() == '/' ? "" : "/") + name;
    struct stat st {};
    // execvp goes on past a file it may not execute (EACCES) and a missing one.
    if (stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(file.c_str(), X_OK) == 0)
      return file;
    start = end + 1;
  }
  return "";
}

}  // namespace

std::string ResolvedProgram(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return "";
  const char* env = std::getenv("PATH");
  if (env == nullptr) return "";  // execvp's default path (confstr) is its own business
  std::string path = env;
  Kept& kept = Cache();
  std::lock_guard<std::mutex> lock(kept.mutex);
  auto it = kept.by_name.find(name);
  if (it != kept.by_name.end() && it->second.first == path) return it->second.second;
  std::string file = SearchPath(name, path);
  if (!file.empty()) kept.by_name[name] = {path, file};
  return file;
}

void ForgetResolvedProgram(const std::string& name) {
  Kept& kept = Cache();
  std::lock_guard<std::mutex> lock(kept.mutex);
  kept.by_name.erase(name);
}

}  // namespace pg
