// A preflight JSON report (gates/report/json_report.cpp's schema) read back into a RunReport, so a
// CI shard's upload renders and decides exactly as the run that wrote it. Fields are read by
// type; a field of the wrong type names its place in the file, a missing one keeps its default
// (reports of older proofgates lack the newer fields).
#include "gates/merge/shard_merge.h"

namespace pg {
namespace {

// Reads fields of one object; the first wrong type is kept and reported by `status()`.
class Reader {
 public:
  Reader(const JsonSource& doc, const Json& object, std::string pointer)
      : doc_(doc), object_(object), pointer_(std::move(pointer)) {}

  const Json* Get(const char* key, bool (Json::*is)() const, const char* want) {
    if (!object_.is_object() || !object_.contains(key) || object_.at(key).is_null()) return nullptr;
    const Json& v = object_.at(key);
    if ((v.*is)()) return &v;
    if (problem_.ok())
      problem_ = doc_.ErrorAt(Where(key), "field \"" + std::string(key) + "\" must be " + want);
    return nullptr;
  }
  std::string Str(const char* key) {
    const Json* v = Get(key, &Json::is_string, "a string");
    return v ? v->get<std::string>() : "";
  }
  double Num(const char* key) {
    const Json* v = Get(key, &Json::is_number, "a number");
    return v ? v->get<double>() : 0;
  }
  std::optional<double> OptNum(const char* key) {
    const Json* v = Get(key, &Json::is_number, "a number");
    return v ? std::optional<double>(v->get<double>()) : std::nullopt;
  }
  bool Bool(const char* key) {
    const Json* v = Get(key, &Json::is_boolean, "true or false");
    return v && v->get<bool>();
  }
  std::vector<std::string> Strings(const char* key) {
    std::vector<std::string> out;
    const Json* v = Get(key, &Json::is_array, "an array of strings");
    for (size_t i = 0; v && i < v->size(); ++i) {
      if ((*v)[i].is_string())
        out.push_back((*v)[i].get<std::string>());
      else if (problem_.ok())
        problem_ = doc_.ErrorAt(Where(key) + "/" + std::to_string(i), "must be a string");
    }
    return out;
  }
  Reader Child(const char* key, size_t i = SIZE_MAX) {
    std::string at = Where(key) + (i == SIZE_MAX ? "" : "/" + std::to_string(i));
    const Json& v = i == SIZE_MAX ? object_.at(key) : object_.at(key).at(i);
    return Reader(doc_, v, at);
  }
  size_t Size(const char* key) {
    const Json* v = Get(key, &Json::is_array, "an array");
    return v ? v->size() : 0;
  }
  bool Has(const char* key) {
    return object_.is_object() && object_.contains(key) && !object_.at(key).is_null();
  }
  void Keep(const Status& s) {
    if (problem_.ok() && !s.ok()) problem_ = s;
  }
  Status status() const { return problem_; }
  std::string Where(const char* key) const { return pointer_ + "/" + JsonSource::Escape(key); }

 private:
  const JsonSource& doc_;
  const Json& object_;
  std::string pointer_;
  Status problem_;
};

StatusOr<Outcome> OutcomeOf(const std::string& name, const JsonSource& doc,
                            const std::string& where) {
  for (Outcome o : {Outcome::kPass, Outcome::kFail, Outcome::kTimeout, Outcome::kContended,
                    Outcome::kSkipped, Outcome::kError, Outcome::kInherited}) {
    if (OutcomeName(o) == name) return o;
  }
  return doc.ErrorAt(where, "unknown outcome \"" + name + "\"");
}

LoadEvidence LoadOf(Reader& r) {
  LoadEvidence e;
  e.samples = static_cast<int>(r.Num("samples"));
  e.foreign_mean = r.OptNum("foreign_mean");
  e.foreign_max = r.OptNum("foreign_max");
  e.steal_mean = r.OptNum("steal_mean");
  e.busy_mean = r.OptNum("busy_mean");
  e.loadavg1 = r.OptNum("loadavg1");
  e.psi_cpu = r.OptNum("psi_cpu_avg10");
  e.psi_io = r.OptNum("psi_io_avg10");
  e.psi_memory = r.OptNum("psi_memory_avg10");
  e.throttled_s = r.OptNum("throttled_s");
  e.absent = r.Strings("absent");
  return e;
}

// The fields a leg and its earlier attempts share.
template <typename T>
void ReadRun(Reader& r, const JsonSource& doc, T* out) {
  auto outcome = OutcomeOf(r.Str("outcome"), doc, r.Where("outcome"));
  r.Keep(outcome.status());
  if (outcome.ok()) out->outcome = *outcome;
  if (r.Has("exit_code")) out->exit_code = static_cast<int>(r.Num("exit_code"));
  out->signal = static_cast<int>(r.Num("signal"));
  out->wall_s = r.Num("wall_s");
  out->cpu_s = r.Num("cpu_s");
  out->note = r.Str("note");
  out->output_tail = r.Str("output_tail");
  if (r.Has("load")) {
    Reader load = r.Child("load");
    out->load = LoadOf(load);
    r.Keep(load.status());
  }
}

StatusOr<LegResult> LegOf(Reader r, const JsonSource& doc) {
  LegResult leg;
  leg.name = r.Str("name");
  if (leg.name.empty()) r.Keep(doc.ErrorAt(r.Where("name"), "a leg needs a \"name\""));
  ReadRun(r, doc, &leg);
  leg.argv = r.Strings("argv");
  leg.cwd = r.Str("cwd");
  leg.cached = r.Bool("cached");
  leg.started_s = r.Num("started_s");
  leg.timing = r.Bool("timing");
  leg.tree_hash = r.Str("tree_hash");
  leg.log_path = r.Str("log");
  leg.base_log_path = r.Str("base_log");
  leg.fixed = r.Strings("fixed");
  for (size_t i = 0, n = r.Size("attempts"); i < n; ++i) {
    Reader a = r.Child("attempts", i);
    Attempt attempt;
    ReadRun(a, doc, &attempt);
    attempt.started_s = a.Num("started_s");
    r.Keep(a.status());
    leg.attempts.push_back(std::move(attempt));
  }
  if (!r.status().ok()) return r.status();
  return leg;
}

}  // namespace

StatusOr<RunReport> RunReportFromJson(const JsonSource& doc) {
  Reader r(doc, doc.root(), "");
  RunReport report;
  report.schema_version = static_cast<int>(r.Num("schema_version"));
  report.verb = r.Str("verb");
  report.suites = r.Strings("suites");
  report.root = r.Str("root");
  report.config_path = r.Str("config");
  report.run_id = r.Str("run_id");
  report.started_at = r.Str("started_at");
  report.wall_s = r.Num("wall_s");
  report.tree_hash = r.Str("tree_hash");
  report.tree_hash_after = r.Has("tree_hash_after") ? r.Str("tree_hash_after") : report.tree_hash;
  report.index_changed = r.Bool("index_changed");
  report.toolchain = r.Str("toolchain");
  report.cache_enabled = r.Bool("cache");
  report.interrupted = r.Bool("interrupted");
  report.allow_inherited = r.Bool("allow_inherited");
  report.exit_code = static_cast<ExitCode>(static_cast<int>(r.Num("exit_code")));
  if (r.Has("shard")) {
    Reader shard = r.Child("shard");
    report.shard_index = static_cast<int>(shard.Num("index"));
    report.shard_count = static_cast<int>(shard.Num("count"));
    report.shard_assigned = shard.Strings("assigned");
    r.Keep(shard.status());
  }
  for (size_t i = 0, n = r.Size("legs"); i < n; ++i) {
    auto leg = LegOf(r.Child("legs", i), doc);
    if (!leg.ok()) return leg.status();
    report.legs.push_back(std::move(*leg));
  }
  for (size_t i = 0, n = r.Size("tree_changes"); i < n; ++i) {
    Reader c = r.Child("tree_changes", i);
    report.tree_changes.push_back(TreeChange{c.Str("path"), c.Str("change")});
    r.Keep(c.status());
  }
  for (size_t i = 0, n = r.Size("load_timeline"); i < n; ++i) {
    Reader p = r.Child("load_timeline", i);
    report.load_timeline.push_back(
        LoadPoint{p.Num("t"), p.Num("foreign"), p.Num("steal"), p.OptNum("psi_cpu")});
    r.Keep(p.status());
  }
  if (!r.status().ok()) return r.status();
  return report;
}

}  // namespace pg
