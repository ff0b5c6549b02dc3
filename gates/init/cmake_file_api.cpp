#include "gates/init/cmake_file_api.h"

#include <filesystem>
#include <optional>
#include <vector>

#include "gates/config/json_source.h"
#include "gates/core/file_io.h"
#include "gates/runner/capture.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

std::optional<Json> ReadJson(const fs::path& path) {
  auto text = ReadFile(path.string());
  if (!text.ok()) return std::nullopt;
  Json doc = Json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  return doc;
}

std::string Absolute(const std::string& path, const std::string& base) {
  fs::path p(path);
  return (p.is_relative() ? fs::path(base) / p : p).lexically_normal().string();
}

struct Target {
  bool executable = false;
  std::vector<std::string> artifacts, sources, dependencies;  // dependencies: target ids
};

// The newest reply index's codemodel, or nothing.
std::optional<Json> Codemodel(const fs::path& reply) {
  std::error_code ec;
  std::string newest;
  for (const auto& e : fs::directory_iterator(reply, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("index-", 0) == 0 && name > newest) newest = name;
  }
  if (newest.empty()) return std::nullopt;
  auto index = ReadJson(reply / newest);
  if (!index) return std::nullopt;
  const Json* file = nullptr;
  if (index->contains("reply") && (*index)["reply"].contains("codemodel-v2"))
    file = &(*index)["reply"]["codemodel-v2"];
  if (!file || !file->contains("jsonFile") || !(*file)["jsonFile"].is_string()) return std::nullopt;
  return ReadJson(reply / (*file)["jsonFile"].get<std::string>());
}

// CMake writes these files, but a reply of another version could hold a field of another type:
// nlohmann throws then, and the throw stays here (no targets: every test runs).
std::map<std::string, Target> Targets(const fs::path& reply, const Json& model,
                                      const std::string& source, const std::string& build) try {
  std::map<std::string, Target> out;
  const Json& configs = model.value("configurations", Json::array());
  if (!configs.is_array() || configs.empty()) return out;
  for (const Json& ref : configs[0].value("targets", Json::array())) {
    auto doc = ReadJson(reply / ref.value("jsonFile", std::string()));
    if (!doc) continue;
    Target t;
    t.executable = doc->value("type", std::string()) == "EXECUTABLE";
    for (const Json& a : doc->value("artifacts", Json::array()))
      t.artifacts.push_back(Absolute(a.value("path", ""), build));
    for (const Json& s : doc->value("sources", Json::array()))
      t.sources.push_back(Absolute(s.value("path", ""), source));
    for (const Json& d : doc->value("dependencies", Json::array()))
      t.dependencies.push_back(d.value("id", ""));
    out[ref.value("id", std::string())] = std::move(t);
  }
  return out;
} catch (const Json::exception&) {
  return {};
}

void Collect(const std::map<std::string, Target>& targets, const std::string& id,
             std::set<std::string>* seen, std::set<std::string>* sources) {
  auto it = targets.find(id);
  if (it == targets.end() || !seen->insert(id).second) return;
  sources->insert(it->second.sources.begin(), it->second.sources.end());
  for (const std::string& d : it->second.dependencies) Collect(targets, d, seen, sources);
}

}  // namespace

Status PlaceCodemodelQuery(const std::string& build_dir) {
  fs::path query = fs::path(build_dir) / ".cmake/api/v1/query";
  PG_RETURN_IF_ERROR(MakeDirs(query.string()));
  return WriteFileAtomic((query / "codemodel-v2").string(), "");
}

std::vector<CMakeExecutable> CMakeExecutables(const std::string& build_dir) {
  std::vector<CMakeExecutable> out;
  fs::path reply = fs::path(build_dir) / ".cmake/api/v1/reply";
  auto model = Codemodel(reply);
  if (!model || !model->contains("paths") || !(*model)["paths"].is_object()) return out;
  const Json& paths = (*model)["paths"];
  if (!paths.contains("source") || !paths["source"].is_string()) return out;
  std::string source = paths["source"].get<std::string>();
  std::string build = paths.contains("build") && paths["build"].is_string()
                          ? paths["build"].get<std::string>()
                          : build_dir;
  std::map<std::string, Target> targets = Targets(reply, *model, source, build);
  for (const auto& [id, t] : targets) {
    if (!t.executable) continue;
    std::set<std::string> seen, sources;
    Collect(targets, id, &seen, &sources);
    for (const std::string& artifact : t.artifacts) out.push_back({artifact, t.sources, sources});
  }
  return out;
}

std::map<std::string, std::set<std::string>> ExecutableSources(const std::string& build_dir) {
  std::map<std::string, std::set<std::string>> out;
  std::error_code ec;
  if (!fs::exists(fs::path(build_dir) / "CMakeCache.txt", ec) ||
      !PlaceCodemodelQuery(build_dir).ok())
    return out;
  auto configured = RunCapture({"cmake", "."}, build_dir, 600);
  if (!configured.ok() || configured->exit.exit_code != 0) return out;
  for (CMakeExecutable& e : CMakeExecutables(build_dir)) out[e.artifact] = std::move(e.sources);
  return out;
}

}  // namespace pg
