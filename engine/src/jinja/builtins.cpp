// Interp::Test, Interp::Method and the globals (namespace, range, raise_exception, ...).
#include <ctime>
#include <map>

#include "interpreter.h"
#include "strings.h"

namespace vt::jinja {
namespace {

using Kind = Value::Kind;

bool Compare(const std::string& op, const Value& v, const std::vector<Value>& args, const Node& at, bool* out) {
  if (args.empty()) return false;
  auto r = Arithmetic(op, v, args[0], at);
  if (!r.ok()) return false;
  *out = r.value().AsBool();
  return true;
}

}  // namespace

StatusOr<bool> Interp::Test(const std::string& name, const Value& v, const std::vector<Value>& args, const Node& at) {
  static const std::map<std::string, bool (*)(const Value&)> kUnary = {
      {"defined", [](const Value& x) { return !x.is_undefined(); }},
      {"undefined", [](const Value& x) { return x.is_undefined(); }},
      {"none", [](const Value& x) { return x.is_none(); }},
      {"boolean", [](const Value& x) { return x.kind() == Kind::kBool; }},
      {"true", [](const Value& x) { return x.kind() == Kind::kBool && x.AsBool(); }},
      {"false", [](const Value& x) { return x.kind() == Kind::kBool && !x.AsBool(); }},
      {"integer", [](const Value& x) { return x.kind() == Kind::kInt; }},
      {"float", [](const Value& x) { return x.kind() == Kind::kFloat; }},
      {"number", [](const Value& x) { return x.is_number(); }},
      {"string", [](const Value& x) { return x.is_string(); }},
      {"mapping", [](const Value& x) { return x.is_object(); }},
      {"iterable", [](const Value& x) { return x.is_array() || x.is_object() || x.is_string(); }},
      {"sequence", [](const Value& x) { return x.is_array() || x.is_object() || x.is_string(); }},
      {"callable", [](const Value& x) { return x.kind() == Kind::kFunction; }},
      {"odd", [](const Value& x) { return x.kind() == Kind::kInt && x.AsInt() % 2 != 0; }},
      {"even", [](const Value& x) { return x.kind() == Kind::kInt && x.AsInt() % 2 == 0; }},
      {"lower", [](const Value& x) { return x.is_string() && Lower(x.AsString()) == x.AsString(); }},
      {"upper", [](const Value& x) { return x.is_string() && Upper(x.AsString()) == x.AsString(); }},
  };
  static const std::map<std::string, std::string> kBinary = {
      {"eq", "=="}, {"equalto", "=="}, {"==", "=="}, {"ne", "!="}, {"!=", "!="}, {"lt", "<"}, {"lessthan", "<"},
      {"gt", ">"}, {"greaterthan", ">"}, {"le", "<="}, {"ge", ">="}, {"in", "in"}, {"sameas", "=="}};
  auto unary = kUnary.find(name);
  if (unary != kUnary.end()) return unary->second(v);
  bool result = false;
  auto binary = kBinary.find(name);
  if (binary != kBinary.end()) {
    if (!Compare(binary->second, v, args, at, &result)) return TemplateError(at.line, at.col, "test '" + name + "' needs a comparable argument");
    return result;
  }
  if (name == "divisibleby" && !args.empty() && args[0].AsInt() != 0) return v.AsInt() % args[0].AsInt() == 0;
  return TemplateError(at.line, at.col, "unknown test '" + name + "'");
}

namespace {

Value Arg(const std::vector<Value>& args, const Kwargs& kwargs, size_t i, const char* name) {
  for (const auto& [k, v] : kwargs) {
    if (k == name) return v;
  }
  return i < args.size() ? args[i] : Value();
}

// str.startswith / endswith with a string or a tuple of strings.
bool Affix(const std::string& s, const Value& what, bool start) {
  auto one = [&](const std::string& a) {
    return a.size() <= s.size() && s.compare(start ? 0 : s.size() - a.size(), a.size(), a) == 0;
  };
  if (what.is_string()) return one(what.AsString());
  if (what.is_array()) {
    for (const Value& a : what.array()) {
      if (a.is_string() && one(a.AsString())) return true;
    }
  }
  return false;
}

// Python's str.format for positional "{}" / "{0}" fields (the only ones chat templates use).
std::string Format(const std::string& f, const std::vector<Value>& args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f.compare(i, 2, "{{") == 0 || f.compare(i, 2, "}}") == 0) {
      out += f[i++];
      continue;
    }
    size_t close = f[i] == '{' ? f.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += f[i];
      continue;
    }
    std::string field = f.substr(i + 1, close - i - 1);
    size_t k = field.empty() ? next++ : std::strtoul(field.c_str(), nullptr, 10);
    out += k < args.size() ? args[k].Str() : "";
    i = close;
  }
  return out;
}

StatusOr<Value> StringMethod(const std::string& s, const std::string& name, const std::vector<Value>& a, const Kwargs& kw, bool* found) {
  *found = true;
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    return Value::String(Strip(s, Arg(a, kw, 0, "chars"), name != "rstrip", name != "lstrip"));
  }
  if (name == "split") {
    Value max = Arg(a, kw, 1, "maxsplit");
    return Value::MakeArray(Split(s, Arg(a, kw, 0, "sep"), max.is_number() ? max.AsInt() : -1));
  }
  if (name == "startswith" || name == "endswith") return Value::Bool(Affix(s, Arg(a, kw, 0, "prefix"), name == "startswith"));
  if (name == "upper") return Value::String(Upper(s));
  if (name == "lower") return Value::String(Lower(s));
  if (name == "title") return Value::String(Title(s));
  if (name == "capitalize") return Value::String(Capitalize(s));
  if (name == "replace") {
    Value count = Arg(a, kw, 2, "count");
    return Value::String(Replace(s, Arg(a, kw, 0, "old").Str(), Arg(a, kw, 1, "new").Str(), count.is_number() ? count.AsInt() : -1));
  }
  if (name == "format") return Value::String(Format(s, a));
  if (name == "join") {
    std::string out;
    Value items = Arg(a, kw, 0, "iterable");
    for (size_t i = 0; items.is_array() && i < items.array().size(); ++i) out += (i ? s : "") + items.array()[i].Str();
    return Value::String(out);
  }
  *found = false;
  return Value();
}

StatusOr<Value> ObjectMethod(const Value& self, const std::string& name, const std::vector<Value>& a, const Kwargs& kw, bool* found) {
  *found = true;
  if (name == "items" || name == "keys" || name == "values") {
    Array out;
    for (const auto& [k, v] : self.object()) {
      out.push_back(name == "items" ? Value::MakeArray({Value::String(k), v}) : name == "keys" ? Value::String(k) : v);
    }
    return Value::MakeArray(std::move(out));
  }
  if (name == "get") {
    Value key = Arg(a, kw, 0, "key");
    for (const auto& [k, v] : self.object()) {
      if (k == key.Str()) return v;
    }
    Value fallback = Arg(a, kw, 1, "default");
    return fallback.is_undefined() ? Value::None() : fallback;
  }
  *found = false;
  return Value();
}

}  // namespace

StatusOr<Value> Interp::Method(const Value& self, const std::string& name, const std::vector<Value>& args, const Kwargs& kwargs,
                               const Node& at, bool* found) {
  (void)at;
  *found = false;
  if (self.is_string()) return StringMethod(self.AsString(), name, args, kwargs, found);
  if (self.is_object() && self.Get(name).kind() != Kind::kFunction) return ObjectMethod(self, name, args, kwargs, found);
  if (self.is_array() && name == "append" && !args.empty()) {
    *found = true;
    self.array().push_back(args[0]);
    return Value::None();
  }
  return Value();
}

void Interp::InstallGlobals() {
  auto& g = scopes_.front();
  g["namespace"] = Value::MakeFunction([](const std::vector<Value>& args, const Kwargs& kwargs) -> StatusOr<Value> {
    Value ns = Value::MakeObject();
    if (!args.empty() && args[0].is_object()) {
      for (const auto& [k, v] : args[0].object()) ns.Set(k, v);
    }
    for (const auto& [k, v] : kwargs) ns.Set(k, v);
    return ns;
  });
  g["dict"] = g["namespace"];
  g["range"] = Value::MakeFunction([](const std::vector<Value>& args, const Kwargs&) -> StatusOr<Value> {
    int64_t start = args.size() > 1 ? args[0].AsInt() : 0, stop = args.empty() ? 0 : args[args.size() > 1 ? 1 : 0].AsInt();
    int64_t step = args.size() > 2 ? args[2].AsInt() : 1;
    if (step == 0) return Status(StatusCode::kInvalidArgument, "range() arg 3 must not be zero");
    const int64_t count = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0) : (start > stop ? (start - stop - step - 1) / -step : 0);
    if (count > kMaxRangeItems) {
      return Status(StatusCode::kInvalidArgument, "range() of " + std::to_string(count) + " items: more than " + std::to_string(kMaxRangeItems));
    }
    Array out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) out.push_back(Value::Int(i));
    return Value::MakeArray(std::move(out));
  });
  g["raise_exception"] = Value::MakeFunction([](const std::vector<Value>& args, const Kwargs&) -> StatusOr<Value> {
    return Status(StatusCode::kInvalidArgument, "raise_exception: " + (args.empty() ? std::string() : args[0].Str()));
  });
  g["strftime_now"] = Value::MakeFunction([](const std::vector<Value>& args, const Kwargs&) -> StatusOr<Value> {
    std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buf[256] = {0};
    std::strftime(buf, sizeof buf, args.empty() ? "%Y-%m-%d" : args[0].Str().c_str(), &local);
    return Value::String(buf);
  });
}

}  // namespace vt::jinja
