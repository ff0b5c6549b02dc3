// Splits text into the words byte-level BPE merges within, with the regexes llama.cpp pairs
// with each `tokenizer.ggml.pre` name (the same patterns the models' tokenizer.json files use).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vt/status.h"

namespace vt {

class PreTokenizer {
 public:
  // kUnimplemented naming `pre` when the name is not one we know the regexes of.
  static StatusOr<std::shared_ptr<const PreTokenizer>> ForName(const std::string& pre);
  // The `tokenizer.ggml.pre` name for a tokenizer.json Split regex (as a converter needs it),
  // or "" when the pattern is not one vt knows.
  static std::string NameForPattern(const std::string& regex);
  ~PreTokenizer();

  // Each regex in turn refines the pieces: matches and the gaps between them both become pieces
  // (tokenizers' "Isolated" split), so the pieces always concatenate back to `text`.
  std::vector<std::string_view> Split(std::string_view text) const;
  const std::string& name() const { return name_; }
  // llama.cpp's llama3 family looks a whole word up before merging (tokenizer.json's
  // `ignore_merges`), which can give another split than the merges would.
  bool ignore_merges() const { return ignore_merges_; }
  // Qwen's tokenizer.json composes text to NFC before splitting; llama.cpp skips this, so
  // decomposed accents there become other tokens than the model was trained on.
  bool nfc() const { return nfc_; }

 private:
  struct Compiled;
  PreTokenizer() = default;
  std::string name_;
  bool ignore_merges_ = false, nfc_ = false;
  std::vector<std::unique_ptr<Compiled>> regexes_;
};

}  // namespace vt
