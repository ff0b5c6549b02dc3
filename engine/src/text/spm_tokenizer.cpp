// SentencePiece-style encoding as llama.cpp does it (llm_tokenizer_spm): start from UTF-8
// characters, repeatedly merge the adjacent pair whose concatenation is the vocabulary's
// highest-scoring token (ties: leftmost), and spell what never became a token as bytes.
#include <queue>
#include <unordered_map>

#include "utf8.h"
#include "vt/tokenizer.h"

namespace vt {
namespace {

struct Symbol {
  int prev = -1, next = -1;
  size_t offset = 0, n = 0;
};

struct Bigram {
  int left = 0, right = 0;
  float score = 0;
  size_t size = 0;
};

struct Worse {
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

}  // namespace

class SpmSession {
 public:
  SpmSession(const Tokenizer& vocab, const std::string& text) : vocab_(vocab), text_(text) {}

  void Tokenize(std::vector<int32_t>* out) {
    for (size_t offset = 0; offset < text_.size();) {
      Symbol s;
      s.offset = offset;
      s.n = std::min(Utf8Length(static_cast<unsigned char>(text_[offset])), text_.size() - offset);
      offset += s.n;
      s.prev = static_cast<int>(symbols_.size()) - 1;
      s.next = offset == text_.size() ? -1 : static_cast<int>(symbols_.size()) + 1;
      symbols_.push_back(s);
    }
    for (int i = 1; i < static_cast<int>(symbols_.size()); ++i) TryAdd(i - 1, i);
    while (!queue_.empty()) {
      Bigram b = queue_.top();
      queue_.pop();
      Symbol& left = symbols_[b.left];
      Symbol& right = symbols_[b.right];
      if (left.n == 0 || right.n == 0 || left.n + right.n != b.size) continue;  // stale: one side merged since
      left.n += right.n;
      right.n = 0;
      left.next = right.next;
      if (right.next >= 0) symbols_[right.next].prev = b.left;
      TryAdd(left.prev, b.left);
      TryAdd(b.left, left.next);
    }
    for (int i = symbols_.empty() ? -1 : 0; i != -1; i = symbols_[i].next) Resegment(symbols_[i], out);
  }

 private:
  void TryAdd(int left, int right) {
    if (left < 0 || right < 0) return;
    std::string text = text_.substr(symbols_[left].offset, symbols_[left].n + symbols_[right].n);
    int32_t id = vocab_.Find(text);
    if (id < 0) return;
    queue_.push(Bigram{left, right, vocab_.scores_[static_cast<size_t>(id)], text.size()});
    merged_from_[text] = {left, right};
  }

  // A symbol that is a token is that token; one made by merges that is not (a merge can only
  // make tokens, but a single character may not be one) splits back; a character with no
  // token is spelled as its bytes.
  void Resegment(const Symbol& s, std::vector<int32_t>* out) {
    std::string text = text_.substr(s.offset, s.n);
    int32_t id = vocab_.Find(text);
    if (id >= 0) {
      out->push_back(id);
      return;
    }
    auto parts = merged_from_.find(text);
    if (parts == merged_from_.end()) {
      for (unsigned char byte : text) out->push_back(vocab_.ByteToken(byte));
      return;
    }
    Resegment(symbols_[parts->second.first], out);
    Resegment(symbols_[parts->second.second], out);
  }

  const Tokenizer& vocab_;
  const std::string& text_;
  std::vector<Symbol> symbols_;
  std::priority_queue<Bigram, std::vector<Bigram>, Worse> queue_;
  std::unordered_map<std::string, std::pair<int, int>> merged_from_;
};

void Tokenizer::EncodeSpm(const std::string& text, std::vector<int32_t>* out) const {
  SpmSession(*this, text).Tokenize(out);
}

}  // namespace vt
