// Hugging Face tokenizer.json (+ tokenizer_config.json) → GGUF tokenizer metadata, as llama.cpp's
// convert_hf_to_gguf.py writes it for a vocab-only file.
#pragma once

#include <string>

#include "vt/gguf.h"
#include "vt/status.h"

namespace vt {

// `config_path` may be empty. Errors name the file and what in it could not be converted.
StatusOr<GgufWriter> ConvertHfVocab(const std::string& tokenizer_path, const std::string& config_path);

}  // namespace vt
