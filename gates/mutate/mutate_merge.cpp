#include "gates/mutate/mutate_merge.h"

#include <map>

namespace pg {
namespace {

std::string Text(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>()
                                                                   : "";
}

double Number(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : 0;
}

StatusOr<MutantResult> ResultOf(const JsonSource& doc, const Json& j, const std::string& where) {
  MutantResult r;
  r.id = Text(j, "id");
  if (r.id.empty()) return doc.ErrorAt(where, "a result needs an \"id\"");
  std::string outcome = Text(j, "outcome");
  bool known = false;
  for (MutantOutcome o :
       {MutantOutcome::kRedAsClaimed, MutantOutcome::kRedOther, MutantOutcome::kSurvived,
        MutantOutcome::kUnviable, MutantOutcome::kTimeout, MutantOutcome::kGreenAsClaimed,
        MutantOutcome::kNotGreen, MutantOutcome::kKilled}) {
    if (MutantOutcomeName(o) == outcome) r.outcome = o, known = true;
  }
  if (!known) return doc.ErrorAt(where + "/outcome", "unknown mutant outcome \"" + outcome + "\"");
  r.catalog = Text(j, "catalog");
  r.combo = j.contains("combo") && j.at("combo").is_boolean() && j.at("combo").get<bool>();
  r.files = Text(j, "files");
  r.change = Text(j, "mutation");
  r.tests = Text(j, "tests");
  r.detail = Text(j, "detail");
  r.observed = Text(j, "observed");
  r.build_s = Number(j, "build_s");
  r.test_s = Number(j, "test_s");
  r.total_s = Number(j, "total_s");
  r.worker = static_cast<int>(Number(j, "worker"));
  r.restore_build_s = Number(j, "restore_build_s");
  r.log_dir = Text(j, "logs");
  r.expected_outcome =
      Text(j, "expected_outcome") == "red-as-claimed" ? "" : Text(j, "expected_outcome");
  r.schema = j.contains("schema") && j.at("schema").is_boolean() && j.at("schema").get<bool>();
  if (j.contains("generated") && j.at("generated").is_object()) {
    const Json& g = j.at("generated");
    MutantResult::Generated out{Text(g, "file"),
                                Text(g, "operator"),
                                Text(g, "original"),
                                Text(g, "replacement"),
                                Text(g, "diff"),
                                static_cast<int>(Number(g, "line")),
                                static_cast<int>(Number(g, "column")),
                                {}};
    if (g.contains("tests") && g.at("tests").is_array()) {
      for (const Json& t : g.at("tests")) {
        if (t.is_string()) out.tests.push_back(t.get<std::string>());
      }
    }
    r.generated = std::move(out);
  }
  return r;
}

}  // namespace

StatusOr<MutateReport> MutateReportFromJson(const JsonSource& doc) {
  const Json& j = doc.root();
  MutateReport report;
  if (!j.is_object() || !j.contains("results") || !j.at("results").is_array()) {
    return doc.ErrorAt("", "a mutate report needs \"results\": [...]");
  }
  for (size_t i = 0; i < j.at("results").size(); ++i) {
    auto r = ResultOf(doc, j.at("results").at(i), "/results/" + std::to_string(i));
    if (!r.ok()) return r.status();
    report.results.push_back(std::move(*r));
  }
  report.baseline_problem = Text(j, "baseline_problem");
  report.interrupted = j.contains("interrupted") && j.at("interrupted").is_boolean() &&
                       j.at("interrupted").get<bool>();
  if (j.contains("recovered") && j.at("recovered").is_array()) {
    for (const Json& p : j.at("recovered")) {
      if (p.is_string()) report.recovered.push_back(Recovered{p.get<std::string>(), true});
    }
  }
  report.error = Text(j, "error");
  if (!report.error.empty()) report.error_exit_code = static_cast<int>(Number(j, "exit_code"));
  report.tree_hash = Text(j, "tree_hash");
  if (j.contains("shard") && j.at("shard").is_object()) {
    report.shard_index = static_cast<int>(Number(j.at("shard"), "index"));
    report.shard_count = static_cast<int>(Number(j.at("shard"), "count"));
  }
  return report;
}

StatusOr<MutateReport> MergeMutateReports(const std::vector<MutateReport>& shards,
                                          const std::vector<std::string>& paths) {
  MutateReport out;
  out.tree_hash = shards.empty() ? "" : shards.front().tree_hash;
  out.shard_count = 1;
  out.merged_from = paths;
  std::map<std::string, size_t> seen;  // id → shard position
  for (size_t s = 0; s < shards.size(); ++s) {
    const MutateReport& shard = shards[s];
    for (const MutantResult& r : shard.results) {
      auto [it, fresh] = seen.emplace(r.id, s);
      if (!fresh) {
        return Status::Invalid("mutant " + r.id + " is in two shards (" + paths[it->second] +
                               " and " + paths[s] + "): they were not cut from one selection");
      }
      out.results.push_back(r);
    }
    if (!shard.baseline_problem.empty()) {
      out.baseline_problem +=
          (out.baseline_problem.empty() ? "" : "; ") +
          ("shard " + std::to_string(shard.shard_index) + ": " + shard.baseline_problem);
    }
    if (!shard.error.empty() &&
        out.error.empty()) {  // a shard that stopped on an error: the merge says so
      out.error = "shard " + std::to_string(shard.shard_index) + ": " + shard.error;
      out.error_exit_code = shard.error_exit_code;
    }
    out.interrupted = out.interrupted || shard.interrupted;
    out.recovered.insert(out.recovered.end(), shard.recovered.begin(), shard.recovered.end());
  }
  return out;
}

}  // namespace pg
