#include "serve_engine.h"

#include "json_value.h"
#include "vt/chat_template.h"
#include "vt/generate.h"
#include "vt/sampling.h"

namespace vtserve {

Job::Update Job::Take(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait_for(lock, wait, [this] { return done_ || !pending_.empty(); });
  Update u;
  u.text = std::move(pending_);
  pending_.clear();
  u.done = done_;
  u.finish_reason = finish_reason_;
  u.error = error_;
  return u;
}

void Job::Emit(const std::string& text, int tokens_so_far) {
  completion_tokens_ = tokens_so_far;
  if (text.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  pending_ += text;
  cv_.notify_all();
}

void Job::Finish(const std::string& reason, const std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = true;
  finish_reason_ = reason;
  error_ = error;
  cv_.notify_all();
}

vt::StatusOr<std::unique_ptr<ServeEngine>> ServeEngine::Start(std::shared_ptr<const vt::GgufFile> file,
                                                              std::unique_ptr<vt::LlamaModel> model, ServeOptions options) {
  auto tokenizer = vt::Tokenizer::FromGguf(*file);
  if (!tokenizer.ok()) return tokenizer.status();
  int64_t trained = model->hparams().n_ctx_train;
  if (options.max_model_len <= 0) options.max_model_len = trained > 0 ? trained : 2048;
  auto cache = model->NewCache(options.max_model_len);
  if (!cache.ok()) return cache.status();
  if (options.chat_template.empty()) {
    const vt::GgufValue* tmpl = file->Find("tokenizer.chat_template");
    if (tmpl && tmpl->AsString()) options.chat_template = *tmpl->AsString();
  }
  return std::unique_ptr<ServeEngine>(new ServeEngine(std::move(file), std::move(model), std::move(tokenizer).value(),
                                                      std::move(cache).value(), std::move(options)));
}

ServeEngine::ServeEngine(std::shared_ptr<const vt::GgufFile> file, std::unique_ptr<vt::LlamaModel> model,
                         vt::Tokenizer tokenizer, vt::KvCache cache, ServeOptions options)
    : file_(std::move(file)), model_(std::move(model)), tokenizer_(std::move(tokenizer)), cache_(std::move(cache)),
      options_(std::move(options)) {
  worker_ = std::thread([this] { Loop(); });
}

ServeEngine::~ServeEngine() {
  CancelAll();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

void ServeEngine::CancelAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_) running_->Cancel();
  for (auto& job : waiting_) job->Finish("abort");
  waiting_.clear();
  UpdateGauges(running_.get());
}

// The prompt's token ids: text tokenized (BOS as the vocabulary asks), ids checked against the
// vocabulary, or messages rendered through the chat template first.
std::variant<std::vector<int32_t>, ApiError> ServeEngine::PromptOf(const ServeRequest& r) const {
  if (r.endpoint == Endpoint::kCompletions) {
    if (!r.prompt_ids) return tokenizer_.Encode(r.prompt, /*add_special=*/true, /*parse_special=*/true);
    for (int32_t id : *r.prompt_ids) {
      if (static_cast<size_t>(id) >= tokenizer_.size()) {
        return ApiError{400, "token id " + std::to_string(id) + " is outside the vocabulary (" +
                                 std::to_string(tokenizer_.size()) + " tokens)", "prompt"};
      }
    }
    return *r.prompt_ids;
  }
  if (options_.chat_template.empty()) {
    return ApiError{400, "the model has no chat template: start vt-serve with --chat-template FILE", "messages"};
  }
  auto messages = vt::ParseJsonValue(r.messages.dump(), "messages");
  if (!messages.ok()) return ApiError{400, messages.status().message(), "messages"};
  vt::ChatOptions chat;
  chat.add_generation_prompt = r.add_generation_prompt;
  chat.enable_thinking = r.enable_thinking;
  chat.bos_token = tokenizer_.bos() >= 0 ? tokenizer_.Piece(tokenizer_.bos(), /*special=*/true) : "";
  chat.eos_token = tokenizer_.eos() >= 0 ? tokenizer_.Piece(tokenizer_.eos(), /*special=*/true) : "";
  auto text = vt::RenderChat(options_.chat_template, messages.value(), chat);
  if (!text.ok()) return ApiError{400, "the chat template failed: " + text.status().message(), "messages"};
  // Templates usually write BOS themselves; add it only when this one did not.
  bool has_bos = !chat.bos_token.empty() && text.value().rfind(chat.bos_token, 0) == 0;
  return tokenizer_.Encode(text.value(), /*add_special=*/!has_bos, /*parse_special=*/true);
}

std::variant<std::shared_ptr<Job>, ApiError> ServeEngine::Submit(const ServeRequest& r) {
  auto prompt = PromptOf(r);
  if (auto* e = std::get_if<ApiError>(&prompt)) return *e;
  std::vector<int32_t> ids = std::move(std::get<std::vector<int32_t>>(prompt));
  int64_t len = options_.max_model_len, n = static_cast<int64_t>(ids.size());
  if (ids.empty()) return ApiError{400, "the prompt is empty", r.endpoint == Endpoint::kChat ? "messages" : "prompt"};
  int64_t want = r.max_tokens ? *r.max_tokens : len - n;
  if (n >= len || n + want > len) {
    return ApiError{400, "This model's maximum context length is " + std::to_string(len) + " tokens. However, you requested " +
                             std::to_string(n + std::max<int64_t>(want, 1)) + " tokens (" + std::to_string(n) +
                             " in the prompt, " + std::to_string(std::max<int64_t>(want, 1)) + " in the completion). "
                             "Please reduce the length of the prompt or of max_tokens.",
                    r.max_tokens ? "max_tokens" : (r.endpoint == Endpoint::kChat ? "messages" : "prompt")};
  }
  vt::SamplingParams sampling = r.sampling;
  sampling.max_tokens = static_cast<int>(want);
  auto job = std::make_shared<Job>(std::move(ids), std::move(sampling));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (static_cast<int>(waiting_.size()) >= options_.max_queued) {
      return ApiError{503, "the server is busy: " + std::to_string(waiting_.size()) + " requests are waiting (--max-queued-requests)",
                      "", "ServiceUnavailableError"};
    }
    waiting_.push_back(job);
    UpdateGauges(running_.get());
  }
  wake_.notify_all();
  return job;
}

// KV usage is what the running request can fill: its prompt and its max_tokens.
void ServeEngine::UpdateGauges(const Job* running) {
  double used = running ? static_cast<double>(running->prompt.size() + static_cast<size_t>(running->sampling.max_tokens)) /
                              static_cast<double>(cache_.n_ctx)
                        : 0.0;
  metrics_.SetQueue(running ? 1 : 0, static_cast<int>(waiting_.size()), used);
}

void ServeEngine::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    UpdateGauges(nullptr);
    wake_.wait(lock, [this] { return stop_ || !waiting_.empty(); });
    if (stop_) return;
    std::shared_ptr<Job> job = waiting_.front();
    waiting_.pop_front();
    running_ = job;
    UpdateGauges(job.get());
    lock.unlock();
    if (job->cancelled()) job->Finish("abort");
    else Run(*job);
    lock.lock();
    running_.reset();
  }
}

void ServeEngine::Run(Job& job) {
  cache_.n_past = 0;  // an empty cache: positions are overwritten from 0
  auto sampler = vt::Sampler::Create(job.sampling);
  if (!sampler.ok()) return job.Finish("error", sampler.status().message());
  for (int32_t id : job.prompt) sampler->Accept(id);
  vt::StreamDecoder decoder(tokenizer_);
  vt::StopStrings stops(job.sampling.stop);
  bool eos = false;
  int generated = 0;
  auto g = vt::Generate(*model_, cache_, job.prompt, job.sampling.max_tokens, sampler->AsTokenSampler(), [&](int32_t id) {
    if (++generated == 1) job.first_token = Job::Clock::now();
    eos = id == tokenizer_.eos() && !job.sampling.ignore_eos;
    job.Emit(eos ? "" : stops.Push(decoder.Push(id)), generated);
    return !eos && !stops.stopped() && !job.cancelled();
  });
  double e2e = std::chrono::duration<double>(Job::Clock::now() - job.arrived).count();
  double ttft = std::chrono::duration<double>(job.first_token - job.arrived).count();
  if (!g.ok()) {
    metrics_.Finished(static_cast<int64_t>(job.prompt.size()), generated, "error", ttft, e2e);
    return job.Finish("error", g.status().message());
  }
  if (!stops.stopped()) job.Emit(stops.Push(decoder.Flush()) + stops.Flush(), generated);  // what was held back
  std::string reason = job.cancelled() ? "abort" : eos || stops.stopped() ? "stop" : "length";
  metrics_.Finished(static_cast<int64_t>(job.prompt.size()), generated, reason, ttft, e2e);
  job.Finish(reason);
}

}  // namespace vtserve
