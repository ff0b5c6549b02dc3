#include "generation.h"

namespace vtserve {
namespace {

using Json = nlohmann::json;

// The text `echo` repeats: the prompt as written, or its ids decoded.
std::string EchoOf(const ServeEngine& engine, const ServeRequest::Prompt& p) {
  if (!p.ids) return p.text;
  vt::StreamDecoder decoder(engine.tokenizer());
  std::string text;
  for (int32_t id : *p.ids) text += decoder.Push(id);
  return text + decoder.Flush();
}

}  // namespace

std::variant<std::unique_ptr<Generation>, ApiError> Generation::Start(ServeEngine& engine, const ServeRequest& r, ResponseHead head) {
  std::vector<Part> parts;
  const size_t prompts = r.endpoint == Endpoint::kChat ? 1 : r.prompts.size();
  for (size_t p = 0; p < prompts; ++p) {
    for (int i = 0; i < r.n; ++i) {
      ServeRequest one = r;
      if (r.endpoint == Endpoint::kCompletions) one.prompts = {r.prompts[p]};
      if (r.sampling.seed) one.sampling.seed = *r.sampling.seed + static_cast<uint64_t>(i);
      auto submitted = engine.Submit(one);
      if (auto* e = std::get_if<ApiError>(&submitted)) {
        for (Part& queued : parts) queued.job->Cancel();
        return *e;
      }
      Part part{std::get<std::shared_ptr<Job>>(submitted), static_cast<int>(p) * r.n + i, "", i == 0};
      if (r.echo) part.echo = EchoOf(engine, r.prompts[p]);
      parts.push_back(std::move(part));
    }
  }
  return std::unique_ptr<Generation>(new Generation(std::move(head), r.include_usage, std::move(parts)));
}

Generation::Generation(ResponseHead head, bool include_usage, std::vector<Part> parts)
    : head_(std::move(head)), include_usage_(include_usage), parts_(std::move(parts)), states_(parts_.size()) {}

Generation::~Generation() = default;

void Generation::Cancel() {
  for (Part& p : parts_) p.job->Cancel();
}

Json Generation::Logprobs(size_t i, const std::vector<LogprobEntry>& entries) {
  return parts_[i].job->sampling.logprobs ? LogprobsJson(head_.endpoint, entries, &states_[i].offset) : Json();
}

// Part i's update as events: its new text (the echo first), then its end.
std::string Generation::Step(size_t i, const Job::Update& u) {
  State& s = states_[i];
  std::string out;
  const std::string text = (s.first ? parts_[i].echo : "") + u.text;
  if (!text.empty() || !u.logprobs.empty()) {
    out += SseEvent(Chunk(head_, ChoiceOut{parts_[i].index, text, "", std::nullopt, Logprobs(i, u.logprobs)}, s.first));
    s.first = false;
  }
  if (!u.done) return out;
  s.finish = u.finish_reason;
  s.error = u.error;
  if (u.error.empty()) {
    out += SseEvent(Chunk(head_, ChoiceOut{parts_[i].index, "", u.finish_reason, u.stop_reason, Json()}, s.first));
    s.first = false;
  }
  return out;
}

std::string Generation::Events(std::chrono::milliseconds wait, bool* done) {
  *done = over_;
  if (over_) return "";
  std::string out;
  // One job waits as long as asked; several take turns in short waits.
  const auto slice = parts_.size() == 1 ? wait : std::chrono::milliseconds(2);
  bool all = true;
  for (size_t i = 0; i < parts_.size(); ++i) {
    if (!states_[i].finish.empty()) continue;
    Job::Update u = parts_[i].job->Take(slice);
    out += Step(i, u);
    if (!states_[i].error.empty()) {
      Cancel();
      over_ = *done = true;
      return out + "data: " + ApiError{500, states_[i].error, "", "InternalServerError"}.ToJson().dump(-1, ' ', false, Json::error_handler_t::replace) +
             "\n\ndata: [DONE]\n\n";
    }
    all = all && u.done;
  }
  if (!all) return out;
  if (include_usage_) out += SseEvent(UsageChunk(head_, TotalUsage()));
  over_ = *done = true;
  return out + "data: [DONE]\n\n";
}

bool Generation::Collect(const std::function<bool()>& gone) {
  for (size_t i = 0; i < parts_.size(); ++i) {
    State& s = states_[i];
    s.text = parts_[i].echo;
    while (s.finish.empty()) {
      Job::Update u = parts_[i].job->Take(std::chrono::milliseconds(100));
      s.text += u.text;
      s.logprobs.insert(s.logprobs.end(), u.logprobs.begin(), u.logprobs.end());
      if (u.done) {
        s.finish = u.finish_reason;
        s.error = u.error;
        s.stop_reason = u.stop_reason;
      } else if (gone()) {
        Cancel();
        return false;
      }
    }
  }
  return true;
}

std::variant<Json, ApiError> Generation::Whole() const {
  std::vector<ChoiceOut> choices;
  for (size_t i = 0; i < parts_.size(); ++i) {
    const State& s = states_[i];
    if (!s.error.empty()) return ApiError{500, s.error, "", "InternalServerError"};
    int64_t offset = 0;
    Json lp = parts_[i].job->sampling.logprobs ? LogprobsJson(head_.endpoint, s.logprobs, &offset) : Json();
    choices.push_back(ChoiceOut{parts_[i].index, s.text, s.finish, s.stop_reason, std::move(lp)});
  }
  return FullResponse(head_, choices, TotalUsage());
}

// Each prompt's tokens once, every choice's completion tokens.
Usage Generation::TotalUsage() const {
  Usage u;
  for (const Part& p : parts_) {
    if (p.counts_prompt) u.prompt_tokens += static_cast<int64_t>(p.job->prompt.size());
    u.completion_tokens += p.job->completion_tokens();
  }
  return u;
}

}  // namespace vtserve
