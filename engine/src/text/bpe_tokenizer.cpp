// Byte-level BPE as llama.cpp does it (llm_tokenizer_bpe): the pre-tokenizer cuts text into
// words; each word's bytes are spelled with GPT-2's printable stand-in characters, and the
// adjacent pair with the lowest merge rank is merged until none is left (ties: leftmost).
#include <array>
#include <queue>

#include "nfc.h"
#include "utf8.h"
#include "vt/pretokenizer.h"
#include "vt/tokenizer.h"

namespace vt {
namespace {

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes
// for U+0100 onwards in byte order. `back` maps those code points (all < 0x200) to bytes.
struct ByteLevel {
  std::array<std::string, 256> spell;
  std::array<int, 0x200> back;
  ByteLevel() {
    back.fill(-1);
    uint32_t extra = 0x100;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      uint32_t cp = printable ? static_cast<uint32_t>(b) : extra++;
      AppendUtf8(cp, &spell[static_cast<size_t>(b)]);
      back[cp] = b;
    }
  }
};

const ByteLevel& Bytes() {
  static const ByteLevel table;
  return table;
}

struct Pair {
  int32_t rank = 0;
  int left = 0, right = 0;
  int32_t left_id = 0, right_id = 0, merged = 0;
};

struct Later {
  bool operator()(const Pair& a, const Pair& b) const { return a.rank > b.rank || (a.rank == b.rank && a.left > b.left); }
};

}  // namespace

class BpeSession {
 public:
  explicit BpeSession(const Tokenizer& vocab) : vocab_(vocab) {}

  void Word(std::string_view word, std::vector<int32_t>* out) {
    std::string spelled;
    for (unsigned char b : word) spelled += Bytes().spell[b];
    if (vocab_.ignore_merges_) {
      int32_t whole = vocab_.Find(spelled);
      if (whole >= 0) {
        out->push_back(whole);
        return;
      }
    }
    symbols_.clear();
    for (unsigned char b : word) {
      int n = static_cast<int>(symbols_.size());
      symbols_.push_back({n - 1, n + 1, vocab_.Find(Bytes().spell[b])});
    }
    symbols_.back().next = -1;
    for (int i = 1; i < static_cast<int>(symbols_.size()); ++i) TryAdd(i - 1, i);
    Merge();
    // A byte whose stand-in is not in the vocabulary has no token (it never merged, so symbol
    // i is still byte i): llama.cpp drops it too; Encode reports it.
    for (int i = 0; i != -1; i = symbols_[static_cast<size_t>(i)].next) {
      int32_t id = symbols_[static_cast<size_t>(i)].id;
      out->push_back(id >= 0 ? id : Tokenizer::Lost(static_cast<unsigned char>(word[static_cast<size_t>(i)])));
    }
  }

 private:
  struct Symbol {
    int prev = -1, next = -1;
    int32_t id = -1;
  };

  void Merge() {
    while (!queue_.empty()) {
      Pair p = queue_.top();
      queue_.pop();
      Symbol& left = symbols_[static_cast<size_t>(p.left)];
      Symbol& right = symbols_[static_cast<size_t>(p.right)];
      // Stale when either side has merged with something else since the pair was queued.
      if (left.id != p.left_id || right.id != p.right_id || left.next != p.right) continue;
      left.id = p.merged;
      left.next = right.next;
      right.id = -2;  // gone
      if (right.next >= 0) symbols_[static_cast<size_t>(right.next)].prev = p.left;
      TryAdd(left.prev, p.left);
      TryAdd(p.left, left.next);
    }
  }

  void TryAdd(int left, int right) {
    if (left < 0 || right < 0) return;
    int32_t a = symbols_[static_cast<size_t>(left)].id, b = symbols_[static_cast<size_t>(right)].id;
    if (a < 0 || b < 0) return;
    auto it = vocab_.merges_.find(static_cast<uint64_t>(a) << 32 | static_cast<uint32_t>(b));
    if (it == vocab_.merges_.end()) return;
    queue_.push(Pair{it->second.first, left, right, a, b, it->second.second});
  }

  const Tokenizer& vocab_;
  std::vector<Symbol> symbols_;
  std::priority_queue<Pair, std::vector<Pair>, Later> queue_;
};

void Tokenizer::EncodeBpe(const std::string& text, std::vector<int32_t>* out) const {
  BpeSession session(*this);
  const std::string composed = pre_->nfc() ? Nfc(text) : std::string();
  for (std::string_view word : pre_->Split(pre_->nfc() ? composed : text)) session.Word(word, out);
}

std::string Tokenizer::BpePiece(const std::string& text) const {
  std::string bytes;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = Utf8Length(c);
    uint32_t cp = n == 1 ? c : n == 2 && i + 1 < text.size() ? ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3Fu) : 0x200;
    int byte = cp < 0x200 ? Bytes().back[cp] : -1;
    // Characters outside the byte alphabet (added tokens written as plain text) stay as they are.
    bytes += byte >= 0 ? std::string(1, static_cast<char>(byte)) : text.substr(i, n);
    i += n;
  }
  return bytes;
}

Status Tokenizer::ReadMerges(const GgufFile& file, Tokenizer* t) {
  const GgufValue* merges = file.Find("tokenizer.ggml.merges");
  if (!merges || !merges->AsArray()) return Status(StatusCode::kInvalidArgument, "gguf: a gpt2 vocabulary needs tokenizer.ggml.merges");
  const auto& list = *merges->AsArray();
  for (size_t rank = 0; rank < list.size(); ++rank) {
    const std::string* m = list[rank].AsString();
    size_t space = m ? m->find(' ', 1) : std::string::npos;
    if (space == std::string::npos) {
      return Status(StatusCode::kInvalidArgument, "gguf: tokenizer.ggml.merges[" + std::to_string(rank) + "] is not \"left right\"");
    }
    int32_t a = t->Find(m->substr(0, space)), b = t->Find(m->substr(space + 1));
    int32_t merged = t->Find(m->substr(0, space) + m->substr(space + 1));
    // A merge whose sides or result are not tokens can never apply to token ids; the first
    // (lowest) rank of a pair wins, as a repeated pair would never be reached.
    if (a >= 0 && b >= 0 && merged >= 0) {
      t->merges_.emplace(static_cast<uint64_t>(a) << 32 | static_cast<uint32_t>(b), std::make_pair(static_cast<int32_t>(rank), merged));
    }
  }
  auto pre = PreTokenizer::ForName(file.Find("tokenizer.ggml.pre") && file.Find("tokenizer.ggml.pre")->AsString()
                                       ? *file.Find("tokenizer.ggml.pre")->AsString()
                                       : "default");
  if (!pre.ok()) return pre.status();
  t->pre_ = pre.value();
  t->ignore_merges_ = t->pre_->ignore_merges();
  return Status();
}

}  // namespace vt
