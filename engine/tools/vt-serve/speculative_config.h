// vt-serve's --speculative-config: vLLM's JSON object of speculative decoding settings.
#pragma once

#include <string>

#include "vt/speculative.h"

namespace vtserve {

// {"method": "ngram"|"draft_model", "model": FILE, "num_speculative_tokens": K,
//  "prompt_lookup_max": N, "prompt_lookup_min": M}: vLLM's keys. A draft model is named by
// "model" (method draft_model, the default when "model" is given). kInvalidArgument naming the
// flag and the key for text that is not such an object, an unknown key or method, a wrong type,
// a value out of range, or a missing num_speculative_tokens.
vt::StatusOr<vt::SpeculativeConfig> ParseSpeculativeConfig(const std::string& text);

}  // namespace vtserve
