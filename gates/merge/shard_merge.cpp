#include "gates/merge/shard_merge.h"

#include <algorithm>
#include <map>

namespace pg {
namespace {

std::string Short(const std::string& tree) {
  return tree.empty() ? "(no tree)" : tree.substr(0, 12);
}

std::string ShardName(const ShardHeader& h) {
  return std::to_string(h.index) + "/" + std::to_string(h.count);
}

Refusal Invalid(std::string message) {
  return Refusal{Status::Invalid(message), ResultClass::kPass, message};
}

// The fields every shard of one run must agree on, each against the first shard's.
Refusal Agree(const ShardHeader& first, const ShardHeader& h) {
  auto differ = [&](const char* field, const std::string& a, const std::string& b) {
    return Invalid(h.path + ": " + field + " \"" + b + "\" differs from " + first.path + "'s \"" +
                   a + "\"");
  };
  if (h.verb != first.verb) return differ("verb", first.verb, h.verb);
  if (h.suites != first.suites)
    return Invalid(h.path + ": its suites differ from " + first.path + "'s");
  if (h.count != first.count)
    return differ("shard count", std::to_string(first.count), std::to_string(h.count));
  if (h.toolchain != first.toolchain) {
    return Invalid(h.path + ": its toolchain fingerprint differs from " + first.path +
                   "'s: a verdict holds for one toolchain only");
  }
  if (h.tree_hash != first.tree_hash) {
    return Refusal{Status(), ResultClass::kStale,
                   "stale: " + h.path + " ran on tree " + Short(h.tree_hash) + ", " + first.path +
                       " on " + Short(first.tree_hash) +
                       ": the shards did not check the same tree"};
  }
  return Refusal{};
}

// The worst first: what a leg that ran in several shards reports.
int Rank(Outcome o) {
  switch (o) {
    case Outcome::kError:
      return 0;
    case Outcome::kFail:
      return 1;
    case Outcome::kTimeout:
      return 2;
    case Outcome::kContended:
      return 3;
    case Outcome::kInherited:
      return 4;
    case Outcome::kSkipped:
      return 5;
    case Outcome::kPass:
      return 6;
  }
  return 0;
}

}  // namespace

StatusOr<ShardHeader> ReadShardHeader(const JsonSource& doc) {
  const Json& j = doc.root();
  auto text = [&](const char* key) {
    return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
  };
  if (!j.is_object() || text("tool") != "proofgate" || text("verb").empty()) {
    return Status::Invalid(
        doc.path() + ": not a proofgate JSON report (no \"tool\": \"proofgate\" and \"verb\")");
  }
  ShardHeader h{doc.path(), text("verb"), text("tree_hash"), text("toolchain"), {}, 0, 0};
  if (j.contains("suites") && j.at("suites").is_array()) {
    for (const Json& s : j.at("suites"))
      h.suites.push_back(s.is_string() ? s.get<std::string>() : s.dump());
  }
  if (j.contains("shard") && !j.at("shard").is_null()) {
    const Json& s = j.at("shard");
    bool ok = s.is_object() && s.contains("index") && s.contains("count") &&
              s.at("index").is_number_integer() && s.at("count").is_number_integer();
    if (!ok) return doc.ErrorAt("/shard", "field \"shard\" must be {\"index\": K, \"count\": N}");
    h.index = s.at("index").get<int>();
    h.count = s.at("count").get<int>();
    if (h.count < 1 || h.index < 1 || h.index > h.count)
      return doc.ErrorAt("/shard", "shard " + ShardName(h) + " is not K/N with 1 <= K <= N");
  }
  return h;
}

Refusal CheckShards(const std::vector<ShardHeader>& shards, std::vector<size_t>* order) {
  order->clear();
  if (shards.empty()) return Invalid("merge-reports: no reports given");
  for (const ShardHeader& h : shards) {
    if (h.count == 0 && shards.size() > 1)
      return Invalid(h.path + ": not a shard (no \"shard\"): run it with --shard K/N");
    Refusal agree = Agree(shards[0], h);
    if (!agree.ok()) return agree;
  }
  std::map<int, size_t> by_index;
  for (size_t i = 0; i < shards.size(); ++i) {
    auto [at, fresh] = by_index.emplace(shards[i].index, i);
    if (!fresh)
      return Invalid("shard " + ShardName(shards[i]) + " given twice: " + shards[at->second].path +
                     " and " + shards[i].path);
  }
  for (int k = 1; k <= shards[0].count; ++k) {
    if (!by_index.count(k))
      return Invalid("shard " + std::to_string(k) + "/" + std::to_string(shards[0].count) +
                     " missing");
  }
  for (const auto& entry : by_index) order->push_back(entry.second);
  return Refusal{};
}

RunReport MergeRunReports(const std::vector<RunReport>& shards,
                          const std::vector<std::string>& paths) {
  RunReport out = shards.front();
  out.legs.clear();
  out.shard_index = out.shard_count = 0;
  out.shard_assigned.clear();
  out.merged_from = paths;
  out.load_timeline.clear();  // each shard sampled its own machine on its own clock
  std::map<std::string, size_t> at;
  std::map<std::string, std::string> outcomes;  // leg → "1 pass, 2 fail"
  std::map<std::string, bool> differ;
  for (size_t s = 0; s < shards.size(); ++s) {
    const RunReport& shard = shards[s];
    out.wall_s = std::max(out.wall_s, shard.wall_s);  // the shards ran side by side
    out.started_at = std::min(out.started_at, shard.started_at);
    out.interrupted = out.interrupted || shard.interrupted;
    out.allow_inherited = out.allow_inherited && shard.allow_inherited;
    out.cache_enabled = out.cache_enabled || shard.cache_enabled;
    if (shard.tree_hash_after != shard.tree_hash) {
      out.tree_hash_after = shard.tree_hash_after;
      out.tree_changes = shard.tree_changes;
    }
    for (const LegResult& leg : shard.legs) {
      std::string said =
          std::to_string(shard.shard_index) + " " + std::string(OutcomeName(leg.outcome));
      auto [it, fresh] = at.emplace(leg.name, out.legs.size());
      outcomes[leg.name] += (fresh ? "" : ", ") + said;
      if (fresh) {
        out.legs.push_back(leg);
        continue;
      }
      LegResult& kept = out.legs[it->second];
      differ[leg.name] = differ[leg.name] || kept.outcome != leg.outcome;
      if (Rank(leg.outcome) < Rank(kept.outcome)) kept = leg;
    }
  }
  for (LegResult& leg : out.legs) {
    if (differ[leg.name])
      leg.note += (leg.note.empty() ? "" : "; ") + ("shards disagree: " + outcomes[leg.name]);
  }
  out.exit_code = VerdictOf(out);
  return out;
}

}  // namespace pg
