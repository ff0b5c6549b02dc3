// vt-run's speculative decoding flags (llama.cpp's names) and the drafter they choose.
#pragma once

#include <memory>
#include <string>

#include "model_loader.h"
#include "vt/speculative.h"
#include "vt/tokenizer.h"

namespace vtrun {

struct SpeculationFlags {
  std::string model_draft;  // -md/--model-draft
  std::string type;         // --spec-type: draft-simple (with -md) or ngram-simple
  int draft_max = 3, draft_min = 0;  // llama.cpp's defaults
  int ngram_size_n = 12;    // --spec-ngram-simple-size-n: the longest n-gram looked up
  std::vector<std::string> given;  // the speculation flags on the command line, by long name
};

// The drafter the flags choose, and what it needs kept alive (the draft model).
struct Speculation {
  vt::SpeculativeConfig config;  // method kNone: no flag asked for speculation
  std::unique_ptr<vttools::LoadedModel> draft;
  std::unique_ptr<vt::DraftModel> drafter;
  vt::Proposer propose;
  std::string type;  // llama.cpp's name of what runs, for the report
};

// kInvalidArgument naming the flag for a bad combination, or the draft file's own failure
// (a vocabulary other than the target's named by its first differing token).
vt::StatusOr<std::unique_ptr<Speculation>> MakeSpeculation(const SpeculationFlags& flags, const std::string& device,
                                                             const vt::Tokenizer& target, int64_t ctx);

}  // namespace vtrun
