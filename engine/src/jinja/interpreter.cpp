#include "interpreter.h"

#include <algorithm>

namespace vt::jinja {

Interp::Interp(const Value& context) {
  scopes_.emplace_back();
  InstallGlobals();
  scopes_.emplace_back();
  if (context.is_object()) {
    for (const auto& [k, v] : context.object()) scopes_.back()[k] = v;
  }
  scopes_.emplace_back();  // the template's own `set`s
}

StatusOr<std::string> Interp::Run(const Node& root) {
  auto flow = ExecBlock(root);
  if (!flow.ok()) return flow.status();
  return out_;
}

Value Interp::Lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return found->second;
  }
  return Value();
}

StatusOr<Interp::Flow> Interp::ExecBlock(const Node& n) {
  for (const NodePtr& kid : n.kids) {
    auto flow = Exec(*kid);
    if (!flow.ok() || flow.value() != Flow::kNormal) return flow;
  }
  return Flow::kNormal;
}

StatusOr<Interp::Flow> Interp::Exec(const Node& n) {
  if (++steps_ > kMaxSteps) return TemplateError(n.line, n.col, "the template ran past " + std::to_string(kMaxSteps) + " steps");
  switch (n.kind) {
    case Node::Kind::kText: out_ += n.text; break;
    case Node::Kind::kOutput: {
      auto v = Eval(*n.kids[0]);
      if (!v.ok()) return v.status();
      out_ += v.value().Str();
      break;
    }
    case Node::Kind::kBlock: return ExecBlock(n);
    case Node::Kind::kIf: return ExecIf(n);
    case Node::Kind::kFor: return ExecFor(n);
    case Node::Kind::kBreak: return Flow::kBreak;
    case Node::Kind::kContinue: return Flow::kContinue;
    case Node::Kind::kSet: {
      Status st = ExecSet(n);
      if (!st.ok()) return st;
      return Flow::kNormal;
    }
    case Node::Kind::kSetBlock: {
      Status st = ExecSetBlock(n);
      if (!st.ok()) return st;
      return Flow::kNormal;
    }
    case Node::Kind::kMacro: {
      // The node is shared by the template, which outlives every render of it.
      DefineMacro(std::shared_ptr<const Node>(std::shared_ptr<const Node>(), &n));
      return Flow::kNormal;
    }
    default: return TemplateError(n.line, n.col, "not a statement");
  }
  if (out_.size() > kMaxTextBytes) return TemplateError(n.line, n.col, "the template's output passed " + std::to_string(kMaxTextBytes) + " bytes");
  return Flow::kNormal;
}

StatusOr<Interp::Flow> Interp::ExecIf(const Node& n) {
  size_t i = 0;
  for (; i + 1 < n.kids.size(); i += 2) {
    auto cond = Eval(*n.kids[i]);
    if (!cond.ok()) return cond.status();
    if (cond.value().Truthy()) return ExecBlock(*n.kids[i + 1]);
  }
  return i < n.kids.size() ? ExecBlock(*n.kids[i]) : StatusOr<Flow>(Flow::kNormal);
}

namespace {

// What a for loop walks: a list's items, a dict's keys; undefined is empty, as in Jinja.
StatusOr<Array> Iterable(const Value& v, const Node& at) {
  if (v.is_array()) return v.array();
  if (v.is_undefined()) return Array{};
  if (v.is_object()) {
    Array keys;
    for (const auto& kv : v.object()) keys.push_back(Value::String(kv.first));
    return keys;
  }
  if (v.is_string()) {
    Array chars;
    for (std::string& c : CodePoints(v.AsString())) chars.push_back(Value::String(std::move(c)));
    return chars;
  }
  return TemplateError(at.line, at.col, "'" + v.TypeName() + "' object is not iterable");
}

Value LoopObject(const Array& items, size_t i) {
  int64_t n = static_cast<int64_t>(items.size()), k = static_cast<int64_t>(i);
  return Value::MakeObject({{"index", Value::Int(k + 1)},
                            {"index0", Value::Int(k)},
                            {"revindex", Value::Int(n - k)},
                            {"revindex0", Value::Int(n - k - 1)},
                            {"first", Value::Bool(k == 0)},
                            {"last", Value::Bool(k == n - 1)},
                            {"length", Value::Int(n)},
                            {"previtem", k > 0 ? items[i - 1] : Value()},
                            {"nextitem", k + 1 < n ? items[i + 1] : Value()}});
}

}  // namespace

StatusOr<Interp::Flow> Interp::ExecFor(const Node& n) {
  auto source = Eval(*n.kids[0]);
  if (!source.ok()) return source.status();
  auto all = Iterable(source.value(), *n.kids[0]);
  if (!all.ok()) return all.status();
  scopes_.emplace_back();  // one scope for the loop: its sets do not leak out
  auto bind = [&](const Value& item) -> Status {
    if (n.names.size() == 1) {
      Assign(n.names[0], item);
      return Status();
    }
    if (!item.is_array() || item.array().size() != n.names.size()) {
      return TemplateError(n.line, n.col, "cannot unpack " + item.TypeName() + " into " + std::to_string(n.names.size()) + " names");
    }
    for (size_t k = 0; k < n.names.size(); ++k) Assign(n.names[k], item.array()[k]);
    return Status();
  };
  Array items;
  for (const Value& item : all.value()) {
    Status st = bind(item);
    if (!st.ok() || !n.kids[3]) {
      if (!st.ok()) return st;
      items.push_back(item);
      continue;
    }
    auto keep = Eval(*n.kids[3]);
    if (!keep.ok()) return keep.status();
    if (keep.value().Truthy()) items.push_back(item);
  }
  for (size_t i = 0; i < items.size(); ++i) {
    if (++steps_ > kMaxSteps) return TemplateError(n.line, n.col, "the template ran past " + std::to_string(kMaxSteps) + " steps");
    Assign("loop", LoopObject(items, i));
    VT_RETURN_IF_ERROR(bind(items[i]));
    auto flow = ExecBlock(*n.kids[1]);
    if (!flow.ok()) return flow;
    if (flow.value() == Flow::kBreak) break;
  }
  StatusOr<Flow> result = items.empty() ? ExecBlock(*n.kids[2]) : StatusOr<Flow>(Flow::kNormal);
  scopes_.pop_back();
  return result;
}

Status Interp::ExecSet(const Node& n) {
  auto v = Eval(*n.kids[0]);
  if (!v.ok()) return v.status();
  if (!n.text.empty()) {
    Value target = Lookup(n.names[0]);
    if (!target.is_object()) return TemplateError(n.line, n.col, "cannot set attribute '" + n.text + "' of " + target.TypeName());
    target.Set(n.text, v.value());
    return Status();
  }
  if (n.names.size() == 1) {
    Assign(n.names[0], v.value());
    return Status();
  }
  const Value& items = v.value();
  if (!items.is_array() || items.array().size() != n.names.size()) return TemplateError(n.line, n.col, "cannot unpack " + items.TypeName());
  for (size_t k = 0; k < n.names.size(); ++k) Assign(n.names[k], items.array()[k]);
  return Status();
}

Status Interp::ExecSetBlock(const Node& n) {
  std::string saved;
  saved.swap(out_);
  auto flow = ExecBlock(*n.kids[0]);
  std::string captured;
  captured.swap(out_);
  out_.swap(saved);
  if (!flow.ok()) return flow.status();
  Assign(n.names[0], Value::String(captured));
  return Status();
}

// A macro renders its body in a scope of its own over the globals, the template's variables and
// its parameters (positional, then by name, then defaults).
void Interp::DefineMacro(const NodePtr& n) {
  Assign(n->text, Value::MakeFunction([this, n](const std::vector<Value>& args, const Kwargs& kwargs) -> StatusOr<Value> {
    if (call_depth_ >= kMaxCallDepth) return Status(StatusCode::kInvalidArgument, "macro '" + n->text + "' recursed too deeply");
    Scope params;
    for (size_t k = 0; k < n->names.size(); ++k) {
      Value v = k < args.size() ? args[k] : Value();
      for (const auto& [name, value] : kwargs) {
        if (name == n->names[k]) v = value;
      }
      if (v.is_undefined() && n->kids[k + 1]) {
        auto def = Eval(*n->kids[k + 1]);
        if (!def.ok()) return def.status();
        v = def.value();
      }
      params[n->names[k]] = v;
    }
    std::vector<Scope> saved = {scopes_.begin(), scopes_.end()};
    scopes_.resize(3);  // globals, the context and the template's top-level sets
    scopes_.push_back(std::move(params));
    std::string out;
    out.swap(out_);
    ++call_depth_;
    auto flow = ExecBlock(*n->kids[0]);
    --call_depth_;
    out.swap(out_);
    scopes_ = std::move(saved);
    if (!flow.ok()) return flow.status();
    return Value::String(out);
  }));
}

}  // namespace vt::jinja
