// vt-tokenize: text → token ids with a GGUF file's vocabulary, as llama.cpp's llama-tokenize.
// `--corpus FILE` encodes each string of a JSON array and prints the id lists as one JSON
// array (what the tokenizer oracle compares); `--repeat N` encodes N times and reports MB/s on
// stderr (the throughput benchmark).
#include <CLI/CLI.hpp>
#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vt/tokenizer.h"

namespace {

int Fail(const std::string& message, int code) {
  std::cerr << "vt-tokenize: " << message << "\n";
  return code;
}

bool ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

struct Flags {
  std::string model, prompt, file, corpus;
  bool no_bos = false, parse_special = false, ids = false;
  int repeat = 1;
};

int Print(const vt::Tokenizer& t, const Flags& f, const std::vector<std::string>& texts, bool corpus) {
  nlohmann::json all = nlohmann::json::array();
  size_t bytes = 0;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < f.repeat; ++r) {
    for (const std::string& text : texts) {
      std::vector<int32_t> ids = t.Encode(text, !f.no_bos, f.parse_special);
      bytes += text.size();
      if (r == 0) all.push_back(ids);
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (f.repeat > 1) std::cerr << "vt-tokenize: " << bytes << " bytes in " << s << " s: " << bytes / s / 1e6 << " MB/s\n";
  if (corpus || f.ids) {
    std::cout << (corpus ? all : all[0]).dump() << "\n";
    return 0;
  }
  for (int32_t id : all[0]) std::cout << id << " -> '" << t.Piece(id, true) << "'\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vt-tokenize: encode text with a GGUF vocabulary"};
  Flags f;
  app.add_option("--model,-m", f.model, "GGUF file (a vocab-only one will do)")->required();
  auto* prompt = app.add_option("--prompt,-p", f.prompt, "Text to encode");
  auto* file = app.add_option("--file,-f", f.file, "Encode this file's text");
  auto* corpus = app.add_option("--corpus", f.corpus, "JSON array of strings: print a JSON array of id lists");
  prompt->excludes(file)->excludes(corpus);
  file->excludes(corpus);
  app.add_flag("--no-bos", f.no_bos, "Do not add BOS/EOS even when the vocabulary asks");
  app.add_flag("--parse-special", f.parse_special, "Text spelling a control token becomes that token");
  app.add_flag("--ids", f.ids, "Print the ids as one JSON array");
  app.add_option("--repeat", f.repeat, "Encode N times and report MB/s on stderr")->check(CLI::Range(1, 1000000));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (prompt->count() + file->count() + corpus->count() == 0) return Fail("one of --prompt, --file or --corpus is required", 2);
  std::vector<std::string> texts = {f.prompt};
  if (file->count() > 0 && !ReadFile(f.file, &texts[0])) return Fail(f.file + ": cannot read", 1);
  bool is_corpus = corpus->count() > 0;
  if (is_corpus) {
    std::string raw;
    if (!ReadFile(f.corpus, &raw)) return Fail(f.corpus + ": cannot read", 1);
    nlohmann::json j = nlohmann::json::parse(raw, nullptr, false);
    if (!j.is_array()) return Fail(f.corpus + ": not a JSON array of strings", 2);
    texts.clear();
    for (const auto& item : j) {
      if (!item.is_string()) return Fail(f.corpus + ": item " + std::to_string(texts.size()) + " is not a string", 2);
      texts.push_back(item.get<std::string>());
    }
  }
  auto gguf = vt::GgufFile::Open(f.model);
  if (!gguf.ok()) return Fail(f.model + ": " + gguf.status().message(), 2);
  auto t = vt::Tokenizer::FromGguf(gguf.value());
  if (!t.ok()) return Fail(f.model + ": " + t.status().message(), 2);
  return Print(t.value(), f, texts, is_corpus);
}
