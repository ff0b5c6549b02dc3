#include "speculation.h"

#include <algorithm>

namespace vtrun {
namespace {

vt::Status Bad(const std::string& message) { return vt::Status(vt::StatusCode::kInvalidArgument, message); }

// -md's model on the target's device, its vocabulary the target's, and a drafter over a
// cache as long as the target's.
vt::Status LoadDraft(const SpeculationFlags& flags, const std::string& device, const vt::Tokenizer& target, int64_t ctx, Speculation& s) {
  auto loaded = vttools::LoadModel(flags.model_draft, device, false);
  if (!loaded.ok()) return Bad("--model-draft " + loaded.status().message());
  auto vocab = vt::Tokenizer::FromGguf(*loaded.value()->file);
  if (!vocab.ok()) return Bad("--model-draft " + flags.model_draft + ": " + vocab.status().message());
  if (vt::Status same = vt::CheckDraftVocabulary(target, vocab.value()); !same.ok()) {
    return Bad("--model-draft " + flags.model_draft + ": " + same.message());
  }
  s.draft = std::move(loaded).value();
  auto cache = s.draft->model->NewCache(ctx);
  if (!cache.ok()) return vt::Status(cache.status().code(), "--model-draft: " + cache.status().message());
  s.drafter = std::make_unique<vt::DraftModel>(*s.draft->model, std::move(cache).value());
  vt::DraftModel* drafter = s.drafter.get();
  s.propose = [drafter](const std::vector<int32_t>& tokens, int k) { return drafter->Propose(tokens, k); };
  return vt::Status();
}

}  // namespace

// Flags that would change nothing are refused, as a typo in them would otherwise go unseen.
vt::Status CheckGiven(const SpeculationFlags& flags, const std::string& type) {
  auto given = [&](const std::string& flag) { return std::find(flags.given.begin(), flags.given.end(), flag) != flags.given.end(); };
  if (given("--model-draft") && flags.model_draft.empty()) return Bad("--model-draft needs a GGUF file");
  for (const char* flag : {"--draft-max", "--draft-min", "--spec-ngram-simple-size-n"}) {
    if (type == "none" && given(flag)) return Bad(std::string(flag) + " does nothing without --spec-type or --model-draft");
  }
  if (type != "ngram-simple" && given("--spec-ngram-simple-size-n")) return Bad("--spec-ngram-simple-size-n is for --spec-type ngram-simple only");
  if (type != "none" && flags.draft_max == 0) return Bad("--draft-max 0 drafts nothing: leave out --spec-type and --model-draft to decode without speculation");
  return vt::Status();
}

vt::StatusOr<std::unique_ptr<Speculation>> MakeSpeculation(const SpeculationFlags& flags, const std::string& device,
                                                             const vt::Tokenizer& target, int64_t ctx) {
  auto s = std::make_unique<Speculation>();
  s->type = !flags.type.empty() ? flags.type : !flags.model_draft.empty() ? "draft-simple" : "none";
  VT_RETURN_IF_ERROR(CheckGiven(flags, s->type));
  if (s->type != "none" && s->type != "draft-simple" && s->type != "ngram-simple") {
    return Bad("--spec-type " + flags.type + ": vt runs draft-simple (with --model-draft) and ngram-simple");
  }
  if (s->type == "draft-simple" && flags.model_draft.empty()) return Bad("--spec-type draft-simple needs --model-draft");
  if (s->type != "draft-simple" && !flags.model_draft.empty()) return Bad("--model-draft drafts only with --spec-type draft-simple, not " + s->type);
  if (flags.draft_min > flags.draft_max) {
    return Bad("--draft-min " + std::to_string(flags.draft_min) + " is more than --draft-max " + std::to_string(flags.draft_max));
  }
  s->config.num_speculative_tokens = flags.draft_max;
  s->config.draft_min = flags.draft_min;
  if (s->type == "ngram-simple") {
    s->config.method = vt::SpeculativeConfig::Method::kNgram;
    const int longest = flags.ngram_size_n;
    s->propose = [longest](const std::vector<int32_t>& tokens, int k) -> vt::StatusOr<std::vector<int32_t>> {
      return vt::NgramDraft(tokens, k, 1, longest);
    };
  } else if (s->type == "draft-simple") {
    s->config.method = vt::SpeculativeConfig::Method::kDraftModel;
    s->config.draft_model = flags.model_draft;
    VT_RETURN_IF_ERROR(LoadDraft(flags, device, target, ctx, *s));
  }
  return s;
}

}  // namespace vtrun
