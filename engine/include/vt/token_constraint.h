// A grammar over a vocabulary's tokens (specs/structured-outputs.md): which tokens may come
// next, as a mask, and the grammar advanced by each token generated.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "vt/grammar.h"
#include "vt/status.h"
#include "vt/tokenizer.h"

namespace vt {

// The vocabulary's tokens as a trie of their bytes (Tokenizer::Piece), made once per model and
// shared by every request. Tokens with no bytes (control tokens) are not in it.
class VocabTrie {
 public:
  static std::shared_ptr<const VocabTrie> Build(const Tokenizer& tokenizer);

  struct Node {
    int32_t first_child = -1, next_sibling = -1;
    int32_t tokens_begin = 0, tokens_end = 0;  // into token_ids
    uint8_t byte = 0;
  };
  std::vector<Node> nodes;          // nodes[0] is the root
  std::vector<int32_t> token_ids;   // grouped by node
  std::vector<std::string> pieces;  // per token id
  std::vector<int32_t> eog;         // the end-of-generation tokens
  size_t vocab = 0;
  bool strip_first_space = false;   // the decoder drops the first piece's leading space
};

class GrammarConstraint {
 public:
  GrammarConstraint(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const VocabTrie> vocab);

  // Whether `token` may come next (its bytes, or an end of generation where the grammar may end).
  bool Allows(int32_t token);
  // One bit per token id: every token Allows.
  const std::vector<uint64_t>& Mask();
  // Advances by a generated token; one the grammar refuses sets status().
  void Accept(int32_t token);
  // Nothing may follow: the grammar cannot go on, or an end of generation was accepted.
  bool Complete() const;
  // Whether it was complete once its first `tokens` accepted tokens were: a speculative step
  // accepts several before the caller sees the first, and only the one that completed it ends
  // the output (an outside tester's `{"age":-8999` cut before its `}`).
  bool CompleteAfter(int64_t tokens) const { return complete_at_ >= 0 && tokens >= complete_at_; }
  // A failure that ends the request: a refused token, a grammar too ambiguous, no token allowed.
  const Status& status() const { return status_; }

 private:
  GrammarAutomaton::State Walk(const std::string& piece);
  void Fill(int32_t node, GrammarAutomaton::State s, bool at_root, std::vector<uint64_t>* mask);

  std::shared_ptr<const VocabTrie> vocab_;
  GrammarAutomaton automaton_;
  GrammarAutomaton::State state_;
  bool first_ = true, ended_ = false;
  int64_t accepted_ = 0, complete_at_ = -1;  // tokens accepted; how many when it completed
  std::unordered_map<int64_t, std::vector<uint64_t>> masks_;  // per (state, first)
  Status status_;
};

}  // namespace vt
