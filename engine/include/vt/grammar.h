// Grammars over bytes for constrained decoding (specs/structured-outputs.md): GBNF text, as
// llama.cpp reads it, compiled to rules of alternatives of byte sets and rule references; and
// the pushdown automaton that runs one, its states interned so each (state, byte) step is
// computed once.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vt/status.h"

namespace vt {

struct Grammar {
  enum class Kind : uint8_t { kBytes, kRef, kEnd };  // kEnd closes an alternative
  struct Element {
    Kind kind;
    int32_t value;  // kBytes: index into byte_sets; kRef: the rule
  };
  using ByteSet = std::array<uint64_t, 4>;

  std::vector<Element> elements;                   // every alternative of every rule
  std::vector<std::vector<int32_t>> alternatives;  // per rule: where each alternative starts
  std::vector<ByteSet> byte_sets;
  std::vector<std::string> names;                  // per rule
  int32_t root = -1;

  bool Has(int32_t set, uint8_t byte) const { return (byte_sets[static_cast<size_t>(set)][byte >> 6] >> (byte & 63)) & 1; }

  // kInvalidArgument "line L, column C: why" for text that does not parse, and for an
  // undefined rule, a missing `root` or a left-recursive rule.
  static StatusOr<std::shared_ptr<const Grammar>> FromGbnf(std::string_view text);
};

// A regular expression (vLLM's `regex`) as a GBNF rule body; kInvalidArgument naming the
// offset and why for what it cannot express (backreferences, lookaround). `json_string`: the
// text inside a JSON string (a schema's `pattern`): `"`, `\` and control characters written
// as JSON escapes, and never produced by a class or `.`.
StatusOr<std::string> RegexToGbnf(std::string_view regex, bool json_string = false);
// `text` as a GBNF literal, quoted and escaped.
std::string GbnfLiteral(std::string_view text);

class GrammarAutomaton {
 public:
  using State = int32_t;
  static constexpr State kDead = -1;
  static constexpr size_t kMaxStacks = 32768;  // per state: past it the grammar is too ambiguous (3,000 optional members make 6,000)

  explicit GrammarAutomaton(std::shared_ptr<const Grammar> grammar);
  State start() const { return start_; }
  // The state after `byte`, or kDead when no stack takes it (or status() failed).
  State Advance(State s, uint8_t byte);
  // The grammar may end here (the root rule is complete).
  bool Accepting(State s) const { return s >= 0 && states_[static_cast<size_t>(s)].accepting; }
  // Some stack still takes a byte.
  bool CanContinue(State s) const { return s >= 0 && !states_[static_cast<size_t>(s)].tops.empty(); }
  const Status& status() const { return status_; }
  size_t num_states() const { return states_.size(); }

 private:
  struct Node {
    int32_t pos, parent;  // an element, and the stack below (-1: none)
  };
  struct StateInfo {
    std::vector<int32_t> tops;  // nodes whose element is a byte set, sorted
    bool accepting = false;
  };
  struct VectorHash {
    size_t operator()(const std::vector<int32_t>& v) const;
  };
  int32_t Intern(int32_t pos, int32_t parent);
  void Expand(int32_t pos, int32_t parent, std::vector<int32_t>* tops, bool* accepting, int depth = 0);
  static constexpr int kMaxDepth = 20000;  // rules opened before a byte, each a frame of Expand (~3 MB at most)
  State InternState(std::vector<int32_t> tops, bool accepting);

  std::shared_ptr<const Grammar> grammar_;
  std::vector<Node> nodes_;
  std::unordered_map<uint64_t, int32_t> node_ids_;
  std::vector<StateInfo> states_;
  std::unordered_map<std::vector<int32_t>, State, VectorHash> state_ids_;  // accepting as a -1 first
  std::vector<std::array<State, 256>> next_;
  State start_ = kDead;
  Status status_;
};

}  // namespace vt
