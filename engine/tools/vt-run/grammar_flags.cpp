#include "grammar_flags.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "json_schema_grammar.h"

namespace vtrun {
namespace {

vt::Status Bad(const std::string& flag, const std::string& why) {
  return vt::Status(vt::StatusCode::kInvalidArgument, flag + ": " + why);
}

vt::StatusOr<std::string> ReadFile(const std::string& flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Bad(flag, "cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The GBNF a schema's text stands for.
vt::StatusOr<std::string> SchemaGbnf(const std::string& flag, const std::string& text) {
  auto schema = nlohmann::ordered_json::parse(text, nullptr, false);
  if (schema.is_discarded()) return Bad(flag, "not JSON");
  auto gbnf = vttools::JsonSchemaToGbnf(schema, "schema");
  if (!gbnf.ok()) return Bad(flag, gbnf.status().message());
  return gbnf.value();
}

}  // namespace

vt::StatusOr<std::shared_ptr<const vt::Grammar>> LoadGrammar(const GrammarFlags& f) {
  const int given = !f.grammar.empty() + !f.grammar_file.empty() + !f.json_schema.empty() + !f.json_schema_file.empty();
  if (given == 0) return std::shared_ptr<const vt::Grammar>();
  if (given > 1) return Bad("--grammar", "give one of --grammar, --grammar-file, --json-schema and --json-schema-file");
  std::string flag = "--grammar", gbnf = f.grammar;
  if (!f.grammar_file.empty()) {
    flag = "--grammar-file";
    auto text = ReadFile(flag, f.grammar_file);
    if (!text.ok()) return text.status();
    gbnf = text.value();
  } else if (!f.json_schema.empty() || !f.json_schema_file.empty()) {
    flag = f.json_schema.empty() ? "--json-schema-file" : "--json-schema";
    auto text = f.json_schema.empty() ? ReadFile(flag, f.json_schema_file) : vt::StatusOr<std::string>(f.json_schema);
    if (!text.ok()) return text.status();
    auto converted = SchemaGbnf(flag, text.value());
    if (!converted.ok()) return converted.status();
    gbnf = converted.value();
  }
  auto g = vt::Grammar::FromGbnf(gbnf);
  if (!g.ok()) return Bad(flag, g.status().message());
  return g.value();
}

}  // namespace vtrun
