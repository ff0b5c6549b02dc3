// Every /proc and cgroup read of the contention sampler goes through this interface, so
// tests feed recorded snapshots and the arithmetic is checked without a loaded machine.
#pragma once

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

class RealProcSource : public ProcSource {
 public:
  std::optional<std::string> Read(const std::string& path) const override;
  std::vector<std::string> List(const std::string& dir) const override;
};

}  // namespace pg
