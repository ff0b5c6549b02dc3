// Recorded /proc for contention tests: fixed files, plus a /proc/stat whose counters advance
// by 100 jiffies per CPU on every read, split by shares the test sets while it runs.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "gates/contention/proc_source.h"

namespace pg::testing {

class FakeProc : public ProcSource {
 public:
  std::optional<std::string> Read(const std::string& path) const override;
  std::vector<std::string> List(const std::string& dir) const override;

  void Set(const std::string& path, const std::string& text);
  // How many times `path` was read.
  int Reads(const std::string& path) const;
  // /proc/stat becomes live: `cpus` CPUs, each read adds 100 jiffies to each, of which
  // foreign_share*100 are user time and steal_share*100 steal.
  void LiveStat(int cpus);
  std::atomic<double> foreign_share{0};
  std::atomic<double> steal_share{0};

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::string> files_;
  int live_cpus_ = 0;
  mutable std::vector<std::map<std::string, uint64_t>> counters_;
  mutable std::map<std::string, int> reads_;
};

// "cpuN user nice system idle iowait irq softirq steal" lines, with the aggregate first.
std::string ProcStatText(const std::vector<std::vector<uint64_t>>& cpus);
// A /proc/<pid>/stat line with the fields the sampler reads.
std::string PidStatText(int pid, const std::string& comm, int ppid, uint64_t utime, uint64_t stime,
                        uint64_t cutime = 0, uint64_t cstime = 0);

}  // namespace pg::testing
