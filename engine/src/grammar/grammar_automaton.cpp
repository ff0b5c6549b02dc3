// The grammar's pushdown automaton, as llama.cpp's llama_grammar_advance_stack runs one, with
// every stack and every set of stacks interned: equal stacks are one node, equal sets one
// state, so a state's step on a byte is computed once and a token mask can be cached per state.
#include <algorithm>

#include "vt/grammar.h"

namespace vt {
namespace {

constexpr GrammarAutomaton::State kUnknown = -2;

}  // namespace

size_t GrammarAutomaton::VectorHash::operator()(const std::vector<int32_t>& v) const {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int32_t x : v) h = (h ^ static_cast<uint32_t>(x)) * 0x100000001b3ull;
  return static_cast<size_t>(h);
}

GrammarAutomaton::GrammarAutomaton(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)) {
  std::vector<int32_t> tops;
  bool accepting = false;
  for (int32_t start : grammar_->alternatives[static_cast<size_t>(grammar_->root)]) Expand(start, -1, &tops, &accepting);
  start_ = InternState(std::move(tops), accepting);
}

int32_t GrammarAutomaton::Intern(int32_t pos, int32_t parent) {
  const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(pos)) << 32) | static_cast<uint32_t>(parent);
  auto [it, fresh] = node_ids_.emplace(key, static_cast<int32_t>(nodes_.size()));
  if (fresh) nodes_.push_back(Node{pos, parent});
  return it->second;
}

// The stacks that continue at element `pos` over `parent`, each down to a byte set: a rule's
// reference opens each of its alternatives (pushing where to return, unless the reference ends
// its own alternative), the end of an alternative returns to the stack below.
void GrammarAutomaton::Expand(int32_t pos, int32_t parent, std::vector<int32_t>* tops, bool* accepting, int depth) {
  const std::vector<Grammar::Element>& el = grammar_->elements;
  if (depth > kMaxDepth) {  // a chain of rules before any byte: past it, the thread's stack
    if (status_.ok()) status_ = Status(StatusCode::kInvalidArgument, "the grammar opens more than " + std::to_string(kMaxDepth) + " rules before a byte");
    return;
  }
  while (el[static_cast<size_t>(pos)].kind == Grammar::Kind::kEnd) {
    if (parent < 0) {
      *accepting = true;
      return;
    }
    const Node below = nodes_[static_cast<size_t>(parent)];
    pos = below.pos;
    parent = below.parent;
  }
  const Grammar::Element& e = el[static_cast<size_t>(pos)];
  if (e.kind == Grammar::Kind::kBytes) {
    if (tops->size() <= kMaxStacks) tops->push_back(Intern(pos, parent));
    return;
  }
  const int32_t ret = el[static_cast<size_t>(pos) + 1].kind == Grammar::Kind::kEnd ? parent : Intern(pos + 1, parent);
  for (int32_t start : grammar_->alternatives[static_cast<size_t>(e.value)]) {
    Expand(start, ret, tops, accepting, depth + 1);
    if (tops->size() > kMaxStacks) return;
  }
}

GrammarAutomaton::State GrammarAutomaton::InternState(std::vector<int32_t> tops, bool accepting) {
  if (!status_.ok()) return kDead;  // the grammar failed on the way here
  std::sort(tops.begin(), tops.end());
  tops.erase(std::unique(tops.begin(), tops.end()), tops.end());
  if (tops.size() > kMaxStacks) {
    if (status_.ok()) {
      status_ = Status(StatusCode::kInvalidArgument, "the grammar is too ambiguous: one state holds more than " +
                                                         std::to_string(kMaxStacks) + " parses");
    }
    return kDead;
  }
  std::vector<int32_t> key = tops;
  if (accepting) key.insert(key.begin(), -1);
  auto [it, fresh] = state_ids_.emplace(std::move(key), static_cast<State>(states_.size()));
  if (fresh) {
    states_.push_back(StateInfo{std::move(tops), accepting});
    std::array<State, 256> unknown;
    unknown.fill(kUnknown);
    next_.push_back(unknown);
  }
  return it->second;
}

GrammarAutomaton::State GrammarAutomaton::Advance(State s, uint8_t byte) {
  if (s < 0 || !status_.ok()) return kDead;
  State& cached = next_[static_cast<size_t>(s)][byte];
  if (cached != kUnknown) return cached;
  const std::vector<int32_t> from = states_[static_cast<size_t>(s)].tops;  // states_ may grow below
  std::vector<int32_t> tops;
  bool accepting = false;
  for (int32_t t : from) {
    const Node n = nodes_[static_cast<size_t>(t)];
    if (grammar_->Has(grammar_->elements[static_cast<size_t>(n.pos)].value, byte)) Expand(n.pos + 1, n.parent, &tops, &accepting);
  }
  const State to = tops.empty() && !accepting ? kDead : InternState(std::move(tops), accepting);
  next_[static_cast<size_t>(s)][byte] = to;  // `cached` may dangle: next_ grew
  return to;
}

}  // namespace vt
