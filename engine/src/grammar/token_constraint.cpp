#include "vt/token_constraint.h"

#include <algorithm>
#include <numeric>

namespace vt {

std::shared_ptr<const VocabTrie> VocabTrie::Build(const Tokenizer& tokenizer) {
  auto trie = std::make_shared<VocabTrie>();
  trie->vocab = tokenizer.size();
  trie->eog = tokenizer.eog();
  trie->strip_first_space = tokenizer.add_space_prefix();
  trie->pieces.resize(trie->vocab);
  std::vector<int32_t> order;
  for (size_t id = 0; id < trie->vocab; ++id) {
    const auto i = static_cast<int32_t>(id);
    const TokenType type = tokenizer.type(i);
    if (type == TokenType::kUnknown || type == TokenType::kUnused || tokenizer.IsEog(i)) continue;
    trie->pieces[id] = tokenizer.Piece(i);
    if (!trie->pieces[id].empty()) order.push_back(i);
  }
  // In byte order, each token's path shares its prefix with the one before: the trie is made in
  // one pass, children appended in order.
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return trie->pieces[static_cast<size_t>(a)] < trie->pieces[static_cast<size_t>(b)];
  });
  trie->nodes.emplace_back();
  std::vector<int32_t> path = {0}, last_child = {-1};
  const std::string* prev = nullptr;
  for (int32_t id : order) {
    const std::string& piece = trie->pieces[static_cast<size_t>(id)];
    size_t common = 0;
    while (prev && common < prev->size() && common < piece.size() && (*prev)[common] == piece[common]) ++common;
    path.resize(common + 1);
    for (size_t k = common; k < piece.size(); ++k) {
      const auto child = static_cast<int32_t>(trie->nodes.size());
      VocabTrie::Node node;
      node.byte = static_cast<uint8_t>(piece[k]);
      trie->nodes.push_back(node);
      last_child.push_back(-1);
      const auto parent = static_cast<size_t>(path.back());
      if (last_child[parent] < 0) trie->nodes[parent].first_child = child;
      else trie->nodes[static_cast<size_t>(last_child[parent])].next_sibling = child;
      last_child[parent] = child;
      path.push_back(child);
    }
    VocabTrie::Node& at = trie->nodes[static_cast<size_t>(path.back())];
    if (at.tokens_end == at.tokens_begin) at.tokens_begin = at.tokens_end = static_cast<int32_t>(trie->token_ids.size());
    trie->token_ids.push_back(id);
    at.tokens_end++;
    prev = &piece;
  }
  return trie;
}

GrammarConstraint::GrammarConstraint(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const VocabTrie> vocab)
    : vocab_(std::move(vocab)), automaton_(std::move(grammar)), state_(automaton_.start()) {
  if (!automaton_.status().ok()) status_ = automaton_.status();
}

// The state after `piece` from the current one (the first piece's leading space skipped where
// the decoder drops it).
GrammarAutomaton::State GrammarConstraint::Walk(const std::string& piece) {
  GrammarAutomaton::State s = state_;
  size_t k = first_ && vocab_->strip_first_space && !piece.empty() && piece[0] == ' ' ? 1 : 0;
  if (k == piece.size()) return GrammarAutomaton::kDead;  // no text at all: it moves nothing
  for (; k < piece.size() && s != GrammarAutomaton::kDead; ++k) s = automaton_.Advance(s, static_cast<uint8_t>(piece[k]));
  return s;
}

bool GrammarConstraint::Allows(int32_t token) {
  if (ended_ || token < 0 || static_cast<size_t>(token) >= vocab_->vocab) return false;
  if (std::find(vocab_->eog.begin(), vocab_->eog.end(), token) != vocab_->eog.end()) return automaton_.Accepting(state_);
  const std::string& piece = vocab_->pieces[static_cast<size_t>(token)];
  return !piece.empty() && Walk(piece) != GrammarAutomaton::kDead;
}

// Sets the bit of every token under `node` whose bytes the automaton takes from `s`; a
// refused byte leaves its whole subtree out.
void GrammarConstraint::Fill(int32_t node, GrammarAutomaton::State s, bool at_root, std::vector<uint64_t>* mask) {
  for (int32_t c = vocab_->nodes[static_cast<size_t>(node)].first_child; c >= 0; c = vocab_->nodes[static_cast<size_t>(c)].next_sibling) {
    const VocabTrie::Node& child = vocab_->nodes[static_cast<size_t>(c)];
    const bool skip = at_root && first_ && vocab_->strip_first_space && child.byte == ' ';
    const GrammarAutomaton::State next = skip ? s : automaton_.Advance(s, child.byte);
    if (next == GrammarAutomaton::kDead) continue;
    for (int32_t t = skip ? child.tokens_end : child.tokens_begin; t < child.tokens_end; ++t) {
      const auto id = static_cast<size_t>(vocab_->token_ids[static_cast<size_t>(t)]);
      (*mask)[id >> 6] |= uint64_t{1} << (id & 63);
    }
    Fill(c, next, false, mask);
  }
}

const std::vector<uint64_t>& GrammarConstraint::Mask() {
  const int64_t key = static_cast<int64_t>(state_) * 2 + (first_ ? 1 : 0);
  auto it = masks_.find(key);
  if (it != masks_.end() && !ended_) return it->second;
  std::vector<uint64_t> mask((vocab_->vocab + 63) / 64, 0);
  if (!ended_ && status_.ok()) {
    Fill(0, state_, true, &mask);
    if (automaton_.Accepting(state_)) {
      for (int32_t id : vocab_->eog) mask[static_cast<size_t>(id) >> 6] |= uint64_t{1} << (id & 63);
    }
    // A limit hit during the walk leaves the tokens walked before it: none is allowed, the
    // request ends (an outside tester's enum of 4,096 strings got `"c""""...` with a 200).
    if (!automaton_.status().ok()) status_ = automaton_.status(), std::fill(mask.begin(), mask.end(), 0);
  }
  if (ended_) return masks_[-1] = std::move(mask);
  return masks_[key] = std::move(mask);
}

void GrammarConstraint::Accept(int32_t token) {
  if (!status_.ok()) return;
  if (!Allows(token)) {
    status_ = Status(StatusCode::kInvalidArgument, "token " + std::to_string(token) + " is not allowed by the grammar here");
    return;
  }
  if (std::find(vocab_->eog.begin(), vocab_->eog.end(), token) != vocab_->eog.end()) {
    ended_ = true;
    ++accepted_;
    if (complete_at_ < 0) complete_at_ = accepted_;
    return;
  }
  const std::string& piece = vocab_->pieces[static_cast<size_t>(token)];
  state_ = Walk(piece);
  if (!piece.empty()) first_ = false;
  if (!automaton_.status().ok()) status_ = automaton_.status();
  ++accepted_;
  if (complete_at_ < 0 && Complete()) complete_at_ = accepted_;
}

bool GrammarConstraint::Complete() const { return ended_ || !automaton_.CanContinue(state_); }

}  // namespace vt
