// Interp::Filter: the filters chat templates call, with Jinja's arguments and defaults.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "interpreter.h"
#include "strings.h"

namespace vt::jinja {
namespace {

struct FilterCall {
  Interp& in;
  const Value& v;
  const std::vector<Value>& args;
  const Kwargs& kwargs;
  const Node& at;
  // Argument `i` by position, else by `name`, else undefined.
  Value Arg(size_t i, const char* name) const {
    for (const auto& [k, value] : kwargs) {
      if (k == name) return value;
    }
    return i < args.size() ? args[i] : Value();
  }
  Status Error(const std::string& what) const { return TemplateError(at.line, at.col, what); }
};

using FilterFn = StatusOr<Value> (*)(const FilterCall&);

Array Items(const Value& v) {
  if (v.is_array()) return v.array();
  Array out;
  if (v.is_object()) {
    for (const auto& kv : v.object()) out.push_back(Value::String(kv.first));
  }
  if (v.is_string()) {
    for (std::string& c : CodePoints(v.AsString())) out.push_back(Value::String(std::move(c)));
  }
  return out;
}

// `attribute` may be dotted ("function.name"), as Jinja's make_attrgetter allows.
Value Attribute(const Value& item, const std::string& path) {
  Value cur = item;
  for (size_t from = 0; from <= path.size();) {
    size_t dot = path.find('.', from);
    std::string part = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
    cur = cur.is_array() && !part.empty() && std::isdigit(static_cast<unsigned char>(part[0]))
              ? (std::strtoul(part.c_str(), nullptr, 10) < cur.array().size() ? cur.array()[std::strtoul(part.c_str(), nullptr, 10)] : Value())
              : cur.Get(part);
    if (dot == std::string::npos) break;
    from = dot + 1;
  }
  return cur;
}

StatusOr<Value> Select(const FilterCall& c, bool by_attribute, bool keep) {
  Array out;
  size_t test_at = by_attribute ? 1 : 0;
  std::string test = c.args.size() > test_at ? c.args[test_at].Str() : "";
  std::vector<Value> test_args(c.args.begin() + static_cast<long>(std::min(c.args.size(), test_at + 1)), c.args.end());
  for (const Value& item : Items(c.v)) {
    Value subject = by_attribute ? Attribute(item, c.Arg(0, "attribute").Str()) : item;
    bool pass = subject.Truthy();
    if (!test.empty()) {
      auto t = c.in.Test(test, subject, test_args, c.at);
      if (!t.ok()) return t.status();
      pass = t.value();
    }
    if (pass == keep) out.push_back(item);
  }
  return Value::MakeArray(std::move(out));
}

StatusOr<Value> Map(const FilterCall& c) {
  Array out;
  Value attribute = c.Arg(99, "attribute");
  for (const Value& item : Items(c.v)) {
    if (!attribute.is_undefined()) {
      Value got = Attribute(item, attribute.Str());
      out.push_back(got.is_undefined() ? c.Arg(99, "default") : got);
      continue;
    }
    if (c.args.empty()) return c.Error("map needs a filter name or attribute=");
    std::vector<Value> rest(c.args.begin() + 1, c.args.end());
    auto mapped = c.in.Filter(c.args[0].Str(), item, rest, {}, c.at);
    if (!mapped.ok()) return mapped;
    out.push_back(mapped.value());
  }
  return Value::MakeArray(std::move(out));
}

StatusOr<Value> Sort(const FilterCall& c) {
  Array items = Items(c.v);
  bool reverse = c.Arg(0, "reverse").Truthy();
  std::string attribute = c.Arg(2, "attribute").is_undefined() ? "" : c.Arg(2, "attribute").Str();
  auto key = [&](const Value& v) { return attribute.empty() ? v : Attribute(v, attribute); };
  std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
    Value x = key(a), y = key(b);
    bool less = x.is_string() && y.is_string() ? Lower(x.AsString()) < Lower(y.AsString()) : x.AsFloat() < y.AsFloat();
    return reverse ? (x.is_string() && y.is_string() ? Lower(y.AsString()) < Lower(x.AsString()) : y.AsFloat() < x.AsFloat()) : less;
  });
  return Value::MakeArray(std::move(items));
}

StatusOr<Value> Indent(const FilterCall& c) {
  Value width = c.Arg(0, "width");
  std::string pad = width.is_string() ? width.AsString() : std::string(static_cast<size_t>(width.is_undefined() ? 4 : width.AsInt()), ' ');
  bool first = c.Arg(1, "first").Truthy(), blank = c.Arg(2, "blank").Truthy();
  std::string s = c.v.Str(), out;
  size_t line = 0;
  for (size_t from = 0; from <= s.size(); ++line) {
    size_t nl = s.find('\n', from);
    std::string text = s.substr(from, nl == std::string::npos ? std::string::npos : nl - from);
    bool indent = (line > 0 || first) && (blank || !text.empty());
    out += (indent ? pad : "") + text;
    if (nl == std::string::npos) break;
    out += '\n';
    from = nl + 1;
  }
  return Value::String(out);
}

StatusOr<Value> ToInt(const FilterCall& c) {
  if (c.v.is_number() || c.v.kind() == Value::Kind::kBool) return Value::Int(c.v.AsInt());
  std::string s = c.v.Str();
  char* end = nullptr;
  long long i = std::strtoll(s.c_str(), &end, 10);
  Value fallback = c.Arg(0, "default");
  return Value::Int(!s.empty() && *end == '\0' ? i : fallback.is_undefined() ? 0 : fallback.AsInt());
}

StatusOr<Value> Default(const FilterCall& c) {
  bool use = c.v.is_undefined() || (c.Arg(1, "boolean").Truthy() && !c.v.Truthy());
  Value fallback = c.Arg(0, "default_value");
  return use ? (fallback.is_undefined() ? Value::String("") : fallback) : c.v;
}

StatusOr<Value> Join(const FilterCall& c) {
  std::string out, sep = c.Arg(0, "d").Str();
  Value attribute = c.Arg(1, "attribute");
  Array a = Items(c.v);
  for (size_t i = 0; i < a.size(); ++i) out += (i ? sep : "") + (attribute.is_undefined() ? a[i] : Attribute(a[i], attribute.Str())).Str();
  return Value::String(out);
}

StatusOr<Value> ItemPairs(const FilterCall& c) {
  Array out;
  Object o = c.v.is_object() ? c.v.object() : Object();
  if (c.at.text == "dictsort") {
    std::stable_sort(o.begin(), o.end(), [](const auto& a, const auto& b) { return Lower(a.first) < Lower(b.first); });
  }
  for (const auto& [k, v] : o) out.push_back(Value::MakeArray({Value::String(k), v}));
  return Value::MakeArray(std::move(out));
}

StatusOr<Value> Unique(const FilterCall& c) {
  Array out;
  for (const Value& v : Items(c.v)) {
    if (std::none_of(out.begin(), out.end(), [&](const Value& o) { return o.Equals(v); })) out.push_back(v);
  }
  return Value::MakeArray(std::move(out));
}

StatusOr<Value> Reverse(const FilterCall& c) {
  Array a = Items(c.v);
  std::reverse(a.begin(), a.end());
  if (!c.v.is_string()) return Value::MakeArray(std::move(a));
  std::string s;
  for (const Value& ch : a) s += ch.AsString();
  return Value::String(s);
}

StatusOr<Value> Round(const FilterCall& c) {
  Value precision = c.Arg(0, "precision");
  double scale = std::pow(10.0, static_cast<double>(precision.is_undefined() ? 0 : precision.AsInt()));
  return Value::Float(std::round(c.v.AsFloat() * scale) / scale);
}

StatusOr<Value> Length(const FilterCall& c) {
  return Value::Int(static_cast<int64_t>(c.v.is_object() ? c.v.object().size() : Items(c.v).size()));
}

StatusOr<Value> ReplaceFilter(const FilterCall& c) {
  Value count = c.Arg(2, "count");
  return Value::String(Replace(c.v.Str(), c.Arg(0, "old").Str(), c.Arg(1, "new").Str(), count.is_number() ? count.AsInt() : -1));
}

StatusOr<Value> ToJson(const FilterCall& c) {
  Value indent = c.Arg(0, "indent");
  return Value::String(c.v.Json(indent.is_number() ? static_cast<int>(indent.AsInt()) : -1));
}

StatusOr<Value> Abs(const FilterCall& c) {
  return c.v.kind() == Value::Kind::kInt ? Value::Int(std::llabs(c.v.AsInt())) : Value::Float(std::fabs(c.v.AsFloat()));
}

StatusOr<Value> ToFloat(const FilterCall& c) {
  return Value::Float(c.v.is_string() ? std::strtod(c.v.AsString().c_str(), nullptr) : c.v.AsFloat());
}

template <std::string (*F)(std::string)>
StatusOr<Value> Case(const FilterCall& c) {
  return Value::String(F(c.v.Str()));
}

std::string TitleOf(std::string s) { return Title(s); }
std::string CapitalizeOf(std::string s) { return Capitalize(s); }

const std::map<std::string, FilterFn>& Filters() {
  static const std::map<std::string, FilterFn> filters = {
      {"trim", [](const FilterCall& c) -> StatusOr<Value> { return Value::String(Strip(c.v.Str(), c.Arg(0, "chars"), true, true)); }},
      {"length", Length},
      {"default", Default},
      {"upper", Case<Upper>},
      {"lower", Case<Lower>},
      {"title", Case<TitleOf>},
      {"capitalize", Case<CapitalizeOf>},
      {"first", [](const FilterCall& c) -> StatusOr<Value> { Array a = Items(c.v); return a.empty() ? Value() : a.front(); }},
      {"last", [](const FilterCall& c) -> StatusOr<Value> { Array a = Items(c.v); return a.empty() ? Value() : a.back(); }},
      {"join", Join},
      {"replace", ReplaceFilter},
      {"list", [](const FilterCall& c) -> StatusOr<Value> { return Value::MakeArray(Items(c.v)); }},
      {"items", ItemPairs},
      {"dictsort", ItemPairs},
      {"selectattr", [](const FilterCall& c) { return Select(c, true, true); }},
      {"rejectattr", [](const FilterCall& c) { return Select(c, true, false); }},
      {"select", [](const FilterCall& c) { return Select(c, false, true); }},
      {"reject", [](const FilterCall& c) { return Select(c, false, false); }},
      {"map", Map},
      {"safe", [](const FilterCall& c) -> StatusOr<Value> { return c.v; }},
      {"string", [](const FilterCall& c) -> StatusOr<Value> { return Value::String(c.v.Str()); }},
      {"int", ToInt},
      {"float", ToFloat},
      {"abs", Abs},
      {"round", Round},
      {"unique", Unique},
      {"reverse", Reverse},
      {"sort", Sort},
      {"indent", Indent},
      {"tojson", ToJson},
  };
  return filters;
}

}  // namespace

StatusOr<Value> Interp::Filter(const std::string& name, const Value& v, const std::vector<Value>& args, const Kwargs& kwargs, const Node& at) {
  static const std::map<std::string, std::string> kAliases = {{"d", "default"}, {"count", "length"}};
  auto alias = kAliases.find(name);
  auto it = Filters().find(alias == kAliases.end() ? name : alias->second);
  if (it == Filters().end()) return TemplateError(at.line, at.col, "unknown filter '" + name + "'");
  return it->second(FilterCall{*this, v, args, kwargs, at});
}

}  // namespace vt::jinja
