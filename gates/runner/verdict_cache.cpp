#include "gates/runner/verdict_cache.h"

#include "gates/config/json_source.h"
#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/runner/capture.h"
#include "gates/runner/input_glob.h"

namespace pg {

namespace {
constexpr size_t kMaxEntries = 2000;  // oldest entries are dropped past this
}

VerdictCache VerdictCache::Load(const std::string& path) {
  VerdictCache cache;
  cache.path_ = path;
  auto text = ReadFile(path);
  if (!text.ok()) return cache;  // first run
  Json root = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  // An unparsable (discarded) or non-object root contains nothing.
  if (!root.contains("entries") || !root["entries"].is_object()) {
    cache.corrupt_ = true;
    return cache;
  }
  // Field by field, each type checked: value() would throw on a hand-edited or corrupt entry.
  auto field = [](const Json& e, const char* key) {
    return e.contains(key) && e.at(key).is_string() ? e.at(key).get<std::string>() : std::string();
  };
  for (const auto& [key, e] : root["entries"].items()) {
    if (!e.is_object()) continue;
    CacheEntry entry{field(e, "leg"),    field(e, "tree_hash"), field(e, "stored_at"), 0,
                     field(e, "run_id"), field(e, "log")};
    if (e.contains("wall_s") && e.at("wall_s").is_number())
      entry.wall_s = e.at("wall_s").get<double>();
    cache.entries_[key] = entry;
  }
  return cache;
}

const CacheEntry* VerdictCache::Find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

std::optional<double> VerdictCache::LastPassWall(const std::string& leg) const {
  const CacheEntry* last = nullptr;
  for (const auto& [key, entry] : entries_) {
    if (entry.leg == leg && (!last || entry.stored_at > last->stored_at))
      last = &entry;  // ISO 8601 sorts as text
  }
  return last ? std::optional<double>(last->wall_s) : std::nullopt;
}

void VerdictCache::Put(const std::string& key, CacheEntry entry) {
  entries_[key] = std::move(entry);
  while (entries_.size() > kMaxEntries) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.stored_at < oldest->second.stored_at) oldest = it;
    }
    entries_.erase(oldest);
  }
}

Status VerdictCache::Save() const {
  Json root = {{"schema_version", 1}, {"entries", Json::object()}};
  for (const auto& [key, e] : entries_) {
    root["entries"][key] = {
        {"leg", e.leg},       {"tree_hash", e.tree_hash}, {"stored_at", e.stored_at},
        {"wall_s", e.wall_s}, {"run_id", e.run_id},       {"log", e.log_path}};
  }
  return WriteFileAtomic(path_, JsonText(root, 1) + "\n");
}

std::string ToolchainFingerprint(const std::vector<std::vector<std::string>>& probes,
                                 const std::string& root, std::vector<std::string>* warnings) {
  std::string all;
  for (const auto& argv : probes) {
    auto captured = RunCapture(
        argv, root, 30);  // proofgate: no-mutate (any limit a --version meets is the same)
    if (warnings && (!captured.ok() || captured->exit.exit_code != 0)) {
      std::string command;
      for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
      std::string why =
          captured.ok()
              ? (captured->exit.signal ? "killed by signal " + std::to_string(captured->exit.signal)
                                       : "exit " + std::to_string(captured->exit.exit_code))
              : captured.status().message();
      warnings->push_back("toolchain probe `" + command + "`: " + why +
                          "; what it said still keys the cache");
    }
    all += argv[0] + "\n";  // proofgate: no-mutate (a label: the probe's output is what differs)
    all += captured.ok() ? std::to_string(captured->exit.exit_code) + "\n" + captured->output
                         : "error: " + captured.status().message();
    all += "\n";
  }
  return git::HashBytes(all);
}

std::string InputsHash(const std::string& root, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return "";
  std::string all;
  for (const std::string& rel : ExpandGlobs(root, patterns)) {
    auto content = ReadFile(root + "/" + rel);
    all += rel;
    all.push_back('\0');  // proofgate: no-mutate (the fixed-length hash or "unreadable" after it
                          // ends a path already)
    all += content.ok() ? git::HashBytes(*content) : "unreadable";
    all += "\n";
  }
  return git::HashBytes(all);
}

std::string CacheKey(const std::string& tree_hash, const Leg& leg, const std::string& toolchain,
                     const std::string& inputs_hash, const std::vector<std::string>& need_keys) {
  std::string all = "tree " + tree_hash + "\nleg " + leg.name + " " + leg.definition +
                    "\ntoolchain " + toolchain + "\ninputs " + inputs_hash + "\n";
  for (const std::string& k : need_keys) all += "need " + k + "\n";
  return git::HashBytes(all);
}

}  // namespace pg
