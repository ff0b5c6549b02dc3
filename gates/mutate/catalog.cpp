#include "gates/mutate/catalog.h"

#include <climits>
#include <regex>
#include <set>

#include "gates/config/json_fields.h"
#include "gates/core/file_io.h"
#include "gates/git/git.h"

namespace pg {
namespace {

std::vector<size_t> Occurrences(const std::string& text, const std::string& find) {
  std::vector<size_t> at;
  for (size_t p = text.find(find); p != std::string::npos; p = text.find(find, p + 1))
    at.push_back(p);
  return at;
}

Status ParseExpect(const JsonSource& src, const JsonFields& f, const Json& value, Mutation* m) {
  std::string pointer = f.PointerOf("expect");
  if (!value.contains("expect") || !value.at("expect").is_array() || value.at("expect").empty()) {
    return f.ErrorAt("expect", "mutation \"" + m->id + "\" names no expected failing test");
  }
  const Json& list = value.at("expect");
  for (size_t i = 0; i < list.size(); ++i) {
    std::string p = pointer + "/" + std::to_string(i);
    if (!list[i].is_object())
      return src.ErrorAt(p, "an expectation is {\"test\": ..., \"message\": ...}");
    JsonFields e(src, list[i], p, "mutation \"" + m->id + "\" expect " + std::to_string(i));
    Expectation x;
    PG_RETURN_IF_ERROR(e.CheckKnown({"test", "message"}));
    PG_RETURN_IF_ERROR(e.Require("test"));
    PG_RETURN_IF_ERROR(e.String("test", &x.test));
    PG_RETURN_IF_ERROR(e.String("message", &x.message));
    if (x.test.empty()) return e.ErrorAt("test", "test names no test");
    try {
      std::regex check(x.message, std::regex::ECMAScript | std::regex::multiline);
    } catch (const std::regex_error& err) {
      return e.ErrorAt("message", std::string("invalid regex: ") + err.what());
    }
    m->expect.push_back(std::move(x));
  }
  return Status();
}

// `find` must pick exactly one place in the file: no-match and ambiguous are catalog errors,
// never "survived".
Status Locate(const JsonFields& f, const std::string& root, Mutation* m) {
  auto text = ReadFile(root + "/" + m->file);
  if (!text.ok())
    return f.ErrorAt("file", "mutation \"" + m->id + "\": " + m->file + " does not exist");
  std::vector<size_t> at = Occurrences(*text, m->find);
  if (at.empty())
    return f.ErrorAt("find",
                     "no-match: mutation \"" + m->id + "\": \"find\" occurs nowhere in " + m->file);
  if (m->occurrence == 0 && at.size() > 1) {
    return f.ErrorAt("find", "ambiguous: mutation \"" + m->id + "\": \"find\" occurs " +
                                 std::to_string(at.size()) + " times in " + m->file +
                                 " (add \"occurrence\")");
  }
  if (m->occurrence > static_cast<int>(at.size())) {
    return f.ErrorAt("occurrence", "mutation \"" + m->id + "\": occurrence " +
                                       std::to_string(m->occurrence) + " of " +
                                       std::to_string(at.size()) + " matches");
  }
  m->offset = at[m->occurrence == 0 ? 0 : m->occurrence - 1];
  return Status();
}

Status ParseMutation(const JsonSource& src, size_t i, const Json& value, const std::string& root,
                     Mutation* m) {
  std::string pointer = "/mutations/" + std::to_string(i);
  if (!value.is_object()) return src.ErrorAt(pointer, "a mutation must be an object");
  JsonFields f(src, value, pointer, "mutation " + std::to_string(i));
  PG_RETURN_IF_ERROR(f.CheckKnown(
      {"id", "file", "find", "replace", "occurrence", "expect", "note", "expect_outcome"}));
  for (const char* key : {"id", "file", "find", "replace"}) PG_RETURN_IF_ERROR(f.Require(key));
  PG_RETURN_IF_ERROR(f.String("id", &m->id));
  PG_RETURN_IF_ERROR(f.String("file", &m->file));
  PG_RETURN_IF_ERROR(f.String("find", &m->find));
  PG_RETURN_IF_ERROR(f.String("replace", &m->replace));
  PG_RETURN_IF_ERROR(f.String("note", &m->note));
  PG_RETURN_IF_ERROR(f.String("expect_outcome", &m->expect_outcome));
  if (m->expect_outcome == "red-as-claimed") m->expect_outcome.clear();
  if (!m->expect_outcome.empty() && m->expect_outcome != "survived" &&
      m->expect_outcome != "unviable") {
    return f.ErrorAt("expect_outcome",
                     "mutation \"" + m->id +
                         "\": expect_outcome is \"red-as-claimed\" (the default), "
                         "\"survived\" or \"unviable\", got \"" +
                         m->expect_outcome + "\"");
  }
  long occurrence = 0;
  PG_RETURN_IF_ERROR(f.Integer("occurrence", &occurrence));
  // 0 is "unset" inside (the find occurs once); written out it is a mistake, as -1 is.
  if (occurrence < 0 || (occurrence == 0 && f.Has("occurrence"))) {
    return f.ErrorAt("occurrence", "occurrence counts from 1, got " + std::to_string(occurrence));
  }
  // Past an int it wrapped (4294967297 became 1) or indexed past the matches (an abort).
  if (occurrence > INT_MAX)
    return f.ErrorAt("occurrence",
                     "occurrence " + std::to_string(occurrence) + ": past any file's matches");
  m->occurrence = static_cast<int>(occurrence);
  if (m->find.empty()) return f.ErrorAt("find", "\"find\" is empty");
  if (m->find == m->replace)
    return f.ErrorAt("replace", "\"replace\" equals \"find\": nothing would change");
  PG_RETURN_IF_ERROR(ParseExpect(src, f, value, m));
  return Locate(f, root, m);
}

Status ParseCombo(const JsonSource& src, size_t i, const Json& value,
                  const std::set<std::string>& ids, Combo* c) {
  std::string pointer = "/combos/" + std::to_string(i);
  if (!value.is_object()) return src.ErrorAt(pointer, "a combo must be an object");
  JsonFields f(src, value, pointer, "combo " + std::to_string(i));
  PG_RETURN_IF_ERROR(f.CheckKnown({"id", "apply", "expect_green", "note"}));
  PG_RETURN_IF_ERROR(f.Require("id"));
  PG_RETURN_IF_ERROR(f.Require("apply"));
  PG_RETURN_IF_ERROR(f.String("id", &c->id));
  PG_RETURN_IF_ERROR(f.StringList("apply", &c->apply));
  PG_RETURN_IF_ERROR(f.Bool("expect_green", &c->expect_green));
  if (c->apply.size() < 2) return f.ErrorAt("apply", "a combo applies two or more mutations");
  for (const std::string& id : c->apply) {
    if (!ids.count(id))
      return f.ErrorAt("apply", "combo \"" + c->id + "\" applies unknown mutation \"" + id + "\"");
  }
  return Status();
}

Status ParseCommands(const JsonFields& f, Catalog* c) {
  PG_RETURN_IF_ERROR(f.StringList("build", &c->build_targets));
  PG_RETURN_IF_ERROR(f.StringList("configure", &c->configure));
  PG_RETURN_IF_ERROR(f.StringList("build_command", &c->build_command));
  PG_RETURN_IF_ERROR(f.StringList("test_command", &c->test_command));
  PG_RETURN_IF_ERROR(f.String("spec", &c->spec));
  return Status();
}

// The spec named must exist and hold the generated table's markers, so a run never ends with
// results it has nowhere to write.
Status CheckSpec(const JsonFields& f, const std::string& root, const std::string& spec) {
  if (spec.empty()) return Status();
  auto text = ReadFile(root + "/" + spec);
  if (!text.ok()) return f.ErrorAt("spec", spec + " does not exist");
  size_t begin = 0, end = 0;
  if (!FindMutationTable(*text, &begin, &end)) {
    return f.ErrorAt("spec", spec + " has no " + std::string(kMutationTableBegin) + " ... " +
                                 std::string(kMutationTableEnd) + " markers");
  }
  return Status();
}

// Each carried path: relative, inside the root, and ignored by git (what git does not ignore
// is in the scratch copy already; a link there would hide the copy's own files).
Status ParseCarry(const JsonFields& f, const std::string& root, Catalog* c) {
  PG_RETURN_IF_ERROR(f.StringList("carry", &c->carry));
  for (const std::string& p : c->carry) {
    bool outside = p.empty() || p[0] == '/' || p == ".." || p.rfind("../", 0) == 0 ||
                   p.find("/../") != std::string::npos ||
                   (p.size() >= 3 && p.compare(p.size() - 3, 3, "/..") == 0);
    if (outside)
      return f.ErrorAt("carry", "carried path \"" + p + "\" must be relative and inside the root");
    PG_ASSIGN_OR_RETURN(bool as_dir, git::IsIgnored(root, p + "/"));
    PG_ASSIGN_OR_RETURN(bool as_file, git::IsIgnored(root, p));
    if (!as_dir && !as_file)
      return f.ErrorAt("carry", "carried path \"" + p +
                                    "\" is not ignored by git: the scratch tree copies it already");
  }
  return Status();
}

}  // namespace

StatusOr<Catalog> ParseCatalog(const std::string& path, const std::string& text,
                               const std::string& root) {
  PG_ASSIGN_OR_RETURN(JsonSource src, JsonSource::Parse(path, text));
  if (!src.root().is_object()) return src.ErrorAt("", "a catalog must be an object");
  JsonFields top(src, src.root(), "", "");
  PG_RETURN_IF_ERROR(
      top.CheckKnown({"schema_version", "build", "configure", "build_command", "test_command",
                      "mutations", "combos", "description", "spec", "affected_by", "carry"}));
  long version = 0;
  PG_RETURN_IF_ERROR(top.Require("schema_version"));
  PG_RETURN_IF_ERROR(top.Integer("schema_version", &version));
  if (version != 1)
    return top.ErrorAt("schema_version",
                       "schema_version " + std::to_string(version) + " is not supported (1)");
  Catalog c;
  c.path = path;
  PG_RETURN_IF_ERROR(ParseCommands(top, &c));
  PG_RETURN_IF_ERROR(top.StringList("affected_by", &c.affected_by));
  PG_RETURN_IF_ERROR(ParseCarry(top, root, &c));
  PG_RETURN_IF_ERROR(CheckSpec(top, root, c.spec));
  PG_RETURN_IF_ERROR(top.Require("mutations"));
  const Json& mutations = src.root().at("mutations");
  if (!mutations.is_array() || mutations.empty())
    return top.ErrorAt("mutations", "\"mutations\" must be a non-empty array");
  std::set<std::string> ids;
  for (size_t i = 0; i < mutations.size(); ++i) {
    Mutation m;
    PG_RETURN_IF_ERROR(ParseMutation(src, i, mutations[i], root, &m));
    if (!ids.insert(m.id).second)
      return src.ErrorAt("/mutations/" + std::to_string(i) + "/id",
                         "duplicate id \"" + m.id + "\"");
    c.mutations.push_back(std::move(m));
  }
  if (src.root().contains("combos")) {
    const Json& combos = src.root().at("combos");
    if (!combos.is_array()) return top.ErrorAt("combos", "\"combos\" must be an array");
    for (size_t i = 0; i < combos.size(); ++i) {
      Combo combo;
      PG_RETURN_IF_ERROR(ParseCombo(src, i, combos[i], ids, &combo));
      if (!ids.insert(combo.id).second)
        return src.ErrorAt("/combos/" + std::to_string(i) + "/id",
                           "duplicate id \"" + combo.id + "\"");
      c.combos.push_back(std::move(combo));
    }
  }
  return c;
}

bool FindMutationTable(const std::string& text, size_t* begin, size_t* end) {
  auto line_at = [&](const std::string& marker, size_t from) {
    for (size_t at = text.find(marker, from); at != std::string::npos;
         at = text.find(marker, at + 1)) {
      bool starts = at == 0 || text[at - 1] == '\n';
      size_t after = at + marker.size();
      if (starts && (after == text.size() || text[after] == '\n' || text[after] == '\r')) return at;
    }
    return std::string::npos;
  };
  size_t b = line_at(kMutationTableBegin, 0);
  if (b == std::string::npos) return false;
  *begin = b + std::string(kMutationTableBegin).size();
  *end = line_at(kMutationTableEnd, *begin);
  return *end != std::string::npos;
}

StatusOr<Catalog> LoadCatalog(const std::string& path, const std::string& root) {
  PG_ASSIGN_OR_RETURN(std::string text,
                      ReadFile(path.size() && path[0] == '/' ? path : root + "/" + path));
  return ParseCatalog(path, text, root);
}

}  // namespace pg
