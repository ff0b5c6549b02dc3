#include "grammar_builder.h"

#include <algorithm>

namespace vt::grammar {
namespace {

using Element = Grammar::Element;
using ByteRanges = std::vector<std::pair<uint8_t, uint8_t>>;  // one per byte of a sequence

constexpr uint32_t kMaxCode = 0x10FFFF;
// The automaton's expansion recurses through a chain of rules at the start of alternatives:
// bounded, it stays within a thread's stack.
constexpr size_t kMaxRules = 50000;

Status Invalid(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

// Sorted, merged, within Unicode, without the surrogates (no UTF-8 encodes them); the
// complement of that when `negated`.
CodeRanges Normalize(CodeRanges ranges, bool negated) {
  std::sort(ranges.begin(), ranges.end());
  CodeRanges merged;
  for (auto [lo, hi] : ranges) {
    hi = std::min(hi, kMaxCode);
    if (lo > hi) continue;
    if (!merged.empty() && lo <= merged.back().second + 1) merged.back().second = std::max(merged.back().second, hi);
    else merged.push_back({lo, hi});
  }
  if (negated) {
    CodeRanges complement;
    uint32_t next = 0;
    for (auto [lo, hi] : merged) {
      if (lo > next) complement.push_back({next, lo - 1});
      next = hi + 1;
    }
    if (next <= kMaxCode) complement.push_back({next, kMaxCode});
    merged.swap(complement);
  }
  CodeRanges out;
  for (auto [lo, hi] : merged) {
    if (lo < 0xD800) out.push_back({lo, std::min(hi, 0xD7FFu)});
    if (hi > 0xDFFF) out.push_back({std::max(lo, 0xE000u), hi});
  }
  return out;
}

// [lo, hi] as UTF-8 sequences, each a byte range per position (regex-syntax's utf8 ranges).
void SplitUtf8(uint32_t lo, uint32_t hi, std::vector<ByteRanges>* out) {
  static const uint32_t kLast[] = {0x7F, 0x7FF, 0xFFFF};
  for (uint32_t last : kLast) {
    if (lo <= last && hi > last) {
      SplitUtf8(lo, last, out);
      SplitUtf8(last + 1, hi, out);
      return;
    }
  }
  if (hi <= 0x7F) return out->push_back({{static_cast<uint8_t>(lo), static_cast<uint8_t>(hi)}});
  const int len = hi <= 0x7FF ? 2 : hi <= 0xFFFF ? 3 : 4;
  for (int i = 1; i < len; ++i) {
    const uint32_t m = (1u << (6 * i)) - 1;
    if ((lo & ~m) == (hi & ~m)) continue;
    if ((lo & m) != 0) return SplitUtf8(lo, lo | m, out), SplitUtf8((lo | m) + 1, hi, out);
    if ((hi & m) != m) return SplitUtf8(lo, (hi & ~m) - 1, out), SplitUtf8(hi & ~m, hi, out);
  }
  std::string a, b;
  AppendUtf8(lo, &a);
  AppendUtf8(hi, &b);
  ByteRanges seq;
  for (size_t k = 0; k < a.size(); ++k) seq.push_back({static_cast<uint8_t>(a[k]), static_cast<uint8_t>(b[k])});
  out->push_back(std::move(seq));
}

Grammar::ByteSet SetOf(uint8_t lo, uint8_t hi) {
  Grammar::ByteSet set{};
  for (int b = lo; b <= hi; ++b) set[static_cast<size_t>(b >> 6)] |= uint64_t{1} << (b & 63);
  return set;
}

}  // namespace

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

int32_t GrammarBuilder::Rule(const std::string& name, const std::string& where) {
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<int32_t>(rules_.size());
  ids_[name] = id;
  rules_.emplace_back();
  defined_.push_back(false);
  names_.push_back(name);
  first_use_.push_back(where);
  return id;
}

int32_t GrammarBuilder::NewRule(const std::string& base) {
  std::string name;
  do name = base + "-" + std::to_string(++generated_);
  while (ids_.count(name));
  return Rule(name, "");
}

Status GrammarBuilder::Define(int32_t rule, std::vector<Alternative> alternatives, const std::string& where) {
  const auto r = static_cast<size_t>(rule);
  if (defined_[r]) return Invalid(where + "rule '" + names_[r] + "' is defined twice");
  defined_[r] = true;
  rules_[r] = std::move(alternatives);
  return Status();
}

Element GrammarBuilder::Bytes(const Grammar::ByteSet& set) {
  auto [it, fresh] = set_ids_.emplace(set, static_cast<int32_t>(sets_.size()));
  if (fresh) sets_.push_back(set);
  return Element{Grammar::Kind::kBytes, it->second};
}

Alternative GrammarBuilder::Literal(const std::string& bytes) {
  Alternative out;
  for (char c : bytes) out.push_back(Bytes(SetOf(static_cast<uint8_t>(c), static_cast<uint8_t>(c))));
  return out;
}

Alternative GrammarBuilder::Class(CodeRanges ranges, bool negated) {
  CodeRanges norm = Normalize(std::move(ranges), negated);
  if (auto it = classes_.find(norm); it != classes_.end()) return it->second;
  std::vector<ByteRanges> seqs;
  for (auto [lo, hi] : norm) SplitUtf8(lo, hi, &seqs);
  Grammar::ByteSet single{};
  std::vector<Alternative> alts;
  for (const ByteRanges& seq : seqs) {
    if (seq.size() == 1) {
      Grammar::ByteSet s = SetOf(seq[0].first, seq[0].second);
      for (size_t w = 0; w < 4; ++w) single[w] |= s[w];
      continue;
    }
    Alternative alt;
    for (auto [lo, hi] : seq) alt.push_back(Bytes(SetOf(lo, hi)));
    alts.push_back(std::move(alt));
  }
  const bool any_single = single != Grammar::ByteSet{};
  Alternative out;
  if (alts.empty() && any_single) {
    out = {Bytes(single)};
  } else {
    if (any_single) alts.insert(alts.begin(), Alternative{Bytes(single)});
    out = Group(std::move(alts));  // no alternative at all: a rule nothing matches
  }
  classes_[norm] = out;
  return out;
}

Alternative GrammarBuilder::Group(std::vector<Alternative> alternatives) {
  const int32_t rule = NewRule("group");
  (void)Define(rule, std::move(alternatives), "");
  return {Element{Grammar::Kind::kRef, rule}};
}

Alternative GrammarBuilder::Repeat(const Alternative& item, int min, int max) {
  Alternative out;
  for (int i = 0; i < min; ++i) out.insert(out.end(), item.begin(), item.end());
  if (max < 0) {  // star ::= item star |
    const int32_t star = NewRule("star");
    Alternative loop = item;
    loop.push_back(Element{Grammar::Kind::kRef, star});
    (void)Define(star, {loop, {}}, "");
    out.push_back(Element{Grammar::Kind::kRef, star});
    return out;
  }
  int32_t tail = -1;  // opt_k ::= item opt_(k-1) |
  for (int k = min; k < max; ++k) {
    const int32_t opt = NewRule("opt");
    Alternative once = item;
    if (tail >= 0) once.push_back(Element{Grammar::Kind::kRef, tail});
    (void)Define(opt, {once, {}}, "");
    tail = opt;
  }
  if (tail >= 0) out.push_back(Element{Grammar::Kind::kRef, tail});
  return out;
}

// A rule reachable from itself without a byte between is left recursive: the automaton's
// expansion would never end. The search keeps its own stack: a chain of thousands of rules
// would overflow the thread's.
Status GrammarBuilder::CheckLeftRecursion() const {
  const size_t n = rules_.size();
  std::vector<bool> nullable(n, false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < n; ++r) {
      if (nullable[r]) continue;
      for (const Alternative& alt : rules_[r]) {
        bool all = std::all_of(alt.begin(), alt.end(), [&](const Element& e) {
          return e.kind == Grammar::Kind::kRef && nullable[static_cast<size_t>(e.value)];
        });
        if (all) nullable[r] = changed = true;
      }
    }
  }
  // The rules each one reaches before any byte.
  std::vector<std::vector<size_t>> left(n);
  for (size_t r = 0; r < n; ++r) {
    for (const Alternative& alt : rules_[r]) {
      for (const Element& e : alt) {
        if (e.kind != Grammar::Kind::kRef) break;
        left[r].push_back(static_cast<size_t>(e.value));
        if (!nullable[static_cast<size_t>(e.value)]) break;
      }
    }
  }
  std::vector<int> color(n, 0);  // 0 unseen, 1 on the path, 2 done
  for (size_t root = 0; root < n; ++root) {
    if (color[root] != 0) continue;
    std::vector<std::pair<size_t, size_t>> path = {{root, 0}};  // (rule, next edge)
    color[root] = 1;
    while (!path.empty()) {
      auto& [r, next] = path.back();
      if (next == left[r].size()) {
        color[r] = 2;
        path.pop_back();
        continue;
      }
      const size_t to = left[r][next++];
      if (color[to] == 1) return Invalid("rule '" + names_[to] + "' is left recursive (it can reach itself before any byte)");
      if (color[to] == 0) color[to] = 1, path.push_back({to, 0});
    }
  }
  return Status();
}

StatusOr<std::shared_ptr<const Grammar>> GrammarBuilder::Finish(const std::string& root) {
  auto it = ids_.find(root);
  if (it == ids_.end() || !defined_[static_cast<size_t>(it->second)]) return Invalid("the grammar has no '" + root + "' rule");
  for (size_t r = 0; r < rules_.size(); ++r) {
    if (!defined_[r]) return Invalid(first_use_[r] + "rule '" + names_[r] + "' is not defined");
  }
  if (rules_.size() > kMaxRules) return Invalid("the grammar has more than " + std::to_string(kMaxRules) + " rules (with those its repetitions make)");
  VT_RETURN_IF_ERROR(CheckLeftRecursion());
  auto g = std::make_shared<Grammar>();
  g->byte_sets = sets_;
  g->names = names_;
  g->root = it->second;
  for (const auto& alts : rules_) {
    std::vector<int32_t> starts;
    for (const Alternative& alt : alts) {
      starts.push_back(static_cast<int32_t>(g->elements.size()));
      g->elements.insert(g->elements.end(), alt.begin(), alt.end());
      g->elements.push_back(Element{Grammar::Kind::kEnd, 0});
    }
    g->alternatives.push_back(std::move(starts));
  }
  return std::shared_ptr<const Grammar>(std::move(g));
}

}  // namespace vt::grammar
