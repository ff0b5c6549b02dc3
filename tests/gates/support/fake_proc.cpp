#include "tests/gates/support/fake_proc.h"

#include <cmath>

namespace pg::testing {

std::optional<std::string> FakeProc::Read(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  ++reads_[path];
  if (path == "/proc/stat" && live_cpus_ > 0) {
    std::vector<std::vector<uint64_t>> rows;
    for (auto& c : counters_) {
      uint64_t busy = static_cast<uint64_t>(std::lround(foreign_share.load() * 100));
      uint64_t steal = static_cast<uint64_t>(std::lround(steal_share.load() * 100));
      c["user"] += busy;
      c["steal"] += steal;
      c["idle"] += 100 - busy - steal;
      rows.push_back({c["user"], 0, 0, c["idle"], 0, 0, 0, c["steal"]});
    }
    return ProcStatText(rows);
  }
  auto it = files_.find(path);
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

int FakeProc::Reads(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = reads_.find(path);
  return it == reads_.end() ? 0 : it->second;
}

std::vector<std::string> FakeProc::List(const std::string& dir) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  std::string prefix = dir + "/";
  for (const auto& [path, text] : files_) {
    if (path.rfind(prefix, 0) != 0) continue;
    std::string rest = path.substr(prefix.size());
    std::string name = rest.substr(0, rest.find('/'));
    if (names.empty() || names.back() != name) names.push_back(name);
  }
  return names;
}

void FakeProc::Set(const std::string& path, const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  files_[path] = text;
}

void FakeProc::LiveStat(int cpus) {
  std::lock_guard<std::mutex> lock(mutex_);
  live_cpus_ = cpus;
  counters_.assign(cpus, {{"user", 1000}, {"idle", 1000}, {"steal", 0}});
}

std::string ProcStatText(const std::vector<std::vector<uint64_t>>& cpus) {
  std::vector<uint64_t> sum(8, 0);
  for (const auto& c : cpus) {
    for (size_t i = 0; i < 8; ++i) sum[i] += c[i];
  }
  auto line = [](const std::string& name, const std::vector<uint64_t>& v) {
    std::string out = name;
    for (uint64_t x : v) out += " " + std::to_string(x);
    return out + " 0 0\n";
  };
  std::string text = line("cpu ", sum);
  for (size_t i = 0; i < cpus.size(); ++i) text += line("cpu" + std::to_string(i), cpus[i]);
  return text + "intr 12345 0 0\nctxt 999\n";
}

std::string PidStatText(int pid, const std::string& comm, int ppid, uint64_t utime, uint64_t stime,
                        uint64_t cutime, uint64_t cstime) {
  return std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) +
         " 1 1 0 -1 4194304 100 0 0 0 " + std::to_string(utime) + " " + std::to_string(stime) +
         " " + std::to_string(cutime) + " " + std::to_string(cstime) + " 20 0 1 0 100 1000 100\n";
}

}  // namespace pg::testing
