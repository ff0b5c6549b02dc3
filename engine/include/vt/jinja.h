// A Jinja subset for chat templates: the values a template sees and makes, and templates that
// parse once and render many times. Errors are Statuses naming the template line and column.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vt/status.h"

namespace vt::jinja {

class Value;
using Array = std::vector<Value>;
using Object = std::vector<std::pair<std::string, Value>>;  // insertion order, as Python dicts
using Kwargs = std::vector<std::pair<std::string, Value>>;
using Function = std::function<StatusOr<Value>(const std::vector<Value>& args, const Kwargs& kwargs)>;

// Lists, dicts and namespaces are shared by reference, as in Python: `set ns.x = 1` inside a
// loop changes the namespace outside it.
class Value {
 public:
  enum class Kind { kUndefined, kNone, kBool, kInt, kFloat, kString, kArray, kObject, kFunction };

  Value() = default;  // undefined
  static Value None();
  static Value Bool(bool b);
  static Value Int(int64_t i);
  static Value Float(double f);
  static Value String(std::string s);
  static Value MakeArray(Array items = {});
  static Value MakeObject(Object items = {});
  static Value MakeFunction(Function f);

  Kind kind() const { return kind_; }
  bool is_undefined() const { return kind_ == Kind::kUndefined; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_number() const { return kind_ == Kind::kInt || kind_ == Kind::kFloat; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  bool AsBool() const { return bool_; }
  int64_t AsInt() const { return kind_ == Kind::kFloat ? static_cast<int64_t>(float_) : kind_ == Kind::kBool ? bool_ : int_; }
  double AsFloat() const { return kind_ == Kind::kInt ? static_cast<double>(int_) : kind_ == Kind::kBool ? bool_ : float_; }
  const std::string& AsString() const { return string_; }
  Array& array() const { return *array_; }
  Object& object() const { return *object_; }
  const Function& function() const { return *function_; }

  bool Truthy() const;
  // The object's value for `key`, or undefined.
  Value Get(const std::string& key) const;
  void Set(const std::string& key, Value v) const;  // objects only: insert or replace
  // Python's str() and repr(), and JSON as transformers' tojson writes it.
  std::string Str() const;
  std::string Repr() const;
  std::string Json(int indent = -1, int depth = 0) const;
  bool Equals(const Value& other) const;
  std::string TypeName() const;

 private:
  Kind kind_ = Kind::kUndefined;
  bool bool_ = false;
  int64_t int_ = 0;
  double float_ = 0;
  std::string string_;
  std::shared_ptr<Array> array_;
  std::shared_ptr<Object> object_;
  std::shared_ptr<Function> function_;
};

struct Node;

class Template {
 public:
  static StatusOr<Template> Parse(const std::string& source);
  // `context` is an object of the template's variables (or undefined for none).
  StatusOr<std::string> Render(const Value& context) const;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace vt::jinja
