#include "config/json_source.h"
#include "report/writers.h"

namespace pg {
namespace {

Json Optional(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// Absent signals are null and listed in "absent": never a guessed 0.
Json LoadJson(const LoadEvidence& e) {
  return {{"samples", e.samples},
          {"foreign_mean", Optional(e.foreign_mean)},
          {"foreign_max", Optional(e.foreign_max)},
          {"steal_mean", Optional(e.steal_mean)},
          {"busy_mean", Optional(e.busy_mean)},
          {"loadavg1", Optional(e.loadavg1)},
          {"psi_cpu_avg10", Optional(e.psi_cpu)},
          {"psi_io_avg10", Optional(e.psi_io)},
          {"psi_memory_avg10", Optional(e.psi_memory)},
          {"throttled_s", Optional(e.throttled_s)},
          {"absent", e.absent}};
}

Json AttemptJson(const Attempt& a) {
  return {{"outcome", std::string(OutcomeName(a.outcome))},
          {"started_s", a.started_s},
          {"exit_code", a.exit_code ? Json(*a.exit_code) : Json(nullptr)},
          {"signal", a.signal ? Json(a.signal) : Json(nullptr)},
          {"wall_s", a.wall_s},
          {"cpu_s", a.cpu_s},
          {"note", a.note},
          {"output_tail", a.output_tail},
          {"load", LoadJson(a.load)}};
}

Json TreeChangesJson(const std::vector<TreeChange>& changes) {
  Json out = Json::array();
  for (const TreeChange& c : changes) out.push_back({{"path", c.path}, {"change", c.change}});
  return out;
}

Json LegJson(const LegResult& leg) {
  Json j = {{"name", leg.name},
            {"argv", leg.argv},
            {"cwd", leg.cwd},
            {"outcome", std::string(OutcomeName(leg.outcome))},
            {"cached", leg.cached},
            {"exit_code", leg.exit_code ? Json(*leg.exit_code) : Json(nullptr)},
            {"signal", leg.signal ? Json(leg.signal) : Json(nullptr)},
            {"started_s", leg.started_s},
            {"wall_s", leg.wall_s},
            {"cpu_s", leg.cpu_s},
            {"timing", leg.timing},
            {"tree_hash", leg.tree_hash.empty() ? Json(nullptr) : Json(leg.tree_hash)},
            {"log", leg.log_path.empty() ? Json(nullptr) : Json(leg.log_path)},
            {"note", leg.note},
            {"base_log", leg.base_log_path.empty() ? Json(nullptr) : Json(leg.base_log_path)},
            {"output_tail", leg.output_tail},
            {"load", LoadJson(leg.load)},
            {"attempts", Json::array()}};
  for (const Attempt& a : leg.attempts) j["attempts"].push_back(AttemptJson(a));
  return j;
}

}  // namespace

std::string LegJsonLine(const LegResult& leg) { return JsonText(LegJson(leg)) + "\n"; }

std::string LoadReadingJson(const LoadEvidence& evidence) { return JsonText(LoadJson(evidence)) + "\n"; }

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
            {"tree_hash_after", report.tree_hash_after.empty() ? Json(nullptr) : Json(report.tree_hash_after)},
            {"tree_changes", TreeChangesJson(report.tree_changes)},
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
    j["shard"] = {{"index", report.shard_index}, {"count", report.shard_count}, {"assigned", report.shard_assigned}};
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
