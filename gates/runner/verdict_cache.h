// Verdicts of passing legs, keyed by everything that could change the verdict: the tree,
// the leg as written, the toolchain, the leg's declared inputs and its needs' keys.
// Failures are never stored, so a red leg always runs again.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/core/status.h"

namespace pg {

struct CacheEntry {
  std::string leg;
  std::string tree_hash;
  std::string stored_at;  // ISO 8601 UTC
  double wall_s = 0;      // what the cached run took, i.e. the time a hit saves
  std::string run_id;     // the run that earned the pass
  std::string log_path;   // that run's log of the leg (pruned with old runs)
};

class VerdictCache {
 public:
  // A missing cache file is empty; an unreadable or malformed one is empty too and is
  // replaced on Save (it only ever held a shortcut, never a result the user needs).
  static VerdictCache Load(const std::string& path);

  const CacheEntry* Find(const std::string& key) const;
  void Put(const std::string& key, CacheEntry entry);
  Status Save() const;
  // The wall time of `leg`'s most recently stored pass, on any tree; none when it never passed.
  std::optional<double> LastPassWall(const std::string& leg) const;
  bool recovered_from_corruption() const { return corrupt_; }

 private:
  std::string path_;
  std::map<std::string, CacheEntry> entries_;
  bool corrupt_ = false;
};

// Hash of the toolchain probes' outputs (e.g. `c++ --version`); a probe that cannot run
// contributes its error, so installing or removing a tool changes the fingerprint.
// `warnings` gets a line for each probe that could not start, exited non-zero or timed out: a
// typo there fingerprints nothing, in silence.
std::string ToolchainFingerprint(const std::vector<std::vector<std::string>>& probes,
                                 const std::string& root,
                                 std::vector<std::string>* warnings = nullptr);

// Hash of the files the leg's `inputs` globs match: names and contents.
std::string InputsHash(const std::string& root, const std::vector<std::string>& patterns);

std::string CacheKey(const std::string& tree_hash, const Leg& leg, const std::string& toolchain,
                     const std::string& inputs_hash, const std::vector<std::string>& need_keys);

}  // namespace pg
