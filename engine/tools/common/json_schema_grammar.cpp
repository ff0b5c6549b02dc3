#include "json_schema_grammar.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "integer_range_gbnf.h"
#include "vt/grammar.h"

namespace vttools {
namespace {

using Json = nlohmann::ordered_json;

// JSON's own rules. A number has at most 16 digits before its point (and 16 after, 2 in its
// exponent: JavaScript reads 1e308 past as Infinity), so even a model that never stops choosing
// digits ends one.
const char kJsonRules[] = R"(space ::= " "?
json-char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})
json-string ::= "\"" json-char* "\""
json-integer ::= "-"? ("0" | [1-9] [0-9]{0,15})
json-number ::= json-integer ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,2})?
json-boolean ::= "true" | "false"
json-null ::= "null"
json-value ::= json-object | json-array | json-string | json-number | json-boolean | json-null
json-member ::= json-string space ":" space json-value space
json-object ::= "{" space (json-member ("," space json-member)*)? "}"
json-array ::= "[" space (json-value space ("," space json-value space)*)? "]"
json-date ::= [0-9]{4} "-" ("0" [1-9] | "1" [0-2]) "-" ("0" [1-9] | [12] [0-9] | "3" [01])
json-time ::= ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,6})? ("Z" | [+-] ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9])
json-label ::= [a-zA-Z0-9]{1,20}
)";

const std::map<std::string, std::string> kFormats = {
    {"date", "json-date"},
    {"time", "json-time"},
    {"date-time", "json-date \"T\" json-time"},
    {"uuid", "[0-9a-fA-F]{8} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{12}"},
    {"email", "[a-zA-Z0-9_+-]{1,32} (\".\" [a-zA-Z0-9_+-]{1,32})* \"@\" json-label (\".\" json-label)* \".\" [a-zA-Z]{2,6}"},
};

// Keywords that say nothing of which values are valid.
const std::set<std::string> kAnnotations = {"title", "description", "$schema", "$id", "default", "examples", "$comment",
                                            "deprecated", "readOnly", "writeOnly", "$defs", "definitions", "discriminator"};
const std::set<std::string> kSupported = {"type", "properties", "required", "additionalProperties", "items", "prefixItems",
                                          "minItems", "maxItems", "enum", "const", "anyOf", "oneOf", "allOf", "$ref",
                                          "minLength", "maxLength", "pattern", "format", "minimum", "maximum",
                                          "exclusiveMinimum", "exclusiveMaximum", "uniqueItems", "nullable"};

constexpr int64_t kMaxInt = 9999999999999999;  // 16 digits, json-integer's longest
constexpr int64_t kMaxCount = 10000;            // GBNF's largest {m,n}

std::string Quote(const std::string& s) { return vt::GbnfLiteral(s); }

// An integer, or a number with no fraction (1.0): JSON Schema's integers.
bool IsWhole(const Json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d;  // -1e20 too: a bound far past any the grammar writes
}

void AppendUtf8(uint32_t cp, std::string* out) {
  auto put = [&](uint32_t byte) { out->push_back(static_cast<char>(byte)); };
  if (cp < 0x80) return put(cp);
  if (cp < 0x800) return put(0xC0 | (cp >> 6)), put(0x80 | (cp & 0x3F));
  if (cp < 0x10000) return put(0xE0 | (cp >> 12)), put(0x80 | ((cp >> 6) & 0x3F)), put(0x80 | (cp & 0x3F));
  put(0xF0 | (cp >> 18)), put(0x80 | ((cp >> 12) & 0x3F)), put(0x80 | ((cp >> 6) & 0x3F)), put(0x80 | (cp & 0x3F));
}

// `{a,b}` (b < 0: unbounded) in GBNF.
std::string Times(int64_t a, int64_t b) { return "{" + std::to_string(a) + "," + (b < 0 ? "" : std::to_string(b)) + "}"; }

class Converter {
 public:
  Converter(const Json& root, std::string where) : root_(root), where_(std::move(where)) {}

  vt::StatusOr<std::string> Run() {
    std::string expr;
    VT_RETURN_IF_ERROR(Visit(root_, where_, &expr));
    std::string out = kJsonRules;
    for (const auto& [name, body] : rules_) out += name + " ::= " + body + "\n";
    return out + "root ::= " + expr + "\n";
  }

 private:
  static vt::Status Fail(const std::string& path, const std::string& why) {
    return vt::Status(vt::StatusCode::kInvalidArgument, path + ": " + why);
  }

  std::string Rule(const std::string& hint, const std::string& body) {
    std::string name = "s" + std::to_string(rules_.size()) + "-" + hint;
    rules_.push_back({name, body});
    return name;
  }

  vt::Status Visit(const Json& s, const std::string& path, std::string* expr) {
    if (s.is_boolean()) {
      if (!s.get<bool>()) return Fail(path, "the schema false allows no value");
      return *expr = "json-value", vt::Status();
    }
    if (!s.is_object()) return Fail(path, "a schema must be an object or a boolean");
    for (const auto& [key, value] : s.items()) {
      // x-... are extensions (OpenAPI's, pydantic's): annotations, as xgrammar reads them.
      if (!kAnnotations.count(key) && !kSupported.count(key) && key.rfind("x-", 0) != 0) return Fail(path, "\"" + key + "\" is not supported");
    }
    // Draft 7: a $ref's siblings are ignored.
    if (s.contains("$ref")) return Ref(s["$ref"], path, expr);
    for (const char* key : {"const", "enum", "anyOf", "oneOf", "allOf"}) {
      if (!s.contains(key)) continue;
      VT_RETURN_IF_ERROR(OnlyBeside(s, key, path));
      if (key == std::string("const")) return Enum(Json::array({s["const"]}), s, path + ".const", expr);
      if (key == std::string("enum")) return Enum(s["enum"], s, path + ".enum", expr);
      return Choices(s, key, path, expr);
    }
    return Typed(s, path, expr);
  }

  // The grammar of an enum or a choice is its values' or alternatives' alone, so a keyword
  // beside it that narrows the value further would be dropped: refused instead (a type beside
  // an enum only drops the values not of it).
  static vt::Status OnlyBeside(const Json& s, const std::string& key, const std::string& path) {
    const bool values = key == "const" || key == "enum";
    for (const auto& [other, v] : s.items()) {
      if (other == key || kAnnotations.count(other) || other.rfind("x-", 0) == 0) continue;
      if (values && (other == "type" || other == "nullable")) continue;
      return Fail(path, "\"" + other + "\" beside \"" + key + "\" is not supported");
    }
    return vt::Status();
  }

  static bool OfTypes(const Json& v, const Json& s) {
    if (!s.contains("type")) return true;
    auto is = [&](const std::string& t) {
      if (t == "integer") return IsWhole(v);
      return (t == "string" && v.is_string()) || (t == "number" && v.is_number()) || (t == "boolean" && v.is_boolean()) ||
             (t == "null" && v.is_null()) || (t == "object" && v.is_object()) || (t == "array" && v.is_array());
    };
    if (v.is_null() && s.contains("nullable") && s["nullable"] == true) return true;
    if (s["type"].is_string()) return is(s["type"].get<std::string>());
    return s["type"].is_array() && std::any_of(s["type"].begin(), s["type"].end(), [&](const Json& t) { return t.is_string() && is(t.get<std::string>()); });
  }

  vt::Status Enum(const Json& values, const Json& s, const std::string& path, std::string* expr) {
    if (!values.is_array() || values.empty()) return Fail(path, "enum must be a non-empty array");
    std::vector<std::string> alts;
    for (const Json& v : values) {
      if (OfTypes(v, s)) alts.push_back(Quote(v.dump()));
    }
    if (alts.empty()) return Fail(path, "no value is of the schema's type");
    *expr = GbnfAlternatives(alts);
    return vt::Status();
  }

  // anyOf as alternatives; allOf of one schema. oneOf too, as xgrammar and llama.cpp read it:
  // a value two of its schemas take is not valid, but telling them apart is not a grammar's
  // work (specs/structured-outputs.md says so).
  vt::Status Choices(const Json& s, const std::string& key, const std::string& path, std::string* expr) {
    const Json& list = s[key];
    if (!list.is_array() || list.empty()) return Fail(path + "." + key, key + " must be a non-empty array");
    if (key == "allOf" && list.size() != 1) return Fail(path + ".allOf", "allOf of more than one schema is not supported");
    std::vector<std::string> alts;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string e;
      VT_RETURN_IF_ERROR(Visit(list[i], path + "." + key + "[" + std::to_string(i) + "]", &e));
      alts.push_back(e);
    }
    *expr = GbnfAlternatives(alts);
    return vt::Status();
  }

  vt::Status Ref(const Json& ref, const std::string& path, std::string* expr) {
    if (!ref.is_string()) return Fail(path + ".$ref", "$ref must be a string");
    const std::string target = ref.get<std::string>();
    if (auto it = refs_.find(target); it != refs_.end()) return *expr = it->second, vt::Status();
    if (target.rfind("#", 0) != 0) return Fail(path + ".$ref", "only references inside the schema (#/...) are supported");
    const Json* at = nullptr;
    try {
      at = &root_.at(Json::json_pointer(target.substr(1)));
    } catch (const Json::exception&) {
      return Fail(path + ".$ref", "\"" + target + "\" names nothing in the schema");
    }
    // The name first, so a schema that refers to itself finds it.
    const std::string name = "ref" + std::to_string(refs_.size());
    refs_[target] = name;
    std::string body;
    VT_RETURN_IF_ERROR(Visit(*at, path + ".$ref(" + target + ")", &body));
    rules_.push_back({name, body});
    *expr = name;
    return vt::Status();
  }

  vt::Status Typed(const Json& s, const std::string& path, std::string* expr) {
    std::vector<std::string> types;
    if (!s.contains("type")) {
      // Untyped, a keyword applies to the values of its type and lets the others through; the
      // grammar takes the keyword's type alone (fewer values, each valid), never ignores it.
      auto any = [&](std::initializer_list<const char*> keys) { return std::any_of(keys.begin(), keys.end(), [&](const char* k) { return s.contains(k); }); };
      if (any({"properties", "required", "additionalProperties"})) types = {"object"};
      else if (any({"items", "prefixItems", "minItems", "maxItems", "uniqueItems"})) types = {"array"};
      else if (any({"pattern", "format", "minLength", "maxLength"})) types = {"string"};
      else if (any({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})) types = {"number"};
      else return *expr = "json-value", vt::Status();
    } else if (s["type"].is_string()) {
      types = {s["type"].get<std::string>()};
    } else if (s["type"].is_array() && !s["type"].empty() && std::all_of(s["type"].begin(), s["type"].end(), [](const Json& t) { return t.is_string(); })) {
      for (const Json& t : s["type"]) types.push_back(t.get<std::string>());
    } else {
      return Fail(path + ".type", "type must be a string or a non-empty array of strings");
    }
    // OpenAPI's `nullable: true` (what the openai package's zod helper writes for .nullable()).
    if (s.contains("nullable") && s["nullable"] == true && std::find(types.begin(), types.end(), "null") == types.end()) types.push_back("null");
    std::vector<std::string> alts;
    for (const std::string& type : types) {
      std::string e;
      VT_RETURN_IF_ERROR(OfType(s, type, path, &e));
      alts.push_back(e);
    }
    *expr = alts.size() == 1 ? alts[0] : GbnfAlternatives(alts);
    return vt::Status();
  }

  vt::Status OfType(const Json& s, const std::string& type, const std::string& path, std::string* expr) {
    if (type == "string") return String(s, path, expr);
    if (type == "integer") return Integer(s, path, expr);
    if (type == "object") return Object(s, path, expr);
    if (type == "array") return Array(s, path, expr);
    if (type == "boolean") return *expr = "json-boolean", vt::Status();
    if (type == "null") return *expr = "json-null", vt::Status();
    if (type == "number") {
      for (const char* key : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
        if (s.contains(key)) return Fail(path, "\"" + std::string(key) + "\" on a number (not an integer) is not supported");
      }
      return *expr = "json-number", vt::Status();
    }
    return Fail(path + ".type", "unknown type \"" + type + "\"");
  }

  static vt::Status Count(const Json& s, const char* key, const std::string& path, std::optional<int64_t>* out) {
    if (!s.contains(key)) return vt::Status();
    const Json& v = s[key];
    if (!IsWhole(v) && !v.is_number_unsigned()) return Fail(path + "." + key, std::string(key) + " must be an integer");
    // Far past any bound the grammar writes (16 digits), and far from overflowing a +1.
    constexpr int64_t kFar = int64_t{1} << 62;
    if (v.is_number_unsigned()) *out = static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), kFar));
    else if (v.is_number_float()) *out = static_cast<int64_t>(std::clamp(v.get<double>(), -static_cast<double>(kFar), static_cast<double>(kFar)));
    else *out = std::clamp<int64_t>(v.get<int64_t>(), -kFar, kFar);
    return vt::Status();
  }

  std::string OtherKey(const std::vector<std::string>& words);
  vt::Status String(const Json& s, const std::string& path, std::string* expr);
  vt::Status Integer(const Json& s, const std::string& path, std::string* expr);
  vt::Status Object(const Json& s, const std::string& path, std::string* expr);
  vt::Status Array(const Json& s, const std::string& path, std::string* expr);

  const Json& root_;
  std::string where_;
  std::vector<std::pair<std::string, std::string>> rules_;
  std::map<std::string, std::string> refs_;
};

// A JSON string that spells none of `words` (the named keys), as llama.cpp's not-strings: a
// trie of the words' characters, left at any other character or ended where no word ends. Words
// with characters JSON escapes are not told apart (any key, as before).
std::string Converter::OtherKey(const std::vector<std::string>& words) {
  struct Node {
    std::map<uint32_t, size_t> kids;
    bool end = false;
  };
  std::vector<Node> trie(1);
  for (const std::string& w : words) {
    std::vector<uint32_t> cps;
    for (size_t i = 0; i < w.size();) {
      const auto c = static_cast<unsigned char>(w[i]);
      const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      uint32_t cp = len == 1 ? c : c & (0x7F >> len);
      for (size_t k = 1; k < len && i + k < w.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(w[i + k]) & 0x3F);
      if (cp < 0x20 || cp == '"' || cp == '\\') return "json-string";
      cps.push_back(cp);
      i += len;
    }
    size_t at = 0;
    for (uint32_t cp : cps) {
      auto [it, fresh] = trie[at].kids.emplace(cp, trie.size());
      if (fresh) trie.emplace_back();
      at = it->second;
    }
    trie[at].end = true;
  }
  std::vector<std::string> names(trie.size());
  for (size_t n = trie.size(); n-- > 0;) {  // children come after their parents
    std::string others = "[^\"\\\\\\x00-\\x1F";
    std::string alts;
    for (const auto& [cp, kid] : trie[n].kids) {
      char esc[16];
      std::snprintf(esc, sizeof esc, cp > 0xFFFF ? "\\U%08X" : "\\u%04X", cp);
      others += esc;
      std::string bytes;
      AppendUtf8(cp, &bytes);
      alts += Quote(bytes) + " " + names[kid] + " | ";
    }
    alts += others + "] json-char* | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4}) json-char*";
    if (!trie[n].end) alts += " | \"\"";
    names[n] = Rule("other-key", alts);
  }
  return "\"\\\"\" " + names[0] + " \"\\\"\"";
}

vt::Status Converter::String(const Json& s, const std::string& path, std::string* expr) {
  std::optional<int64_t> min, max;
  VT_RETURN_IF_ERROR(Count(s, "minLength", path, &min));
  VT_RETURN_IF_ERROR(Count(s, "maxLength", path, &max));
  if (s.contains("format")) {
    auto it = s["format"].is_string() ? kFormats.find(s["format"].get<std::string>()) : kFormats.end();
    if (it == kFormats.end()) return Fail(path + ".format", "the format " + s["format"].dump() + " is not supported");
    return *expr = "\"\\\"\" " + it->second + " \"\\\"\"", vt::Status();
  }
  if (s.contains("pattern")) {
    if (!s["pattern"].is_string()) return Fail(path + ".pattern", "pattern must be a string");
    if (min || max) return Fail(path, "pattern beside minLength or maxLength is not supported");
    const std::string re = s["pattern"].get<std::string>();
    auto body = vt::RegexToGbnf(re, /*json_string=*/true);
    if (!body.ok()) return Fail(path + ".pattern", body.status().message());
    // A JSON Schema pattern matches anywhere in the string unless anchored.
    const bool start = !re.empty() && re.front() == '^', end = re.size() > 1 && re.back() == '$' && re[re.size() - 2] != '\\';
    *expr = "\"\\\"\" " + std::string(start ? "" : "json-char* ") + Rule("pattern", body.value()) + (end ? "" : " json-char*") + " \"\\\"\"";
    return vt::Status();
  }
  if (!min && !max) return *expr = "json-string", vt::Status();
  if (min.value_or(0) < 0 || (max && *max < min.value_or(0))) return Fail(path, "minLength and maxLength must make a range of lengths >= 0");
  if (min.value_or(0) > kMaxCount || max.value_or(0) > kMaxCount) return Fail(path, "minLength or maxLength over " + std::to_string(kMaxCount) + " is not supported");
  *expr = "\"\\\"\" json-char" + Times(min.value_or(0), max.value_or(-1)) + " \"\\\"\"";
  return vt::Status();
}

vt::Status Converter::Integer(const Json& s, const std::string& path, std::string* expr) {
  std::optional<int64_t> lo, hi, xlo, xhi;
  for (auto [key, out] : {std::pair{"minimum", &lo}, {"maximum", &hi}, {"exclusiveMinimum", &xlo}, {"exclusiveMaximum", &xhi}}) {
    if (s.contains(key) && s[key].is_number() && !IsWhole(s[key])) {
      return Fail(path + "." + key, std::string(key) + " that is not a whole number is not supported");
    }
    VT_RETURN_IF_ERROR(Count(s, key, path, out));
  }
  if (xlo) lo = std::max(lo.value_or(*xlo + 1), *xlo + 1);
  if (xhi) hi = std::min(hi.value_or(*xhi - 1), *xhi - 1);
  if (!lo && !hi) return *expr = "json-integer", vt::Status();
  if (lo.value_or(0) > kMaxInt || hi.value_or(0) < -kMaxInt) return Fail(path, "bounds past 16 digits: the grammar writes integers of 16 digits at most");
  const int64_t a = std::max(lo.value_or(-kMaxInt), -kMaxInt), b = std::min(hi.value_or(kMaxInt), kMaxInt);
  if (a > b) return Fail(path, "no integer is in [" + std::to_string(a) + ", " + std::to_string(b) + "]");
  *expr = Rule("int", IntegerRangeGbnf(a, b));
  return vt::Status();
}

// Properties in the schema's order, each a `"name": value` member; first_i (no comma yet)
// and the commas of the ones after it. An optional member may be left out; other keys come
// after the named ones when additionalProperties allows them.
vt::Status Converter::Object(const Json& s, const std::string& path, std::string* expr) {
  static const Json kNone = Json::object();
  const Json& props = s.contains("properties") ? s["properties"] : kNone;
  if (!props.is_object()) return Fail(path + ".properties", "properties must be an object");
  std::set<std::string> required;
  if (s.contains("required")) {
    if (!s["required"].is_array()) return Fail(path + ".required", "required must be an array of names");
    for (const Json& r : s["required"]) {
      if (!r.is_string() || !props.contains(r.get<std::string>())) return Fail(path + ".required", "required names " + r.dump() + ", which is not in properties");
      required.insert(r.get<std::string>());
    }
  }
  std::string extra;  // a member of another key, when allowed
  if (s.contains("additionalProperties") && !(s["additionalProperties"].is_boolean() && !s["additionalProperties"].get<bool>())) {
    std::string value;
    VT_RETURN_IF_ERROR(Visit(s["additionalProperties"], path + ".additionalProperties", &value));
    std::vector<std::string> names;
    for (const auto& [name, schema] : props.items()) names.push_back(name);
    extra = Rule("extra", OtherKey(names) + " space \":\" space " + value + " space");
  }
  std::vector<std::string> members;
  std::vector<bool> needed;
  for (const auto& [name, schema] : props.items()) {
    std::string value;
    VT_RETURN_IF_ERROR(Visit(schema, path + ".properties." + name, &value));
    members.push_back(Rule("kv", Quote(Json(name).dump()) + " space \":\" space " + value + " space"));
    needed.push_back(required.count(name) > 0);
  }
  const size_t n = members.size();
  // The commas and members from i on, each a rule over the next: the text stays linear in the
  // members (spelled out, a schema of 30,000 properties made gigabytes).
  std::vector<std::string> rest(n + 1);
  rest[n] = Rule("rest", extra.empty() ? "\"\"" : "(\",\" space " + extra + ")*");
  for (size_t i = n; i-- > 0;) rest[i] = Rule("rest", (needed[i] ? "\",\" space " + members[i] : "(\",\" space " + members[i] + ")?") + " " + rest[i + 1]);
  std::string first = extra.empty() ? "\"\"" : "(" + extra + " " + rest[n] + ")?";
  for (size_t i = n; i-- > 0;) {
    const std::string with = members[i] + " " + rest[i + 1];
    first = Rule("first", needed[i] ? with : with + " | " + first);
  }
  *expr = "\"{\" space " + first + " \"}\"";
  return vt::Status();
}

vt::Status Converter::Array(const Json& s, const std::string& path, std::string* expr) {
  std::optional<int64_t> min, max;
  VT_RETURN_IF_ERROR(Count(s, "minItems", path, &min));
  VT_RETURN_IF_ERROR(Count(s, "maxItems", path, &max));
  if (s.contains("uniqueItems") && !(s["uniqueItems"].is_boolean() && !s["uniqueItems"].get<bool>())) {
    return Fail(path + ".uniqueItems", "uniqueItems: true is not supported");
  }
  std::vector<std::string> tuple;
  if (s.contains("prefixItems")) {
    if (!s["prefixItems"].is_array()) return Fail(path + ".prefixItems", "prefixItems must be an array of schemas");
    for (size_t i = 0; i < s["prefixItems"].size(); ++i) {
      std::string e;
      VT_RETURN_IF_ERROR(Visit(s["prefixItems"][i], path + ".prefixItems[" + std::to_string(i) + "]", &e));
      tuple.push_back(e);
    }
  }
  std::string item;  // the items after the tuple; empty: none allowed
  if (!s.contains("items") || !(s["items"].is_boolean() && !s["items"].get<bool>())) {
    item = "json-value";
    if (s.contains("items")) VT_RETURN_IF_ERROR(Visit(s["items"], path + ".items", &item));
  }
  const auto k = static_cast<int64_t>(tuple.size());
  const int64_t lo = min.value_or(0), hi = max ? *max : (item.empty() ? k : -1);
  if (lo < 0 || (hi >= 0 && hi < lo) || (item.empty() && lo > k)) return Fail(path, "minItems and maxItems allow no array");
  // After position i: position i's element (with its comma) and the rest, optional past minItems.
  const int64_t after = std::max<int64_t>(k, 1);  // the first position the tail holds
  if (lo - after > kMaxCount || hi - after > kMaxCount) return Fail(path, "minItems or maxItems over " + std::to_string(kMaxCount) + " is not supported");
  std::string tail = item.empty() || (hi >= 0 && hi <= after) ? "" : "(\",\" space " + item + " space)" + Times(std::max<int64_t>(0, lo - after), hi < 0 ? -1 : hi - after);
  auto at = [&](int64_t i) { return i < k ? tuple[static_cast<size_t>(i)] : item; };
  std::string rest = tail;
  for (int64_t i = std::min(k, hi < 0 ? k : hi) - 1; i >= 1; --i) {
    const std::string one = "\",\" space " + at(i) + " space " + rest;
    rest = i >= lo ? "(" + one + ")?" : one;
  }
  std::string body;
  if (hi != 0) {
    body = at(0) + " space " + (k == 0 ? tail : rest);
    if (lo == 0) body = "(" + body + ")?";
  }
  *expr = "\"[\" space " + (body.empty() ? "" : Rule("items", body) + " ") + "\"]\"";
  return vt::Status();
}

}  // namespace

vt::StatusOr<std::string> JsonSchemaToGbnf(const nlohmann::ordered_json& schema, const std::string& where) {
  return Converter(schema, where).Run();
}

std::string AnyJsonGbnf(bool object_only) {
  return std::string(kJsonRules) + "root ::= " + (object_only ? "json-object" : "json-value") + "\n";
}

}  // namespace vttools
