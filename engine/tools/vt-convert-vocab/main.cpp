// vt-convert-vocab: a Hugging Face tokenizer.json (and its tokenizer_config.json) → a vocab-only
// GGUF file, the way `convert_hf_to_gguf.py --vocab-only` writes one.
#include <CLI/CLI.hpp>
#include <iostream>

#include "hf_vocab.h"

int main(int argc, char** argv) {
  CLI::App app{"vt-convert-vocab: tokenizer.json → vocab-only GGUF"};
  std::string tokenizer, config, out;
  app.add_option("tokenizer", tokenizer, "tokenizer.json")->required();
  app.add_option("--config", config, "tokenizer_config.json (special tokens, BOS/EOS flags, chat template)");
  app.add_option("--out,-o", out, "Output .gguf file")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto writer = vt::ConvertHfVocab(tokenizer, config);
  if (!writer.ok()) {
    std::cerr << "vt-convert-vocab: " << writer.status().message() << "\n";
    return writer.status().code() == vt::StatusCode::kUnavailable ? 1 : 2;
  }
  vt::Status st = writer.value().Write(out);
  if (!st.ok()) {
    std::cerr << "vt-convert-vocab: " << out << ": " << st.message() << "\n";
    return 1;
  }
  return 0;
}
