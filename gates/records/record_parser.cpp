// Parsing and shape lint of record files: the wrong shapes are refused before anything runs.
#include <regex>

#include "gates/config/json_fields.h"
#include "gates/core/file_io.h"
#include "gates/records/record.h"

namespace pg {
namespace {

bool LooksLikeReference(const std::string& s) {
  static const std::regex kRef(R"(^\$\{[^}]*\}$|^\$[A-Za-z_][A-Za-z0-9_.]*$)");
  return std::regex_search(s, kRef);
}

Status ParseExpect(const JsonFields& f, const Json& value, const std::string& field,
                   RecordField* out) {
  if (!value.contains("expect"))
    return f.ErrorAt("", "field \"" + field + "\" has no \"expect\" constant");
  const Json& e = value.at("expect");
  if (e.is_object() || (e.is_string() && LooksLikeReference(e.get<std::string>()))) {
    return f.ErrorAt(
        "expect",
        "\"expect\" of \"" + field +
            "\" refers to another value; write the literal constant "
            "this field must equal (a copied reference makes two fields share one constant)");
  }
  if (!e.is_string())
    return f.ErrorAt("expect", "\"expect\" must be a string, got " + JsonTypeName(e));
  out->expect = e.get<std::string>();
  return Status();
}

Status ParseField(const JsonSource& src, const std::string& name, const Json& value,
                  RecordField* out) {
  std::string pointer = "/fields/" + JsonSource::Escape(name);
  if (!value.is_object()) return src.ErrorAt(pointer, "field \"" + name + "\" must be an object");
  JsonFields f(src, value, pointer, "field \"" + name + "\"");
  PG_RETURN_IF_ERROR(f.CheckKnown(
      {"expect", "observe", "observe_file", "regex", "timeout_s", "optional", "description"}));
  out->name = name;
  PG_RETURN_IF_ERROR(ParseExpect(f, value, name, out));
  if (value.contains("observe") && value.at("observe").is_array() && !value.at("observe").empty() &&
      value.at("observe")[0].is_array()) {
    return f.ErrorAt(
        "observe",
        "one field observes several values against one constant: make one field per observed "
        "value, each with its own \"expect\" (and declare a relation if one holds)");
  }
  PG_RETURN_IF_ERROR(f.StringList("observe", &out->observe));
  PG_RETURN_IF_ERROR(f.String("observe_file", &out->observe_file));
  PG_RETURN_IF_ERROR(f.String("regex", &out->regex));
  PG_RETURN_IF_ERROR(f.Number("timeout_s", &out->timeout_s, 0));
  PG_RETURN_IF_ERROR(f.Bool("optional", &out->optional));
  bool by_command = !out->observe.empty(), by_file = !out->observe_file.empty();
  if (by_command == by_file)
    return f.ErrorAt("", "needs exactly one of \"observe\" (argv) or \"observe_file\" + \"regex\"");
  if (by_file && out->regex.empty())
    return f.ErrorAt("observe_file", "\"observe_file\" needs a \"regex\"");
  if (by_file) {
    try {
      std::regex check(out->regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return f.ErrorAt("regex", std::string("invalid regex: ") + e.what());
    }
  }
  return Status();
}

Status ParseRelation(const JsonSource& src, const Record& r, size_t i, const Json& value,
                     RecordRelation* out) {
  std::string pointer = "/relations/" + std::to_string(i);
  if (!value.is_object()) return src.ErrorAt(pointer, "a relation must be an object");
  JsonFields f(src, value, pointer, "relation " + std::to_string(i));
  PG_RETURN_IF_ERROR(f.CheckKnown({"kind", "of", "is", "suffix", "when"}));
  PG_RETURN_IF_ERROR(f.Require("kind"));
  PG_RETURN_IF_ERROR(f.String("kind", &out->kind));
  if (out->kind == "differ" || out->kind == "not-equal") {
    return f.ErrorAt(
        "kind",
        "a relation of inequality asserts a symptom, not a guarantee: give each field its own "
        "expected constant (and a prefix/suffix-when relation if one holds)");
  }
  if (out->kind != "prefix" && out->kind != "equal" && out->kind != "suffix-when") {
    return f.ErrorAt("kind", "unknown relation \"" + out->kind + "\" (prefix, equal, suffix-when)");
  }
  PG_RETURN_IF_ERROR(f.Require("of"));
  PG_RETURN_IF_ERROR(f.Require("is"));
  PG_RETURN_IF_ERROR(f.String("of", &out->of));
  PG_RETURN_IF_ERROR(f.String("is", &out->is));
  for (const std::string* name : {&out->of, &out->is}) {
    if (!r.Find(*name))
      return f.ErrorAt(name == &out->of ? "of" : "is", "no field named \"" + *name + "\"");
  }
  if (out->kind != "suffix-when") return Status();
  PG_RETURN_IF_ERROR(f.Require("suffix"));
  PG_RETURN_IF_ERROR(f.Require("when"));
  PG_RETURN_IF_ERROR(f.String("suffix", &out->suffix));
  const Json& when = value.at("when");
  JsonFields w(src, when, pointer + "/when", "relation " + std::to_string(i) + " when");
  if (!when.is_object())
    return f.ErrorAt("when", "\"when\" must be {\"field\": NAME, \"equals\": VALUE}");
  PG_RETURN_IF_ERROR(w.CheckKnown({"field", "equals"}));
  PG_RETURN_IF_ERROR(w.String("field", &out->when_field));
  PG_RETURN_IF_ERROR(w.String("equals", &out->when_equals));
  if (!r.Find(out->when_field))
    return w.ErrorAt("field", "no field named \"" + out->when_field + "\"");
  return Status();
}

}  // namespace

const RecordField* Record::Find(const std::string& field) const {
  for (const RecordField& f : fields) {
    if (f.name == field) return &f;
  }
  return nullptr;
}

StatusOr<Record> ParseRecord(const std::string& path, const std::string& text) {
  PG_ASSIGN_OR_RETURN(JsonSource src, JsonSource::Parse(path, text));
  const Json& root = src.root();
  if (!root.is_object()) return src.ErrorAt("", "a record must be an object");
  JsonFields top(src, root, "", "");
  if (root.contains("expect")) {
    return top.ErrorAt(
        "expect",
        "a record-level \"expect\" would be one constant for several observed fields: give "
        "each field its own \"expect\"");
  }
  PG_RETURN_IF_ERROR(top.CheckKnown({"record", "description", "fields", "relations"}));
  PG_RETURN_IF_ERROR(top.Require("record"));
  PG_RETURN_IF_ERROR(top.Require("fields"));
  Record r;
  r.path = path;
  PG_RETURN_IF_ERROR(top.String("record", &r.name));
  const Json& fields = root.at("fields");
  if (!fields.is_object() || fields.empty())
    return top.ErrorAt("fields", "\"fields\" must be a non-empty object");
  for (const auto& [name, value] : fields.items()) {
    RecordField f;
    PG_RETURN_IF_ERROR(ParseField(src, name, value, &f));
    r.fields.push_back(std::move(f));
  }
  if (root.contains("relations")) {
    const Json& rel = root.at("relations");
    if (!rel.is_array()) return top.ErrorAt("relations", "\"relations\" must be an array");
    for (size_t i = 0; i < rel.size(); ++i) {
      RecordRelation relation;
      PG_RETURN_IF_ERROR(ParseRelation(src, r, i, rel[i], &relation));
      r.relations.push_back(std::move(relation));
    }
  }
  return r;
}

StatusOr<Record> LoadRecord(const std::string& path) {
  PG_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseRecord(path, text);
}

}  // namespace pg
