#include "gates/contention/snapshot.h"

#include <sched.h>

#include <cstdlib>
#include <sstream>

#include "gates/core/integer_text.h"

namespace pg {

std::map<int, CpuTimes> ParseProcStat(const std::string& text, const std::set<int>& allowed) {
  std::map<int, CpuTimes> cpus;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 ||
        !isdigit(static_cast<unsigned char>(line[3])))
      continue;
    std::istringstream fields(line.substr(3));
    int index = -1;
    CpuTimes t;
    fields >> index >> t.user >> t.nice >> t.system >> t.idle >> t.iowait >> t.irq >> t.softirq;
    if (fields.fail()) continue;
    if (!(fields >> t.steal)) t.steal = 0;  // kernels before 2.6.11 have no steal column
    if (allowed.empty() || allowed.count(index)) cpus[index] = t;
  }
  return cpus;
}

std::optional<double> ParseLoadavg1(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  return v;
}

std::optional<double> ParsePsiSomeAvg10(const std::string& text) {
  size_t at = text.find("some avg10=");
  if (at == std::string::npos) return std::nullopt;
  const char* start = text.c_str() + at + 11;
  char* end = nullptr;
  double v = std::strtod(start, &end);
  if (end == start) return std::nullopt;
  return v;
}

std::optional<double> ParseThrottledSeconds(const std::string& text) {
  std::istringstream in(text);
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "throttled_usec") return static_cast<double>(value) / 1e6;  // cgroup v2
    if (key == "throttled_time") return static_cast<double>(value) / 1e9;  // cgroup v1, ns
  }
  return std::nullopt;
}

std::optional<PidStat> ParsePidStat(const std::string& text) {
  // The command name is in parentheses and may itself contain spaces and ')'.
  size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream in(text.substr(close + 1));
  std::string state;
  long ppid = 0;
  uint64_t skip, utime, stime;
  long cutime, cstime;
  in >> state >> ppid;
  for (int i = 0; i < 9; ++i) in >> skip;  // pgrp .. cmajflt
  in >> utime >> stime >> cutime >> cstime;
  if (in.fail()) return std::nullopt;
  return PidStat{static_cast<pid_t>(ppid), utime + stime,
                 static_cast<uint64_t>(std::max(0L, cutime) + std::max(0L, cstime))};
}

std::string LegTokenOf(const ProcSource& proc, pid_t pid) {
  auto environ = proc.Read("/proc/" + std::to_string(pid) + "/environ");
  if (!environ) return "";
  std::string key = std::string(kLegTokenVariable) + "=";
  for (size_t at = 0; at < environ->size();) {
    size_t end = environ->find('\0', at);
    if (end == std::string::npos) end = environ->size();
    if (environ->compare(at, key.size(), key) == 0)
      return environ->substr(at + key.size(), end - at - key.size());
    at = end + 1;
  }
  return "";
}

namespace {

// Parent links of every process; one this process adopted (the subreaper) hangs under the
// root whose token it carries, when it carries one.
std::multimap<pid_t, pid_t> ParentLinks(const ProcSource& proc,
                                        const std::map<pid_t, PidStat>& stats,
                                        const std::map<pid_t, std::string>& tokens) {
  std::map<std::string, pid_t> root_of;
  for (const auto& [root, token] : tokens) {
    if (!token.empty()) root_of[token] = root;
  }
  pid_t self = 0;
  if (auto text = proc.Read("/proc/self/stat"))
    self = static_cast<pid_t>(ParseInteger(text->substr(0, text->find(' '))).value_or(0));
  std::multimap<pid_t, pid_t> children;
  for (const auto& [pid, st] : stats) {
    pid_t parent = st.ppid;
    if (parent == self && self != 0 && !root_of.empty() && !tokens.count(pid)) {
      auto it = root_of.find(LegTokenOf(proc, pid));
      if (it != root_of.end()) parent = it->second;
    }
    children.emplace(parent, pid);
  }
  return children;
}

}  // namespace

std::map<pid_t, uint64_t> TreeTicks(const ProcSource& proc, const std::vector<pid_t>& roots,
                                    const std::map<pid_t, std::string>& tokens) {
  std::map<pid_t, uint64_t> out;
  if (roots.empty()) return out;
  std::map<pid_t, PidStat> stats;
  for (const std::string& name : proc.List("/proc")) {
    if (name.empty() || !isdigit(static_cast<unsigned char>(name[0]))) continue;
    auto text = proc.Read("/proc/" + name + "/stat");
    if (!text) continue;  // it exited between List and Read
    auto st = ParsePidStat(*text);
    if (st) stats[static_cast<pid_t>(ParseInteger(name).value_or(0))] = *st;
  }
  std::multimap<pid_t, pid_t> children = ParentLinks(proc, stats, tokens);
  for (pid_t root : roots) {
    uint64_t ticks = 0;
    std::vector<pid_t> stack{root};
    while (!stack.empty()) {
      pid_t pid = stack.back();
      stack.pop_back();
      auto it = stats.find(pid);
      if (it == stats.end()) continue;
      ticks += it->second.self_ticks + it->second.children_ticks;
      auto [from, to] = children.equal_range(pid);
      for (auto c = from; c != to; ++c) stack.push_back(c->second);
    }
    out[root] = ticks;
  }
  return out;
}

std::vector<std::string> CgroupCpuStatPaths(const ProcSource& proc) {
  std::vector<std::string> paths;
  auto text = proc.Read("/proc/self/cgroup");
  if (!text) return paths;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    // "0::/path" is cgroup v2; "N:cpu,cpuacct:/path" is the v1 cpu controller.
    size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1);
    std::string rel = line.substr(b + 1);
    if (rel == "/") rel.clear();
    if (controllers.empty()) {
      paths.push_back("/sys/fs/cgroup" + rel + "/cpu.stat");
      paths.push_back("/sys/fs/cgroup/unified" + rel + "/cpu.stat");  // hybrid layout
    } else if (("," + controllers + ",").find(",cpu,") != std::string::npos) {
      paths.push_back("/sys/fs/cgroup/" + controllers + rel + "/cpu.stat");
    }
  }
  return paths;
}

Snapshot TakeSnapshot(const ProcSource& proc, const std::vector<pid_t>& roots,
                      const std::set<int>& allowed_cpus, const std::map<pid_t, std::string>& tokens,
                      const std::vector<std::string>* cgroup_paths) {
  Snapshot s;
  if (auto t = proc.Read("/proc/stat")) s.cpus = ParseProcStat(*t, allowed_cpus);
  if (auto t = proc.Read("/proc/loadavg")) s.loadavg1 = ParseLoadavg1(*t);
  if (auto t = proc.Read("/proc/pressure/cpu")) s.psi_cpu = ParsePsiSomeAvg10(*t);
  if (auto t = proc.Read("/proc/pressure/io")) s.psi_io = ParsePsiSomeAvg10(*t);
  if (auto t = proc.Read("/proc/pressure/memory")) s.psi_memory = ParsePsiSomeAvg10(*t);
  std::vector<std::string> found =
      cgroup_paths ? std::vector<std::string>{} : CgroupCpuStatPaths(proc);
  for (const std::string& path : cgroup_paths ? *cgroup_paths : found) {
    if (auto t = proc.Read(path)) s.throttled_s = ParseThrottledSeconds(*t);
    if (s.throttled_s) break;  // v2 cpu.stat without the cpu controller has no throttling
  }
  if (auto t = proc.Read("/proc/self/stat")) {
    if (auto st = ParsePidStat(*t)) s.runner_ticks = st->self_ticks;
  }
  s.trees = TreeTicks(proc, roots, tokens);
  return s;
}

std::set<int> AllowedCpus() {
  std::set<int> out;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (CPU_ISSET(i, &set)) out.insert(i);
  }
  return out;
}

}  // namespace pg
