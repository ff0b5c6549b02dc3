// Parsing and field validation of suites.json; cross-references live in suite_graph.cpp.
#include <filesystem>
#include <regex>
#include <tuple>

#include "gates/config/json_fields.h"
#include "gates/config/suite_config.h"
#include "gates/core/file_io.h"

namespace pg {

Status ValidateSuiteGraph(const JsonSource& source, const SuiteConfig& config);  // suite_graph.cpp

namespace {

bool IsPlainName(const std::string& name) {
  static const std::regex kName("[A-Za-z0-9][A-Za-z0-9_.-]*");
  return std::regex_match(name, kName);
}

Status ParseRun(const JsonFields& fields, const Json& run, Leg* leg) {
  if (run.is_string()) {
    if (run.get<std::string>().find_first_not_of(" \t\n") == std::string::npos) {
      return fields.ErrorAt("run", "field \"run\" is an empty command");
    }
    leg->argv = {"sh", "-c", run.get<std::string>()};
    return Status();
  }
  if (!run.is_array()) {
    return fields.ErrorAt(
        "run", "field \"run\" must be an argv array or a shell string, got " + JsonTypeName(run));
  }
  PG_RETURN_IF_ERROR(fields.StringList("run", &leg->argv));
  if (leg->argv.empty() || leg->argv[0].empty()) {
    return fields.ErrorAt("run", "field \"run\" is an empty command");
  }
  return Status();
}

// Whether `{files}` stands inside '...' or "..." in a shell string, where the quoting proofgate
// gives each name is undone (inside "..." a name like $(cmd) would run).
bool FilesWordInQuotes(const std::string& run) {
  char quote = 0;
  for (size_t i = 0; i < run.size(); ++i) {
    char c = run[i];
    if (quote != '\'' && c == '\\') {
      ++i;
    } else if (quote == 0 && (c == '\'' || c == '"')) {
      quote = c;
    } else if (c == quote) {
      quote = 0;
    } else if (quote != 0 && run.compare(i, 7, "{files}") == 0) {
      return true;
    }
  }
  return false;
}

// `files` lists globs, and `{files}` stands where the files go: a whole element of an argv
// (one argument each) or inside a shell string (quoted there); `-I{files}` would be neither.
Status ParseFiles(const JsonFields& fields, const Json& value, Leg* leg) {
  for (const char* key : {"files", "exclude"}) {
    std::vector<std::string>* globs = std::string(key) == "files" ? &leg->files : &leg->exclude;
    PG_RETURN_IF_ERROR(fields.StringList(key, globs));
    std::string field = std::string("field \"") + key + "\"";
    if (value.contains(key) && globs->empty()) return fields.ErrorAt(key, field + " lists no glob");
    for (const std::string& glob : *globs) {
      if (glob.empty()) return fields.ErrorAt(key, field + " has an empty glob");
    }
  }
  if (value.at("run").is_string()) {
    if (FilesWordInQuotes(value.at("run").get<std::string>())) {
      return fields.ErrorAt(
          "run",
          "\"{files}\" inside quotes in a \"run\" string: it is quoted already, and a name "
          "like $(cmd) would run; write it bare");
    }
    return Status();
  }
  for (const std::string& a : leg->argv) {
    if (a != "{files}" && a.find("{files}") != std::string::npos) {
      return fields.ErrorAt("run",
                            "\"{files}\" must be a whole argument of an argv \"run\" (or inside a "
                            "\"run\" string), got \"" +
                                a + "\"");
    }
  }
  return Status();
}

Status ParseLeg(const JsonSource& source, const std::string& name, const Json& value, Leg* leg) {
  std::string pointer = "/legs/" + JsonSource::Escape(name);
  if (!IsPlainName(name)) {
    return source.ErrorAt(pointer, "leg name \"" + name +
                                       "\" must start with a letter or digit and use only "
                                       "letters, digits, '_', '.', '-'");
  }
  if (!value.is_object()) {
    return source.ErrorAt(pointer,
                          "leg \"" + name + "\" must be an object, got " + JsonTypeName(value));
  }
  JsonFields fields(source, value, pointer, "leg \"" + name + "\"");
  PG_RETURN_IF_ERROR(
      fields.CheckKnown({"run", "cwd", "env", "timeout_s", "needs", "locks", "exclusive", "timing",
                         "inputs", "outputs", "files", "exclude", "stage_fixed", "description"}));
  PG_RETURN_IF_ERROR(fields.Require("run"));
  leg->name = name;
  leg->definition = value.dump();
  std::string description;
  PG_RETURN_IF_ERROR(ParseRun(fields, value.at("run"), leg));
  PG_RETURN_IF_ERROR(fields.String("cwd", &leg->cwd));
  PG_RETURN_IF_ERROR(fields.String("description", &description));
  PG_RETURN_IF_ERROR(fields.StringMap("env", &leg->env));
  PG_RETURN_IF_ERROR(fields.Number("timeout_s", &leg->timeout_s, 0));
  PG_RETURN_IF_ERROR(fields.StringList("needs", &leg->needs));
  PG_RETURN_IF_ERROR(fields.StringList("locks", &leg->locks));
  PG_RETURN_IF_ERROR(fields.StringList("inputs", &leg->inputs));
  PG_RETURN_IF_ERROR(fields.StringList("outputs", &leg->outputs));
  for (const std::string& out : leg->outputs) {  // what the leg makes in the tree: never outside it
    bool outside = out.empty() || out[0] == '/' || out == ".." || out.rfind("../", 0) == 0 ||
                   out.find("/../") != std::string::npos ||
                   (out.size() >= 3 && out.substr(out.size() - 3) == "/..");
    if (outside)
      return fields.ErrorAt("outputs",
                            "field \"outputs\" names paths inside the root, got \"" + out + "\"");
    // The whole root, or git's own folder, is no product: left out of the tree hash, every
    // source would count for nothing.
    std::string normal = std::filesystem::path(out).lexically_normal().generic_string();
    if (normal == "." || normal == "./" || normal == ".git" || normal.rfind(".git/", 0) == 0) {
      return fields.ErrorAt(
          "outputs",
          "field \"outputs\" names what a leg makes in the root, not the root or .git, got \"" +
              out + "\"");
    }
  }
  PG_RETURN_IF_ERROR(ParseFiles(fields, value, leg));
  PG_RETURN_IF_ERROR(fields.Bool("exclusive", &leg->exclusive));
  PG_RETURN_IF_ERROR(fields.Bool("timing", &leg->timing));
  PG_RETURN_IF_ERROR(fields.Bool("stage_fixed", &leg->stage_fixed));
  if (!leg->cwd.empty() && leg->cwd[0] == '/') {
    return fields.ErrorAt("cwd", "field \"cwd\" must be relative to the repository root");
  }
  // "src/a/.." is src: what {files} are relative to. One that leaves the root is refused.
  std::string cwd = std::filesystem::path(leg->cwd).lexically_normal().generic_string();
  while (!cwd.empty() && cwd.back() == '/') cwd.pop_back();
  if (cwd == ".." || cwd.rfind("../", 0) == 0)
    return fields.ErrorAt("cwd", "field \"cwd\" must stay inside the repository root");
  if (!leg->cwd.empty()) leg->cwd = cwd == "." ? "" : cwd;
  return Status();
}

Status ParseLegs(const JsonSource& source, const Json& legs, SuiteConfig* config) {
  if (!legs.is_object()) {
    return source.ErrorAt("/legs", "field \"legs\" must be an object, got " + JsonTypeName(legs));
  }
  for (const auto& [name, value] : legs.items()) {
    Leg leg;
    PG_RETURN_IF_ERROR(ParseLeg(source, name, value, &leg));
    config->legs.push_back(std::move(leg));
  }
  return Status();
}

Status ParseSuites(const JsonSource& source, const Json& suites, SuiteConfig* config) {
  if (!suites.is_object()) {
    return source.ErrorAt("/suites",
                          "field \"suites\" must be an object, got " + JsonTypeName(suites));
  }
  JsonFields fields(source, suites, "/suites", "");
  for (const auto& [name, value] : suites.items()) {
    if (!IsPlainName(name)) {
      return fields.ErrorAt(
          name, "suite name \"" + name + "\" must use only letters, digits, '_', '.', '-'");
    }
    if (!value.is_array()) {
      return fields.ErrorAt(
          name, "suite \"" + name + "\" must be an array of leg names, got " + JsonTypeName(value));
    }
    Suite suite{name, {}};
    PG_RETURN_IF_ERROR(fields.StringList(name, &suite.legs));
    config->suites.push_back(std::move(suite));
  }
  return Status();
}

Status ParseToolchain(const JsonSource& source, const Json& toolchain, SuiteConfig* config) {
  const std::string message = "field \"toolchain\" must be an array of argv arrays";
  if (!toolchain.is_array()) return source.ErrorAt("/toolchain", message);
  for (size_t i = 0; i < toolchain.size(); ++i) {
    const Json& cmd = toolchain[i];
    std::string pointer = "/toolchain/" + std::to_string(i);
    if (!cmd.is_array() || cmd.empty()) return source.ErrorAt(pointer, message);
    std::vector<std::string> argv;
    for (const Json& arg : cmd) {
      if (!arg.is_string()) return source.ErrorAt(pointer, message);
      argv.push_back(arg.get<std::string>());
    }
    config->toolchain.push_back(std::move(argv));
  }
  return Status();
}

Status ParseContention(const JsonSource& source, const Json& value, ContentionRules* rules) {
  if (!value.is_object()) {
    return source.ErrorAt("/contention",
                          "field \"contention\" must be an object, got " + JsonTypeName(value));
  }
  JsonFields fields(source, value, "/contention", "contention");
  PG_RETURN_IF_ERROR(fields.CheckKnown({"foreign_threshold", "steal_threshold", "quiet_threshold",
                                        "quiet_for_s", "quiet_wait_s", "sample_interval_s"}));
  PG_RETURN_IF_ERROR(fields.Number("foreign_threshold", &rules->foreign_threshold, 0));
  PG_RETURN_IF_ERROR(fields.Number("steal_threshold", &rules->steal_threshold, 0));
  PG_RETURN_IF_ERROR(fields.Number("quiet_threshold", &rules->quiet_threshold, 0));
  PG_RETURN_IF_ERROR(fields.Number("quiet_for_s", &rules->quiet_for_s, 0));
  PG_RETURN_IF_ERROR(fields.Number("quiet_wait_s", &rules->quiet_wait_s, 0));
  PG_RETURN_IF_ERROR(fields.Number("sample_interval_s", &rules->sample_interval_s, 0));
  for (const char* share : {"foreign_threshold", "steal_threshold", "quiet_threshold"}) {
    if (value.contains(share) && value[share].get<double>() > 1) {
      return fields.ErrorAt(
          share, std::string("field \"") + share + "\" is a share of CPU time, at most 1");
    }
  }
  return Status();
}

Status CheckRegex(const JsonFields& f, std::string_view key, const std::string& pattern) {
  try {
    std::regex check(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return f.ErrorAt(key, std::string("invalid regex: ") + e.what());
  }
  return Status();
}

Status ParseTrailers(const JsonSource& source, const Json& list, std::vector<TrailerRule>* out) {
  if (!list.is_array())
    return source.ErrorAt("/range/trailers", "field \"trailers\" must be an array");
  for (size_t i = 0; i < list.size(); ++i) {
    std::string pointer = "/range/trailers/" + std::to_string(i);
    if (!list[i].is_object())
      return source.ErrorAt(
          pointer, "a trailer rule is {\"require\": ..., \"when\": ..., \"pattern\": ...}");
    JsonFields f(source, list[i], pointer, "trailer rule " + std::to_string(i));
    TrailerRule rule;
    PG_RETURN_IF_ERROR(f.CheckKnown({"require", "when", "pattern"}));
    PG_RETURN_IF_ERROR(f.Require("require"));
    PG_RETURN_IF_ERROR(f.String("require", &rule.require));
    PG_RETURN_IF_ERROR(f.String("pattern", &rule.pattern));
    PG_RETURN_IF_ERROR(CheckRegex(f, "pattern", rule.pattern));
    std::vector<std::pair<std::string, std::string>> when;
    PG_RETURN_IF_ERROR(f.StringMap("when", &when));
    if (when.size() > 1) return f.ErrorAt("when", "\"when\" names one trailer");
    if (!when.empty()) std::tie(rule.when_key, rule.when_pattern) = when.front();
    PG_RETURN_IF_ERROR(CheckRegex(f, "when", rule.when_pattern));
    out->push_back(std::move(rule));
  }
  return Status();
}

Status ParseRange(const JsonSource& source, const Json& value, RangeThresholds* r) {
  if (!value.is_object())
    return source.ErrorAt("/range",
                          "field \"range\" must be an object, got " + JsonTypeName(value));
  JsonFields fields(source, value, "/range", "range");
  PG_RETURN_IF_ERROR(fields.CheckKnown({"subject_max", "body_max", "max_lines", "max_files",
                                        "exclude", "build_leg", "trailers", "issues"}));
  if (value.contains("trailers"))
    PG_RETURN_IF_ERROR(ParseTrailers(source, value.at("trailers"), &r->trailers));
  PG_RETURN_IF_ERROR(fields.String("issues", &r->issues));
  double subject = static_cast<double>(r->subject_max), body = static_cast<double>(r->body_max);
  double lines = static_cast<double>(r->max_lines), files = static_cast<double>(r->max_files);
  PG_RETURN_IF_ERROR(fields.Number("subject_max", &subject, 0));
  PG_RETURN_IF_ERROR(fields.Number("body_max", &body, 0));
  PG_RETURN_IF_ERROR(fields.Number("max_lines", &lines, 0));
  PG_RETURN_IF_ERROR(fields.Number("max_files", &files, 0));
  PG_RETURN_IF_ERROR(fields.StringList("exclude", &r->exclude));
  PG_RETURN_IF_ERROR(fields.String("build_leg", &r->build_leg));
  r->subject_max = static_cast<size_t>(subject);
  r->body_max = static_cast<size_t>(body);
  r->max_lines = static_cast<size_t>(lines);
  r->max_files = static_cast<size_t>(files);
  return Status();
}

Status ParseCommandFields(const JsonFields& f, ScratchCommands* c) {
  PG_RETURN_IF_ERROR(f.StringList("build", &c->build_targets));
  PG_RETURN_IF_ERROR(f.StringList("configure", &c->configure));
  PG_RETURN_IF_ERROR(f.StringList("build_command", &c->build_command));
  PG_RETURN_IF_ERROR(f.StringList("test_command", &c->test_command));
  return f.StringList("list_command", &c->list_command);
}

Status ParseCommands(const JsonSource& source, const Json& value, ScratchCommands* c) {
  if (!value.is_object())
    return source.ErrorAt("/commands",
                          "field \"commands\" must be an object, got " + JsonTypeName(value));
  JsonFields f(source, value, "/commands", "commands");
  PG_RETURN_IF_ERROR(
      f.CheckKnown({"build", "configure", "build_command", "test_command", "list_command"}));
  return ParseCommandFields(f, c);
}

Status ParseProve(const JsonSource& source, const Json& value, ProveSettings* p) {
  if (!value.is_object())
    return source.ErrorAt("/prove",
                          "field \"prove\" must be an object, got " + JsonTypeName(value));
  JsonFields f(source, value, "/prove", "prove");
  PG_RETURN_IF_ERROR(f.CheckKnown(
      {"tests", "build", "configure", "build_command", "test_command", "list_command"}));
  PG_RETURN_IF_ERROR(f.StringList("tests", &p->tests));
  return ParseCommandFields(f, p);
}

Status ParseGenerate(const JsonSource& source, const Json& value, GenerateSettings* g) {
  if (!value.is_object())
    return source.ErrorAt("/generate",
                          "field \"generate\" must be an object, got " + JsonTypeName(value));
  JsonFields f(source, value, "/generate", "generate");
  PG_RETURN_IF_ERROR(f.CheckKnown({"exclude"}));
  return f.StringList("exclude", &g->exclude);
}

}  // namespace

StatusOr<SuiteConfig> ParseSuiteConfig(const std::string& path, const std::string& text) {
  PG_ASSIGN_OR_RETURN(JsonSource source, JsonSource::Parse(path, text));
  const Json& root = source.root();
  if (!root.is_object()) return source.ErrorAt("", "the top level must be an object");
  JsonFields fields(source, root, "", "");
  PG_RETURN_IF_ERROR(
      fields.CheckKnown({"schema_version", "legs", "suites", "toolchain", "kill_grace_s",
                         "contention", "range", "commands", "prove", "generate"}));
  PG_RETURN_IF_ERROR(fields.Require("schema_version"));
  long version = 0;
  PG_RETURN_IF_ERROR(fields.Integer("schema_version", &version));
  if (version != 1) {
    return fields.ErrorAt("schema_version", "schema_version " + std::to_string(version) +
                                                " is not supported (this proofgate reads 1)");
  }
  PG_RETURN_IF_ERROR(fields.Require("legs"));
  PG_RETURN_IF_ERROR(fields.Require("suites"));
  SuiteConfig config;
  config.path = path;
  PG_RETURN_IF_ERROR(ParseLegs(source, root.at("legs"), &config));
  PG_RETURN_IF_ERROR(ParseSuites(source, root.at("suites"), &config));
  if (root.contains("toolchain")) {
    PG_RETURN_IF_ERROR(ParseToolchain(source, root.at("toolchain"), &config));
  }
  PG_RETURN_IF_ERROR(fields.Number("kill_grace_s", &config.kill_grace_s, 0));
  if (root.contains("contention")) {
    PG_RETURN_IF_ERROR(ParseContention(source, root.at("contention"), &config.contention));
  }
  if (root.contains("range"))
    PG_RETURN_IF_ERROR(ParseRange(source, root.at("range"), &config.range));
  if (root.contains("commands"))
    PG_RETURN_IF_ERROR(ParseCommands(source, root.at("commands"), &config.commands));
  if (root.contains("prove"))
    PG_RETURN_IF_ERROR(ParseProve(source, root.at("prove"), &config.prove));
  config.prove.FillFrom(config.commands);
  if (root.contains("generate"))
    PG_RETURN_IF_ERROR(ParseGenerate(source, root.at("generate"), &config.generate));
  PG_RETURN_IF_ERROR(ValidateSuiteGraph(source, config));
  return config;
}

void ScratchCommands::FillFrom(const ScratchCommands& fallback) {
  // Build targets belong to the build command they were written for: taken only with it.
  if (build_command.empty() && build_targets.empty()) build_targets = fallback.build_targets;
  for (auto [mine, theirs] : {std::pair{&configure, &fallback.configure},
                              {&build_command, &fallback.build_command},
                              {&test_command, &fallback.test_command},
                              {&list_command, &fallback.list_command}}) {
    if (mine->empty()) *mine = *theirs;
  }
}

StatusOr<SuiteConfig> LoadSuiteConfig(const std::string& path, const std::string& display_path) {
  std::string shown = display_path.empty() ? path : display_path;
  auto text = ReadFile(path);
  if (!text.ok()) return Status::Invalid(shown + ": cannot read the suites file");
  return ParseSuiteConfig(shown, *text);
}

}  // namespace pg
