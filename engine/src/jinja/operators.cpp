// Binary operators with Python's rules, and code-point helpers.
#include <cmath>

#include "interpreter.h"
#include "text/utf8.h"

namespace vt::jinja {

std::vector<std::string> CodePoints(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8Length(static_cast<unsigned char>(s[i]));
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

namespace {

Status Unsupported(const std::string& op, const Value& a, const Value& b, const Node& at) {
  return TemplateError(at.line, at.col, "unsupported operand types for " + op + ": '" + a.TypeName() + "' and '" + b.TypeName() + "'");
}

bool Numeric(const Value& v) { return v.is_number() || v.kind() == Value::Kind::kBool; }

StatusOr<Value> Numbers(const std::string& op, const Value& a, const Value& b, const Node& at) {
  bool ints = a.kind() != Value::Kind::kFloat && b.kind() != Value::Kind::kFloat;
  int64_t x = a.AsInt(), y = b.AsInt();
  double fx = a.AsFloat(), fy = b.AsFloat();
  if ((op == "/" || op == "//" || op == "%") && fy == 0) return TemplateError(at.line, at.col, "division by zero");
  if (op == "+") return ints ? Value::Int(x + y) : Value::Float(fx + fy);
  if (op == "-") return ints ? Value::Int(x - y) : Value::Float(fx - fy);
  if (op == "*") return ints ? Value::Int(x * y) : Value::Float(fx * fy);
  if (op == "/") return Value::Float(fx / fy);
  if (op == "//") {
    if (!ints) return Value::Float(std::floor(fx / fy));
    int64_t q = x / y;
    return Value::Int((x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q);
  }
  if (op == "%") {
    if (!ints) return Value::Float(fx - fy * std::floor(fx / fy));
    int64_t r = x % y;
    return Value::Int(r != 0 && ((r < 0) != (y < 0)) ? r + y : r);
  }
  if (op == "**") {
    if (ints && y >= 0) {
      int64_t p = 1;
      for (int64_t k = 0; k < y; ++k) p *= x;
      return Value::Int(p);
    }
    return Value::Float(std::pow(fx, fy));
  }
  return Unsupported(op, a, b, at);
}

StatusOr<Value> Ordering(const std::string& op, const Value& a, const Value& b, const Node& at) {
  int cmp = 0;
  if (Numeric(a) && Numeric(b)) {
    cmp = a.AsFloat() < b.AsFloat() ? -1 : a.AsFloat() > b.AsFloat() ? 1 : 0;
  } else if (a.is_string() && b.is_string()) {
    cmp = a.AsString().compare(b.AsString());  // UTF-8 byte order is code point order
  } else {
    return TemplateError(at.line, at.col, "'" + op + "' not supported between '" + a.TypeName() + "' and '" + b.TypeName() + "'");
  }
  bool r = op == "<" ? cmp < 0 : op == ">" ? cmp > 0 : op == "<=" ? cmp <= 0 : cmp >= 0;
  return Value::Bool(r);
}

StatusOr<Value> Contains(const Value& needle, const Value& hay, const Node& at) {
  if (hay.is_string() && needle.is_string()) return Value::Bool(hay.AsString().find(needle.AsString()) != std::string::npos);
  if (hay.is_array()) {
    for (const Value& v : hay.array()) {
      if (v.Equals(needle)) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  if (hay.is_object()) {
    for (const auto& kv : hay.object()) {
      if (kv.first == needle.Str()) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  if (hay.is_undefined()) return Value::Bool(false);
  return TemplateError(at.line, at.col, "argument of type '" + hay.TypeName() + "' is not iterable");
}

}  // namespace

StatusOr<Value> Arithmetic(const std::string& op, const Value& a, const Value& b, const Node& at) {
  if (op == "==") return Value::Bool(a.Equals(b));
  if (op == "!=") return Value::Bool(!a.Equals(b));
  if (op == "<" || op == ">" || op == "<=" || op == ">=") return Ordering(op, a, b, at);
  if (op == "in" || op == "not in") {
    auto r = Contains(a, b, at);
    if (!r.ok() || op == "in") return r;
    return Value::Bool(!r.value().AsBool());
  }
  if (op == "~") return Value::String(a.Str() + b.Str());
  if (op == "+" && a.is_array() && b.is_array()) {
    if (a.array().size() + b.array().size() > kMaxTextBytes) return TemplateError(at.line, at.col, "a list past " + std::to_string(kMaxTextBytes) + " items");
    Array items = a.array();
    items.insert(items.end(), b.array().begin(), b.array().end());
    return Value::MakeArray(std::move(items));
  }
  // A string with anything concatenates their str(), as @huggingface/jinja does.
  if (op == "+" && (a.is_string() || b.is_string())) {
    std::string joined = a.Str() + b.Str();
    if (joined.size() > kMaxTextBytes) return TemplateError(at.line, at.col, "a string past " + std::to_string(kMaxTextBytes) + " bytes");
    return Value::String(std::move(joined));
  }
  if (op == "*" && (a.is_string() || b.is_string()) && (a.kind() == Value::Kind::kInt || b.kind() == Value::Kind::kInt)) {
    const Value& s = a.is_string() ? a : b;
    const int64_t times = (a.is_string() ? b : a).AsInt();
    if (times > 0 && s.AsString().size() > kMaxTextBytes / static_cast<size_t>(times)) {
      return TemplateError(at.line, at.col, "a string past " + std::to_string(kMaxTextBytes) + " bytes");
    }
    std::string out;
    for (int64_t k = 0; k < times; ++k) out += s.AsString();
    return Value::String(out);
  }
  if (Numeric(a) && Numeric(b)) return Numbers(op, a, b, at);
  return Unsupported(op, a, b, at);
}

}  // namespace vt::jinja
