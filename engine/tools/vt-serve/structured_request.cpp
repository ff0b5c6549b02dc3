#include "structured_request.h"

#include <set>
#include <vector>

#include "client_text.h"
#include "json_schema_grammar.h"

namespace vtserve {
namespace {

using Json = nlohmann::json;
using Ordered = nlohmann::ordered_json;

const std::set<std::string> kFields = {"response_format", "structured_outputs", "guided_json", "guided_regex", "guided_choice",
                                       "guided_grammar"};

ApiError Bad(const std::string& param, const std::string& message) { return ApiError{400, message, param}; }

// One field's constraint as GBNF text.
struct Source {
  std::string field, gbnf;
};

// A schema (an object, or its JSON text as vLLM also takes it), as GBNF.
bool FromSchema(const Ordered& schema, const std::string& field, std::vector<Source>* out, ApiError* e) {
  Ordered parsed = schema;
  if (schema.is_string()) {
    // Text inside the body: nested as deep as it likes, so its depth is checked as the body's.
    if (JsonDepth(schema.get<std::string>(), kMaxJsonDepth) > kMaxJsonDepth) {
      return *e = Bad(field, field + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels"), false;
    }
    parsed = Ordered::parse(schema.get<std::string>(), nullptr, false);
    if (parsed.is_discarded()) return *e = Bad(field, field + " is a string that is not a JSON schema"), false;
  }
  auto gbnf = vttools::JsonSchemaToGbnf(parsed, field);
  if (!gbnf.ok()) return *e = Bad(field, gbnf.status().message()), false;
  out->push_back({field, gbnf.value()});
  return true;
}

bool FromChoice(const Json& v, const std::string& field, std::vector<Source>* out, ApiError* e) {
  if (!v.is_array() || v.empty()) return *e = Bad(field, field + " must be a non-empty array of strings"), false;
  std::string alts;
  for (const Json& c : v) {
    if (!c.is_string()) return *e = Bad(field, field + " must be a non-empty array of strings"), false;
    alts += (alts.empty() ? "" : " | ") + vt::GbnfLiteral(c.get<std::string>());
  }
  out->push_back({field, "root ::= (" + alts + ")\n"});
  return true;
}

bool FromText(const Json& v, const std::string& field, bool regex, std::vector<Source>* out, ApiError* e) {
  if (!v.is_string()) return *e = Bad(field, field + " must be a string"), false;
  if (!regex) return out->push_back({field, v.get<std::string>()}), true;
  auto body = vt::RegexToGbnf(v.get<std::string>());
  if (!body.ok()) return *e = Bad(field, field + ": " + body.status().message()), false;
  out->push_back({field, "root ::= " + body.value() + "\n"});
  return true;
}

bool ReadResponseFormat(const Json& rf, const Ordered& ordered, std::vector<Source>* out, ApiError* e) {
  if (!rf.is_object() || !rf.contains("type") || !rf["type"].is_string()) {
    return *e = Bad("response_format", "response_format must be an object with a type"), false;
  }
  const std::string type = rf["type"].get<std::string>();
  for (const auto& [key, value] : rf.items()) {
    if (key != "type" && key != "json_schema") return *e = Bad("response_format." + key, "unknown field response_format." + key), false;
  }
  if (type == "text") return true;
  if (type == "json_object") return out->push_back({"response_format", vttools::AnyJsonGbnf(true)}), true;
  if (type != "json_schema") {
    return *e = Bad("response_format.type", "response_format.type must be text, json_object or json_schema"), false;
  }
  const Json& js = rf.contains("json_schema") ? rf["json_schema"] : Json();
  if (!js.is_object()) return *e = Bad("response_format.json_schema", "response_format.json_schema must be an object"), false;
  for (const auto& [key, value] : js.items()) {
    if (key != "name" && key != "description" && key != "schema" && key != "strict") {
      return *e = Bad("response_format.json_schema." + key, "unknown field response_format.json_schema." + key), false;
    }
  }
  if (!js.contains("schema")) return out->push_back({"response_format", vttools::AnyJsonGbnf(true)}), true;
  return FromSchema(ordered["response_format"]["json_schema"]["schema"], "response_format.json_schema.schema", out, e);
}

bool ReadOne(const std::string& kind, const Json& v, const Ordered& ordered, const std::string& field, std::vector<Source>* out,
             ApiError* e) {
  if (kind == "json") return FromSchema(ordered, field, out, e);
  if (kind == "choice") return FromChoice(v, field, out, e);
  if (kind == "regex" || kind == "grammar") return FromText(v, field, kind == "regex", out, e);
  if (!v.is_boolean()) return *e = Bad(field, field + " must be true or false"), false;
  if (v.get<bool>()) out->push_back({field, vttools::AnyJsonGbnf(true)});
  return true;
}

bool ReadStructuredOutputs(const Json& so, const Ordered& ordered, std::vector<Source>* out, ApiError* e) {
  if (!so.is_object()) return *e = Bad("structured_outputs", "structured_outputs must be an object"), false;
  for (const auto& [key, value] : so.items()) {
    if (key != "json" && key != "regex" && key != "choice" && key != "grammar" && key != "json_object") {
      return *e = Bad("structured_outputs." + key, "unknown field structured_outputs." + key), false;
    }
    if (!value.is_null() && !ReadOne(key, value, ordered[key], "structured_outputs." + key, out, e)) return false;
  }
  return true;
}

}  // namespace

std::string StartProblem(const std::shared_ptr<const vt::Grammar>& grammar) {
  vt::GrammarAutomaton start(grammar);
  if (!start.status().ok()) return start.status().message();
  if (!start.CanContinue(start.start()) && !start.Accepting(start.start())) return "the grammar matches nothing (a class with no character?)";
  return "";
}

bool IsStructuredField(const std::string& key) { return kFields.count(key) > 0; }

bool ReadStructured(const Json& j, const std::string& body, std::shared_ptr<const vt::Grammar>* grammar, ApiError* e) {
  bool any = false;
  for (const std::string& f : kFields) any = any || (j.contains(f) && !j[f].is_null());
  if (!any) return true;
  const Ordered ordered = Ordered::parse(body, nullptr, false);  // parsed once already: it parses
  std::vector<Source> sources;
  if (j.contains("response_format") && !j["response_format"].is_null() &&
      !ReadResponseFormat(j["response_format"], ordered, &sources, e)) {
    return false;
  }
  if (j.contains("structured_outputs") && !j["structured_outputs"].is_null() &&
      !ReadStructuredOutputs(j["structured_outputs"], ordered["structured_outputs"], &sources, e)) {
    return false;
  }
  for (const char* kind : {"json", "regex", "choice", "grammar"}) {
    const std::string field = std::string("guided_") + kind;
    if (j.contains(field) && !j[field].is_null() && !ReadOne(kind, j[field], ordered[field], field, &sources, e)) return false;
  }
  if (sources.empty()) return true;
  if (sources.size() > 1) {
    return *e = Bad(sources[1].field, "only one constraint may shape a request's output: " + sources[0].field + " and " + sources[1].field), false;
  }
  auto g = vt::Grammar::FromGbnf(sources[0].gbnf);
  if (!g.ok()) return *e = Bad(sources[0].field, sources[0].field + ": the grammar does not compile: " + g.status().message()), false;
  if (std::string why = StartProblem(g.value()); !why.empty()) return *e = Bad(sources[0].field, sources[0].field + ": " + why), false;
  *grammar = g.value();
  return true;
}

}  // namespace vtserve
