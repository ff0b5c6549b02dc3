#include <cmath>
#include <cstdio>

#include "vt/jinja.h"

namespace vt::jinja {

Value Value::None() {
  Value v;
  v.kind_ = Kind::kNone;
  return v;
}

Value Value::Bool(bool b) {
  Value v;
  v.kind_ = Kind::kBool;
  v.bool_ = b;
  return v;
}

Value Value::Int(int64_t i) {
  Value v;
  v.kind_ = Kind::kInt;
  v.int_ = i;
  return v;
}

Value Value::Float(double f) {
  Value v;
  v.kind_ = Kind::kFloat;
  v.float_ = f;
  return v;
}

Value Value::String(std::string s) {
  Value v;
  v.kind_ = Kind::kString;
  v.string_ = std::move(s);
  return v;
}

Value Value::MakeArray(Array items) {
  Value v;
  v.kind_ = Kind::kArray;
  v.array_ = std::make_shared<Array>(std::move(items));
  return v;
}

Value Value::MakeObject(Object items) {
  Value v;
  v.kind_ = Kind::kObject;
  v.object_ = std::make_shared<Object>(std::move(items));
  return v;
}

Value Value::MakeFunction(Function f) {
  Value v;
  v.kind_ = Kind::kFunction;
  v.function_ = std::make_shared<Function>(std::move(f));
  return v;
}

bool Value::Truthy() const {
  switch (kind_) {
    case Kind::kBool: return bool_;
    case Kind::kInt: return int_ != 0;
    case Kind::kFloat: return float_ != 0;
    case Kind::kString: return !string_.empty();
    case Kind::kArray: return !array_->empty();
    case Kind::kObject: return !object_->empty();
    case Kind::kFunction: return true;
    default: return false;
  }
}

Value Value::Get(const std::string& key) const {
  if (kind_ != Kind::kObject) return Value();
  for (const auto& [k, v] : *object_) {
    if (k == key) return v;
  }
  return Value();
}

void Value::Set(const std::string& key, Value v) const {
  if (kind_ != Kind::kObject) return;
  for (auto& [k, old] : *object_) {
    if (k == key) {
      old = std::move(v);
      return;
    }
  }
  object_->emplace_back(key, std::move(v));
}

namespace {

// Python's float repr: the shortest digits that read back the same, always with a '.' or an
// exponent ("1.0", "0.1", "1e-05").
std::string FloatRepr(double f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, f);
    if (std::strtod(buf, nullptr) == f) break;
  }
  std::string s = buf;
  size_t e = s.find('e');
  if (e != std::string::npos) {  // C writes e-05 as Python does, but e+20 as Python's e+20 too
    return s;
  }
  if (s.find('.') == std::string::npos && s.find("inf") == std::string::npos) s += ".0";
  return s;
}

// JSON string escaping as json.dumps(ensure_ascii=False): quotes, backslashes and control
// characters only.
std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\u%04x", c);
          out += hex;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string PyQuote(const std::string& s) {
  bool single = s.find('\'') == std::string::npos || s.find('"') != std::string::npos;
  char q = single ? '\'' : '"';
  std::string out(1, q);
  for (char c : s) {
    if (c == q || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + q;
}

}  // namespace

std::string Value::Str() const {
  switch (kind_) {
    case Kind::kUndefined: return "";
    case Kind::kString: return string_;
    default: return Repr();
  }
}

std::string Value::Repr() const {
  switch (kind_) {
    case Kind::kUndefined: return "";
    case Kind::kNone: return "None";
    case Kind::kBool: return bool_ ? "True" : "False";
    case Kind::kInt: return std::to_string(int_);
    case Kind::kFloat: return FloatRepr(float_);
    case Kind::kString: return PyQuote(string_);
    case Kind::kFunction: return "<function>";
    case Kind::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < array_->size(); ++i) out += (i ? ", " : "") + (*array_)[i].Repr();
      return out + "]";
    }
    case Kind::kObject: {
      std::string out = "{";
      for (size_t i = 0; i < object_->size(); ++i) out += (i ? ", " : "") + PyQuote((*object_)[i].first) + ": " + (*object_)[i].second.Repr();
      return out + "}";
    }
  }
  return "";
}

std::string Value::Json(int indent, int depth) const {
  std::string pad = indent >= 0 ? "\n" + std::string(static_cast<size_t>(indent * (depth + 1)), ' ') : "";
  std::string end = indent >= 0 ? "\n" + std::string(static_cast<size_t>(indent * depth), ' ') : "";
  std::string sep = indent >= 0 ? "," : ", ";
  switch (kind_) {
    case Kind::kUndefined:
    case Kind::kNone: return "null";
    case Kind::kBool: return bool_ ? "true" : "false";
    case Kind::kInt: return std::to_string(int_);
    case Kind::kFloat: return FloatRepr(float_);
    case Kind::kString: return JsonString(string_);
    case Kind::kFunction: return "null";
    case Kind::kArray: {
      if (array_->empty()) return "[]";
      std::string out = "[";
      for (size_t i = 0; i < array_->size(); ++i) out += (i ? sep : "") + pad + (*array_)[i].Json(indent, depth + 1);
      return out + end + "]";
    }
    case Kind::kObject: {
      if (object_->empty()) return "{}";
      std::string out = "{";
      for (size_t i = 0; i < object_->size(); ++i) {
        out += (i ? sep : "") + pad + JsonString((*object_)[i].first) + ": " + (*object_)[i].second.Json(indent, depth + 1);
      }
      return out + end + "}";
    }
  }
  return "null";
}

bool Value::Equals(const Value& o) const {
  if (is_number() && o.is_number()) return AsFloat() == o.AsFloat();
  if ((kind_ == Kind::kBool && o.is_number()) || (is_number() && o.kind_ == Kind::kBool)) return AsFloat() == o.AsFloat();
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::kUndefined:
    case Kind::kNone: return true;
    case Kind::kBool: return bool_ == o.bool_;
    case Kind::kString: return string_ == o.string_;
    case Kind::kArray: {
      if (array_->size() != o.array_->size()) return false;
      for (size_t i = 0; i < array_->size(); ++i) {
        if (!(*array_)[i].Equals((*o.array_)[i])) return false;
      }
      return true;
    }
    case Kind::kObject: {
      if (object_->size() != o.object_->size()) return false;
      for (const auto& [k, v] : *object_) {
        if (!v.Equals(o.Get(k))) return false;
      }
      return true;
    }
    default: return function_ == o.function_;
  }
}

std::string Value::TypeName() const {
  static const char* const kNames[] = {"undefined", "NoneType", "bool", "int", "float", "str", "list", "dict", "function"};
  return kNames[static_cast<int>(kind_)];
}

}  // namespace vt::jinja
