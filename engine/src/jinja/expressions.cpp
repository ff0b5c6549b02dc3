// Interp::Eval: every expression node.
#include <algorithm>
#include <cctype>

#include "interpreter.h"

namespace vt::jinja {

StatusOr<Value> Interp::Eval(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kLiteral: return n.value;
    case Node::Kind::kName: return Lookup(n.text);
    case Node::Kind::kAttr: {
      auto object = Eval(*n.kids[0]);
      if (!object.ok()) return object;
      if (object.value().is_array() && !n.text.empty() && std::isdigit(static_cast<unsigned char>(n.text[0]))) {
        size_t i = std::stoul(n.text.substr(0, 9));
        return i < object.value().array().size() ? object.value().array()[i] : Value();
      }
      return object.value().Get(n.text);
    }
    case Node::Kind::kIndex: return EvalIndex(n);
    case Node::Kind::kSlice: return EvalSlice(n);
    case Node::Kind::kCall: return EvalCall(n);
    case Node::Kind::kBinary: return EvalBinary(n);
    case Node::Kind::kUnary: {
      auto v = Eval(*n.kids[0]);
      if (!v.ok() || n.text == "+") return v;
      if (n.text == "not") return Value::Bool(!v.value().Truthy());
      if (v.value().kind() == Value::Kind::kInt) return Value::Int(-v.value().AsInt());
      if (v.value().kind() == Value::Kind::kFloat) return Value::Float(-v.value().AsFloat());
      return TemplateError(n.line, n.col, "bad operand type for unary -: '" + v.value().TypeName() + "'");
    }
    case Node::Kind::kTernary: {
      auto cond = Eval(*n.kids[1]);
      if (!cond.ok()) return cond;
      if (cond.value().Truthy()) return Eval(*n.kids[0]);
      return n.kids[2] ? Eval(*n.kids[2]) : StatusOr<Value>(Value());
    }
    case Node::Kind::kFilter:
    case Node::Kind::kTest: return EvalFilterOrTest(n);
    case Node::Kind::kList:
    case Node::Kind::kTuple:
    case Node::Kind::kDict: return EvalCollection(n);
    default: return TemplateError(n.line, n.col, "not an expression");
  }
}

StatusOr<Value> Interp::EvalFilterOrTest(const Node& n) {
  auto operand = Eval(*n.kids[0]);
  if (!operand.ok()) return operand;
  std::vector<Value> args;
  Kwargs kwargs;
  VT_RETURN_IF_ERROR(Args(n, 1, &args, &kwargs));
  if (n.kind == Node::Kind::kFilter) return Filter(n.text, operand.value(), args, kwargs, n);
  auto passed = Test(n.text, operand.value(), args, n);
  if (!passed.ok()) return passed.status();
  return Value::Bool(passed.value() != n.negated);
}

StatusOr<Value> Interp::EvalCollection(const Node& n) {
  if (n.kind == Node::Kind::kDict) {
    Value dict = Value::MakeObject();
    for (size_t i = 0; i + 1 < n.kids.size(); i += 2) {
      auto k = Eval(*n.kids[i]);
      auto v = k.ok() ? Eval(*n.kids[i + 1]) : k;
      if (!v.ok()) return v;
      dict.Set(k.value().Str(), v.value());
    }
    return dict;
  }
  Array items;
  for (const NodePtr& kid : n.kids) {
    auto v = Eval(*kid);
    if (!v.ok()) return v;
    items.push_back(v.value());
  }
  return Value::MakeArray(std::move(items));
}

Status Interp::Args(const Node& n, size_t from, std::vector<Value>* args, Kwargs* kwargs) {
  for (size_t i = from; i < n.kids.size(); ++i) {
    const Node& arg = *n.kids[i];
    auto v = Eval(arg.kind == Node::Kind::kKwarg ? *arg.kids[0] : arg);
    if (!v.ok()) return v.status();
    if (arg.kind == Node::Kind::kKwarg) {
      kwargs->emplace_back(arg.text, v.value());
    } else {
      args->push_back(v.value());
    }
  }
  return Status();
}

StatusOr<Value> Interp::EvalCall(const Node& n) {
  std::vector<Value> args;
  Kwargs kwargs;
  VT_RETURN_IF_ERROR(Args(n, 1, &args, &kwargs));
  const Node& callee = *n.kids[0];
  if (callee.kind == Node::Kind::kAttr) {  // obj.method(...): the method of the value's type
    auto self = Eval(*callee.kids[0]);
    if (!self.ok()) return self;
    bool found = false;
    auto result = Method(self.value(), callee.text, args, kwargs, n, &found);
    if (found) return result;
  }
  auto fn = Eval(callee);
  if (!fn.ok()) return fn;
  return Call(fn.value(), args, kwargs, n);
}

StatusOr<Value> Interp::Call(const Value& fn, const std::vector<Value>& args, const Kwargs& kwargs, const Node& at) {
  if (fn.kind() != Value::Kind::kFunction) {
    return TemplateError(at.line, at.col, "'" + fn.TypeName() + "' object is not callable");
  }
  auto result = fn.function()(args, kwargs);
  if (!result.ok() && result.status().message().rfind("template:", 0) != 0) {
    return TemplateError(at.line, at.col, result.status().message());
  }
  return result;
}

StatusOr<Value> Interp::EvalIndex(const Node& n) {
  auto object = Eval(*n.kids[0]);
  auto index = object.ok() ? Eval(*n.kids[1]) : object;
  if (!index.ok()) return index;
  const Value& o = object.value();
  const Value& i = index.value();
  if (o.is_object()) return o.Get(i.Str());
  if ((o.is_array() || o.is_string()) && i.kind() == Value::Kind::kInt) {
    std::vector<std::string> chars = o.is_string() ? CodePoints(o.AsString()) : std::vector<std::string>();
    int64_t size = static_cast<int64_t>(o.is_array() ? o.array().size() : chars.size());
    int64_t k = i.AsInt() < 0 ? i.AsInt() + size : i.AsInt();
    if (k < 0 || k >= size) return Value();  // Jinja: an undefined, not an error
    return o.is_array() ? o.array()[static_cast<size_t>(k)] : Value::String(chars[static_cast<size_t>(k)]);
  }
  if (o.is_undefined() || o.is_none()) return Value();
  return TemplateError(n.line, n.col, "cannot index " + o.TypeName() + " with " + i.TypeName());
}

StatusOr<Value> Interp::EvalSlice(const Node& n) {
  auto object = Eval(*n.kids[0]);
  if (!object.ok()) return object;
  int64_t bound[3] = {0, 0, 1};
  bool given[3] = {false, false, false};
  for (int k = 0; k < 3; ++k) {
    if (!n.kids[static_cast<size_t>(k) + 1]) continue;
    auto v = Eval(*n.kids[static_cast<size_t>(k) + 1]);
    if (!v.ok()) return v;
    if (v.value().is_none()) continue;
    if (v.value().kind() != Value::Kind::kInt) return TemplateError(n.line, n.col, "slice indices must be integers");
    bound[k] = v.value().AsInt();
    given[k] = true;
  }
  const Value& o = object.value();
  if (!o.is_array() && !o.is_string()) return TemplateError(n.line, n.col, "cannot slice " + o.TypeName());
  if (bound[2] == 0) return TemplateError(n.line, n.col, "slice step cannot be zero");
  std::vector<std::string> chars = o.is_string() ? CodePoints(o.AsString()) : std::vector<std::string>();
  int64_t size = static_cast<int64_t>(o.is_array() ? o.array().size() : chars.size()), step = bound[2];
  // Python's slice.indices: clamp, with defaults that depend on the step's sign.
  auto clamp = [&](int64_t v, bool is_given, int64_t fallback) {
    if (!is_given) return fallback;
    if (v < 0) v += size;
    return step > 0 ? std::clamp<int64_t>(v, 0, size) : std::clamp<int64_t>(v, -1, size - 1);
  };
  int64_t start = clamp(bound[0], given[0], step > 0 ? 0 : size - 1);
  int64_t stop = clamp(bound[1], given[1], step > 0 ? size : -1);
  Array items;
  std::string text;
  for (int64_t k = start; step > 0 ? k < stop : k > stop; k += step) {
    if (o.is_array()) items.push_back(o.array()[static_cast<size_t>(k)]);
    if (o.is_string()) text += chars[static_cast<size_t>(k)];
  }
  return o.is_array() ? Value::MakeArray(std::move(items)) : Value::String(text);
}

StatusOr<Value> Interp::EvalBinary(const Node& n) {
  auto left = Eval(*n.kids[0]);
  if (!left.ok()) return left;
  if (n.text == "and" || n.text == "or") {  // short-circuit, returning an operand as Python does
    bool take_left = left.value().Truthy() == (n.text == "or");
    return take_left ? left : Eval(*n.kids[1]);
  }
  auto right = Eval(*n.kids[1]);
  if (!right.ok()) return right;
  return Arithmetic(n.text, left.value(), right.value(), n);
}

}  // namespace vt::jinja
