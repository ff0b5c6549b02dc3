// Builds a vt::Grammar rule by rule: literals and character classes become byte sets (a class
// over code points becomes the UTF-8 byte sequences of its characters), repetitions become
// right-recursive rules, and Finish checks what the automaton needs (every rule defined, a
// root, no left recursion).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vt/grammar.h"

namespace vt::grammar {

using Alternative = std::vector<Grammar::Element>;
using CodeRanges = std::vector<std::pair<uint32_t, uint32_t>>;  // inclusive

class GrammarBuilder {
 public:
  // The rule named `name`, made (undefined) on first use; `where` is said if it stays undefined.
  int32_t Rule(const std::string& name, const std::string& where);
  // A new rule named after `base`, for a group or a repetition.
  int32_t NewRule(const std::string& base);
  // kInvalidArgument when `rule` was defined already.
  Status Define(int32_t rule, std::vector<Alternative> alternatives, const std::string& where);

  Alternative Literal(const std::string& bytes);
  // The characters in `ranges` (or not in them, `negated`): one byte set, or a rule's reference.
  Alternative Class(CodeRanges ranges, bool negated);
  // `item` repeated min to max times (max -1: unbounded).
  Alternative Repeat(const Alternative& item, int min, int max);
  // `alternatives` as one element (a new rule's reference), for a group.
  Alternative Group(std::vector<Alternative> alternatives);

  StatusOr<std::shared_ptr<const Grammar>> Finish(const std::string& root);

 private:
  Grammar::Element Bytes(const Grammar::ByteSet& set);
  Status CheckLeftRecursion() const;

  std::vector<std::vector<Alternative>> rules_;
  std::vector<bool> defined_;
  std::vector<std::string> names_, first_use_;
  std::map<std::string, int32_t> ids_;
  std::vector<Grammar::ByteSet> sets_;
  std::map<Grammar::ByteSet, int32_t> set_ids_;
  std::map<CodeRanges, Alternative> classes_;  // a multi-byte class's rule, made once
  int generated_ = 0;
};

// Appends `cp`'s UTF-8 bytes to `out`.
void AppendUtf8(uint32_t cp, std::string* out);

}  // namespace vt::grammar
