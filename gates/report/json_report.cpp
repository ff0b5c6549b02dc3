#include "gates/config/json_source.h"
#include "gates/report/writers.h"

namespace pg {
namespace {

Json Optional(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// Built key by key, not from initializer lists: those copy every nested value once more, and
// a leg's object is built twice a run (the legs stream, the --json report) for every leg.
// Absent signals are null and listed in "absent": never a guessed 0.
Json LoadJson(const LoadEvidence& e) {
  Json j = Json::object();
  j["samples"] = e.samples;
  j["foreign_mean"] = Optional(e.foreign_mean);
  j["foreign_max"] = Optional(e.foreign_max);
  j["steal_mean"] = Optional(e.steal_mean);
  j["busy_mean"] = Optional(e.busy_mean);
  j["loadavg1"] = Optional(e.loadavg1);
  j["psi_cpu_avg10"] = Optional(e.psi_cpu);
  j["psi_io_avg10"] = Optional(e.psi_io);
  j["psi_memory_avg10"] = Optional(e.psi_memory);
  j["throttled_s"] = Optional(e.throttled_s);
  j["absent"] = e.absent;
  return j;
}

Json AttemptJson(const Attempt& a) {
  Json j = Json::object();
  j["outcome"] = std::string(OutcomeName(a.outcome));
  j["started_s"] = a.started_s;
  j["exit_code"] = a.exit_code ? Json(*a.exit_code) : Json(nullptr);
  j["signal"] = a.signal ? Json(a.signal) : Json(nullptr);
  j["wall_s"] = a.wall_s;
  j["cpu_s"] = a.cpu_s;
  j["note"] = a.note;
  j["output_tail"] = a.output_tail;
  j["load"] = LoadJson(a.load);
  return j;
}

Json TreeChangesJson(const std::vector<TreeChange>& changes) {
  Json out = Json::array();
  for (const TreeChange& c : changes) out.push_back({{"path", c.path}, {"change", c.change}});
  return out;
}

Json NullIfEmpty(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json LegJson(const LegResult& leg) {
  Json j = Json::object();
  j["name"] = leg.name;
  j["argv"] = leg.argv;
  j["cwd"] = leg.cwd;
  j["outcome"] = std::string(OutcomeName(leg.outcome));
  j["cached"] = leg.cached;
  j["exit_code"] = leg.exit_code ? Json(*leg.exit_code) : Json(nullptr);
  j["signal"] = leg.signal ? Json(leg.signal) : Json(nullptr);
  j["started_s"] = leg.started_s;
  j["wall_s"] = leg.wall_s;
  j["cpu_s"] = leg.cpu_s;
  j["timing"] = leg.timing;
  j["tree_hash"] = NullIfEmpty(leg.tree_hash);
  j["log"] = NullIfEmpty(leg.log_path);
  j["note"] = leg.note;
  j["base_log"] = NullIfEmpty(leg.base_log_path);
  j["fixed"] = leg.fixed;
  j["output_tail"] = leg.output_tail;
  j["load"] = LoadJson(leg.load);
  Json& attempts = j["attempts"] = Json::array();
  for (const Attempt& a : leg.attempts) attempts.push_back(AttemptJson(a));
  return j;
}

}  // namespace

std::string ErrorReportJson(const std::string& verb, const std::string& message,
                            ExitCode exit_code) {
  Json j = {{"schema_version", 1},
            {"tool", "proofgate"},
            {"verb", verb},
            {"error", message},
            {"exit_code", static_cast<int>(exit_code)}};
  return JsonText(j) + "\n";
}

std::string LegJsonLine(const LegResult& leg) { return JsonText(LegJson(leg)) + "\n"; }

std::string LoadReadingJson(const LoadEvidence& evidence) {
  return JsonText(LoadJson(evidence)) + "\n";
}

std::string RunReportJson(const RunReport& report) {
  Json counts = Json::object();
  for (Outcome o : {Outcome::kPass, Outcome::kFail, Outcome::kTimeout, Outcome::kContended,
                    Outcome::kSkipped, Outcome::kError}) {
    counts[std::string(OutcomeName(o))] = report.Count(o);
  }
  Json legs = Json::array();
  for (const LegResult& leg : report.legs) legs.push_back(LegJson(leg));
  Json j = {{"schema_version", report.schema_version},
            {"tool", "proofgate"},
            {"verb", report.verb},
            {"suites", report.suites},
            {"root", report.root},
            {"config", report.config_path},
            {"run_id", report.run_id},
            {"started_at", report.started_at},
            {"wall_s", report.wall_s},
            {"tree_hash", report.tree_hash.empty() ? Json(nullptr) : Json(report.tree_hash)},
            {"tree_hash_after",
             report.tree_hash_after.empty() ? Json(nullptr) : Json(report.tree_hash_after)},
            {"tree_changes", TreeChangesJson(report.tree_changes)},
            {"index_changed", report.index_changed},
            {"toolchain", report.toolchain},
            {"cache", report.cache_enabled},
            {"interrupted", report.interrupted},
            {"allow_inherited", report.allow_inherited},
            {"verdict", std::string(ExitCodeName(report.exit_code))},
            {"exit_code", static_cast<int>(report.exit_code)},
            {"counts", counts},
            {"shard", nullptr},
            {"legs", legs}};
  if (report.shard_count > 0) {
    j["shard"] = {{"index", report.shard_index},
                  {"count", report.shard_count},
                  {"assigned", report.shard_assigned}};
  }
  if (!report.merged_from.empty()) j["merged_from"] = report.merged_from;
  Json timeline = Json::array();
  for (const LoadPoint& p : report.load_timeline) {
    Json point = {{"t", p.t}, {"foreign", p.foreign}, {"steal", p.steal}};
    if (p.psi_cpu) point["psi_cpu"] = *p.psi_cpu;
    timeline.push_back(point);
  }
  j["load_timeline"] = timeline;
  return JsonText(j, 2) + "\n";
}

}  // namespace pg
