// Renders a parsed template: scopes, statements, expressions. The builtins (filters, tests,
// methods, globals) live in builtins.cpp and methods.cpp.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "ast.h"

namespace vt::jinja {

class Interp {
 public:
  explicit Interp(const Value& context);
  StatusOr<std::string> Run(const Node& root);

  StatusOr<Value> Call(const Value& fn, const std::vector<Value>& args, const Kwargs& kwargs, const Node& at);
  StatusOr<Value> Filter(const std::string& name, const Value& v, const std::vector<Value>& args, const Kwargs& kwargs, const Node& at);
  StatusOr<bool> Test(const std::string& name, const Value& v, const std::vector<Value>& args, const Node& at);
  // A method of a string, list or dict, or nullopt-like undefined when there is none by that name.
  StatusOr<Value> Method(const Value& self, const std::string& name, const std::vector<Value>& args, const Kwargs& kwargs,
                         const Node& at, bool* found);

 private:
  enum class Flow { kNormal, kBreak, kContinue };
  using Scope = std::unordered_map<std::string, Value>;

  StatusOr<Flow> Exec(const Node& n);
  StatusOr<Flow> ExecBlock(const Node& n);
  StatusOr<Flow> ExecIf(const Node& n);
  StatusOr<Flow> ExecFor(const Node& n);
  Status ExecSet(const Node& n);
  Status ExecSetBlock(const Node& n);
  void DefineMacro(const NodePtr& n);
  StatusOr<Value> Eval(const Node& n);
  StatusOr<Value> EvalBinary(const Node& n);
  StatusOr<Value> EvalFilterOrTest(const Node& n);
  StatusOr<Value> EvalCollection(const Node& n);
  StatusOr<Value> EvalCall(const Node& n);
  StatusOr<Value> EvalIndex(const Node& n);
  StatusOr<Value> EvalSlice(const Node& n);
  Status Args(const Node& n, size_t from, std::vector<Value>* args, Kwargs* kwargs);
  Value Lookup(const std::string& name) const;
  void Assign(const std::string& name, Value v) { scopes_.back()[name] = std::move(v); }
  void InstallGlobals();

  // Macro calls recurse on the C++ stack: the bound keeps a runaway recursion an error.
  static constexpr int kMaxCallDepth = 200;
  int call_depth_ = 0;
  int64_t steps_ = 0;  // statements run, against kMaxSteps
  std::vector<Scope> scopes_;
  std::string out_;
};

// Budgets that keep a runaway template (a loop of 10^8, a string doubled in a loop) an error,
// not a server spending every byte and second on one request: statements run, the items of
// one range(), and the bytes of the output or of any string or list built (an outside tester's
// range(100000000) took 16 GB and outlived SIGTERM).
inline constexpr int64_t kMaxSteps = 2'000'000;
inline constexpr int64_t kMaxRangeItems = 1'000'000;
inline constexpr size_t kMaxTextBytes = size_t{16} << 20;

// Binary arithmetic and comparison, Python's rules (builtins.cpp).
StatusOr<Value> Arithmetic(const std::string& op, const Value& a, const Value& b, const Node& at);
// A string's code points as separate UTF-8 strings (indexing and slicing count those).
std::vector<std::string> CodePoints(const std::string& s);

}  // namespace vt::jinja
