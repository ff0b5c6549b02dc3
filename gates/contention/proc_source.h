// Every /proc and cgroup read of the contention sampler goes through this interface, so
// tests feed recorded snapshots and the arithmetic is checked without a loaded machine.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pg {

class ProcSource {
 public:
  virtual ~ProcSource() = default;
  // The whole file, or nullopt when it does not exist or cannot be read.
  virtual std::optional<std::string> Read(const std::string& path) const = 0;
  // Entry names of a directory (no "." or ".."); empty when it cannot be listed.
  virtual std::vector<std::string> List(const std::string& dir) const = 0;
};

// The machine's counters (/proc/stat, pressure, loadavg, the cgroup's cpu.stat) are read at
// every leg's start and end: their files stay open and are read again from offset 0, which
// regenerates them, instead of an open and a close each time (a third of a snapshot's cost).
// A process's own files (/proc/<pid>/...) are opened afresh: pids come and go.
class RealProcSource : public ProcSource {
 public:
  RealProcSource() = default;
  RealProcSource(const RealProcSource&) = delete;
  RealProcSource& operator=(const RealProcSource&) = delete;
  ~RealProcSource() override;
  std::optional<std::string> Read(const std::string& path) const override;
  std::vector<std::string> List(const std::string& dir) const override;

 private:
  mutable std::mutex mutex_;
  mutable std::map<std::string, int> open_;  // path → fd kept open, for the machine's files
};

}  // namespace pg
