// The JSON-Schema-Test-Suite (Debian's json-schema-test-suite, draft 7) against the schema
// converter: each of its schemas is refused with a message naming a keyword of it, or its
// grammar takes the suite's valid instances and refuses its invalid ones. The exceptions are
// listed below, each with its reason, and the list is held both ways: a deviation not listed
// fails, and so does a listed one that no longer happens (the list stays true).
//
// The grammar generates one layout of each value, so instances are written in it: compact, an
// object's keys in the order the schema names them (structured-outputs.md: ordered members).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "grammar_match.h"
#include "json_schema_grammar.h"
#include "vt/grammar.h"

namespace vttools {
namespace {

using Json = nlohmann::ordered_json;

// Why the grammar may answer otherwise. Each but kOneOf takes fewer values than the schema: the
// output is still valid, it is only never one of those.
const char kStrict[] =
    "additionalProperties left out is false, as in OpenAI's strict mode: other keys are refused";
const char kUntyped[] =
    "an untyped schema's keywords let other types' values through; the grammar makes its keywords' "
    "type alone";
const char kLayout[] = "a const or enum object is written with its keys in the schema's order";
const char kOneOf[] =
    "oneOf is read as anyOf (as xgrammar and llama.cpp read it): a value two of its schemas take "
    "is taken";

// "file/schema description/test description" → why the grammar's answer differs from the suite's.
const std::map<std::string, const char*> kDeviations = {
#include "json_schema_suite_deviations.inc"
};

// Every key a `properties` object names, in the order the schema first writes it.
void CollectNames(const Json& s, std::map<std::string, size_t>* rank) {
  if (s.is_object()) {
    for (const auto& [key, value] : s.items()) {
      if (key == "properties" && value.is_object()) {
        for (const auto& [name, sub] : value.items()) rank->emplace(name, rank->size());
      }
      CollectNames(value, rank);
    }
  } else if (s.is_array()) {
    for (const Json& v : s) CollectNames(v, rank);
  }
}

// `v` compact, each object's keys in the schema's order (keys it never names last, as written).
Json Canonical(const Json& v, const std::map<std::string, size_t>& rank) {
  if (v.is_array()) {
    Json out = Json::array();
    for (const Json& e : v) out.push_back(Canonical(e, rank));
    return out;
  }
  if (!v.is_object()) return v;
  std::vector<std::pair<std::string, const Json*>> members;
  for (const auto& [key, value] : v.items()) members.emplace_back(key, &value);
  auto order = [&](const std::string& k) {
    auto it = rank.find(k);
    return it == rank.end() ? rank.size() : it->second;
  };
  std::stable_sort(members.begin(), members.end(),
                   [&](const auto& a, const auto& b) { return order(a.first) < order(b.first); });
  Json out = Json::object();
  for (const auto& [key, value] : members) out[key] = Canonical(*value, rank);
  return out;
}

bool Matches(const std::shared_ptr<const vt::Grammar>& g, const std::string& text) {
  return vt::testing::GrammarTakes(g, text);
}

// Some key of the schema (at any depth) appears in the refusal: it says what was refused.
bool NamesAKeyOf(const Json& s, const std::string& message) {
  if (s.is_boolean()) return message.find(s.dump()) != std::string::npos;  // `false` itself
  if (s.is_array())
    return std::any_of(s.begin(), s.end(), [&](const Json& v) { return NamesAKeyOf(v, message); });
  if (!s.is_object()) return false;
  for (const auto& [key, value] : s.items()) {
    if (message.find(key) != std::string::npos || NamesAKeyOf(value, message)) return true;
  }
  return false;
}

struct SuiteRun {
  int schemas = 0, supported = 0, instances = 0;
  std::set<std::string> deviations;  // seen, listed or not
  std::vector<std::string> failures;
};

void RunGroup(const std::string& file, const Json& group, SuiteRun* run) {
  const std::string where = file + "/" + group["description"].get<std::string>();
  ++run->schemas;
  auto gbnf = JsonSchemaToGbnf(group["schema"], "schema");
  if (!gbnf.ok()) {
    if (!NamesAKeyOf(group["schema"], gbnf.status().message()))
      run->failures.push_back(where + ": refused naming nothing of it: " + gbnf.status().message());
    return;
  }
  auto grammar = vt::Grammar::FromGbnf(gbnf.value());
  if (!grammar.ok())
    return run->failures.push_back(where +
                                   ": its grammar does not compile: " + grammar.status().message());
  ++run->supported;
  std::map<std::string, size_t> rank;
  CollectNames(group["schema"], &rank);
  for (const Json& t : group["tests"]) {
    ++run->instances;
    const std::string text = Canonical(t["data"], rank).dump(),
                      name = where + "/" + t["description"].get<std::string>();
    const bool valid = t["valid"].get<bool>(), taken = Matches(grammar.value(), text);
    if (taken == valid) continue;
    run->deviations.insert(name);
    if (!kDeviations.count(name))
      run->failures.push_back(name + ": " + text +
                              (valid ? " is valid but refused" : " is invalid but taken"));
  }
}

TEST(JsonSchemaSuite, EachSchemaIsRefusedByNameOrItsGrammarTakesExactlyItsValidInstances) {
  const std::filesystem::path dir = JSON_SCHEMA_SUITE_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(dir))
      << dir << " is missing: scripts/install-deps installs json-schema-test-suite";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  SuiteRun run;
  for (const auto& path : files) {
    std::ifstream in(path);
    const Json groups = Json::parse(in);
    for (const Json& group : groups) RunGroup(path.filename().string(), group, &run);
  }
  for (const std::string& f : run.failures) ADD_FAILURE() << f;
  for (const auto& [name, why] : kDeviations)
    EXPECT_TRUE(run.deviations.count(name))
        << name << ": listed (" << why << ") but the grammar now agrees with the suite";
  std::cout << files.size() << " files, " << run.schemas << " schemas: " << run.supported
            << " made grammars (" << run.instances << " instances, " << run.deviations.size()
            << " listed deviations), the rest refused by name\n";
  EXPECT_GT(run.supported,
            run.schemas / 3);  // a converter that refuses most schemas proves little here
}

}  // namespace
}  // namespace vttools
