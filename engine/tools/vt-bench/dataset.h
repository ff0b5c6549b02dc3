// The request mode's prompts: a custom JSON-lines dataset (text, rendered through the chat
// template when asked), random token ids, or pretokenized ids.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench_options.h"
#include "vt/tokenizer.h"

namespace vtbench {

struct Request {
  std::vector<int32_t> prompt;
  int output_len = 0;
  std::string text = {};  // the prompt as written (custom datasets), for chat endpoints
};

struct Dataset {
  std::vector<Request> requests;
  bool rendered = false;  // prompts went through a chat template before tokenization
  std::optional<bool> enable_thinking;  // what the render step passed (unset: not passed)
};

// `model_template`: the GGUF's tokenizer.chat_template ("" when none). Errors name FILE:LINE.
vt::StatusOr<Dataset> LoadDataset(const BenchOptions& o, const vt::Tokenizer& tokenizer, const std::string& model_template,
                                  int64_t n_vocab);

}  // namespace vtbench
