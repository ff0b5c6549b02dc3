#include "generation.h"

#include "structured_request.h"

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

// A required call's grammar (tool_choice "required" or a function), or none for "auto".
std::variant<std::shared_ptr<const vt::Grammar>, ApiError> Generation::ToolGrammar(ToolFormat format, const ServeRequest& r) {
  if (r.tool_choice != "required" && r.tool_choice != "function") return std::shared_ptr<const vt::Grammar>();
  if (r.grammar) return ApiError{400, "tool_choice " + r.tool_choice + " already constrains the output: no response_format beside it", "tool_choice"};
  auto gbnf = ToolCallGbnf(format, r);
  if (!gbnf.ok()) return ApiError{400, gbnf.status().message(), "tools"};
  auto g = vt::Grammar::FromGbnf(gbnf.value());
  if (!g.ok()) return ApiError{400, "tools: the calls' grammar does not compile: " + g.status().message(), "tools"};
  if (std::string why = StartProblem(g.value()); !why.empty()) return ApiError{400, "tools: " + why, "tools"};
  return g.value();
}

std::variant<std::unique_ptr<Generation>, ApiError> Generation::Start(ServeEngine& engine, const ServeRequest& request, ResponseHead head,
                                                                      const std::function<bool()>& gone) {
  ServeRequest r = request;
  // Harmony's channels are parsed for every chat request: the final one is the content.
  ToolFormat tools = r.endpoint == Endpoint::kChat && engine.tool_format() == ToolFormat::kHarmony ? ToolFormat::kHarmony : ToolFormat::kNone;
  if (r.endpoint == Endpoint::kChat && !r.tools.empty() && r.tool_choice != "none") {
    tools = engine.tool_format();
    if (tools == ToolFormat::kNone) {
      return ApiError{400, "the model's chat template has no tool-call format vt-serve parses (Hermes <tool_call>, Llama 3 JSON, harmony): "
                           "start vt-serve with --tool-call-parser hermes, llama3_json or openai", "tools"};
    }
    auto grammar = ToolGrammar(tools, r);
    if (auto* e = std::get_if<ApiError>(&grammar)) return *e;
    if (auto g = std::get<std::shared_ptr<const vt::Grammar>>(grammar)) r.grammar = g;
  }
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
      Part part{std::get<std::shared_ptr<Job>>(submitted), static_cast<int>(p) * r.n + i, "", {}, i == 0, tools};
      if (r.echo) part.echo = EchoOf(engine, r.prompts[p]);
      parts.push_back(std::move(part));
      if (r.echo && r.sampling.logprobs) {
        auto scored = i > 0 ? std::variant<std::vector<LogprobEntry>, ApiError>(parts[parts.size() - 2].echo_logprobs)
                            : engine.PromptLogprobs(parts.back().job->prompt, *r.sampling.logprobs, gone);
        if (auto* e = std::get_if<ApiError>(&scored)) {
          for (Part& queued : parts) queued.job->Cancel();
          return *e;
        }
        parts.back().echo_logprobs = std::move(std::get<std::vector<LogprobEntry>>(scored));
      }
    }
  }
  return std::unique_ptr<Generation>(new Generation(std::move(head), r.include_usage, std::move(parts)));
}

Generation::Generation(ResponseHead head, bool include_usage, std::vector<Part> parts)
    : head_(std::move(head)), include_usage_(include_usage), parts_(std::move(parts)), states_(parts_.size()) {
  for (size_t i = 0; i < parts_.size(); ++i) {
    if (parts_[i].tools != ToolFormat::kNone) states_[i].tools.emplace(parts_[i].tools);
  }
}

Generation::~Generation() = default;

void Generation::Cancel() {
  for (Part& p : parts_) p.job->Cancel();
}

Json Generation::Logprobs(size_t i, const std::vector<LogprobEntry>& entries) {
  return parts_[i].job->sampling.logprobs ? LogprobsJson(head_.endpoint, entries, &states_[i].offset) : Json();
}

// Part i's update as events: its new text (the echo first; with tools, what cannot start a
// call), then its end.
std::string Generation::Step(size_t i, const Job::Update& u) {
  State& s = states_[i];
  std::string out;
  std::string text = (s.first ? parts_[i].echo : "") + u.text;
  if (s.tools) text = s.tools->Push(text);
  if (s.tools) {  // harmony's analysis channel, ahead of the content that came with it
    if (std::string reasoning = s.tools->TakeReasoning(); !reasoning.empty()) {
      out += SseEvent(Chunk(head_, ChoiceOut{parts_[i].index, "", "", std::nullopt, Json(), Json(), false, reasoning}, s.first));
      s.first = false;
    }
  }
  std::vector<LogprobEntry> entries = s.first ? parts_[i].echo_logprobs : std::vector<LogprobEntry>();
  entries.insert(entries.end(), u.logprobs.begin(), u.logprobs.end());
  if (!text.empty() || !entries.empty()) {
    out += SseEvent(Chunk(head_, ChoiceOut{parts_[i].index, text, "", std::nullopt, Logprobs(i, entries), Json(), false}, s.first));
    s.first = false;
  }
  if (!u.done) return out;
  s.finish = u.finish_reason;
  s.error = u.error;
  return u.error.empty() ? out + End(i, u) : out;
}

// A part's last events: with tools, the content held back and the calls; then the finish.
std::string Generation::End(size_t i, const Job::Update& u) {
  State& s = states_[i];
  std::string out, finish = u.finish_reason;
  if (s.tools) {
    ToolOutput calls = s.tools->Finish();
    if (!calls.reasoning.empty()) {
      out += SseEvent(Chunk(head_, ChoiceOut{parts_[i].index, "", "", std::nullopt, Json(), Json(), false, calls.reasoning}, s.first));
      s.first = false;
    }
    if (calls.content && !calls.content->empty()) {
      out += SseEvent(Chunk(head_, ChoiceOut{parts_[i].index, *calls.content, "", std::nullopt, Json(), Json(), false}, s.first));
      s.first = false;
    }
    if (!calls.calls.empty()) {
      out += SseEvent(Chunk(head_, ChoiceOut{parts_[i].index, "", "", std::nullopt, Json(), ToolCallsJson(calls.calls, true), false}, s.first));
      s.first = false;
      finish = "tool_calls";
    }
  }
  out += SseEvent(Chunk(head_, ChoiceOut{parts_[i].index, "", finish, u.stop_reason, Json(), Json(), false}, s.first));
  s.first = false;
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
    s.logprobs = parts_[i].echo_logprobs;
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
    ChoiceOut c{parts_[i].index, s.text, s.finish, s.stop_reason, std::move(lp), Json(), false};
    if (parts_[i].tools != ToolFormat::kNone) {
      ToolOutput calls = ParseToolCalls(parts_[i].tools, s.text);
      c.reasoning = calls.reasoning;
      if (parts_[i].tools == ToolFormat::kHarmony) c.text = calls.content.value_or("");
      if (!calls.calls.empty()) {
        c.text = calls.content.value_or("");
        c.null_content = !calls.content;
        c.tool_calls = ToolCallsJson(calls.calls, false);
        c.finish_reason = "tool_calls";
      }
    }
    choices.push_back(std::move(c));
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
