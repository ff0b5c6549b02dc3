#include "serve_engine.h"

#include <algorithm>

#include "json_value.h"
#include "vt/chat_template.h"
#include "vt/sampling.h"

namespace vtserve {

vt::StatusOr<std::unique_ptr<ServeEngine>> ServeEngine::Start(std::shared_ptr<const vt::GgufFile> file,
                                                              std::unique_ptr<vt::Model> model, ServeOptions options) {
  auto tokenizer = vt::Tokenizer::FromGguf(*file);
  if (!tokenizer.ok()) return tokenizer.status();
  int64_t trained = model->hparams().n_ctx_train;
  if (options.max_model_len <= 0) options.max_model_len = trained > 0 ? trained : 2048;
  std::vector<vt::KvCache> slots;
  for (int i = 0; i < options.max_num_seqs; ++i) {
    auto cache = model->NewCache(options.max_model_len);
    if (!cache.ok()) return cache.status();
    slots.push_back(std::move(cache).value());
  }
  if (options.chat_template.empty()) {
    const vt::GgufValue* tmpl = file->Find("tokenizer.chat_template");
    if (tmpl && tmpl->AsString()) options.chat_template = *tmpl->AsString();
  }
  std::unique_ptr<ServeEngine> engine(new ServeEngine(std::move(file), std::move(model), std::move(tokenizer).value(),
                                                      std::move(slots), std::move(options)));
  VT_RETURN_IF_ERROR(engine->warmed_.get());
  return engine;
}

ServeEngine::ServeEngine(std::shared_ptr<const vt::GgufFile> file, std::unique_ptr<vt::Model> model,
                         vt::Tokenizer tokenizer, std::vector<vt::KvCache> slots, ServeOptions options)
    : file_(std::move(file)), model_(std::move(model)), tokenizer_(std::move(tokenizer)), options_(std::move(options)),
      batcher_(*model_, tokenizer_, std::move(slots), options_.max_num_batched_tokens, metrics_) {
  std::promise<vt::Status> warmed;
  warmed_ = warmed.get_future();
  // The warm-up runs on the engine thread: the buffers it makes are that thread's own.
  worker_ = std::thread([this, warmed = std::move(warmed)]() mutable {
    vt::Status status;
    if (options_.warmup) {
      const auto start = std::chrono::steady_clock::now();
      status = batcher_.WarmUp(std::max(tokenizer_.bos(), 0));
      warmup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    warmed.set_value(status);
    Loop();
  });
}

ServeEngine::~ServeEngine() {
  CancelAll();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  worker_.join();
  for (auto& job : running_) {
    if (!job->done()) job->Finish("abort");  // stopped between steps
  }
}

void ServeEngine::CancelAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& job : running_) job->Cancel();
  for (auto& job : waiting_) job->Finish("abort");
  waiting_.clear();
  UpdateGauges();
}

// The prompt's token ids: text tokenized (BOS as the vocabulary asks), ids checked against the
// vocabulary, or messages rendered through the chat template first.
std::variant<std::vector<int32_t>, ApiError> ServeEngine::PromptOf(const ServeRequest& r) const {
  if (r.endpoint == Endpoint::kCompletions) {
    if (!r.prompt_ids) return Encode(r.prompt, /*add_special=*/true, "prompt");
    // The model's rows bound the ids as much as the vocabulary's texts do.
    size_t vocab = std::min(tokenizer_.size(), static_cast<size_t>(model_->hparams().n_vocab));
    for (int32_t id : *r.prompt_ids) {
      if (static_cast<size_t>(id) >= vocab) {
        return ApiError{400, "token id " + std::to_string(id) + " is outside the vocabulary (" + std::to_string(vocab) + " tokens)",
                        "prompt"};
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
  return Encode(text.value(), /*add_special=*/!has_bos, "messages");
}

// `text`'s ids, or a 400 naming `param` when the vocabulary cannot spell some of its bytes.
std::variant<std::vector<int32_t>, ApiError> ServeEngine::Encode(const std::string& text, bool add_special,
                                                                 const std::string& param) const {
  std::string lost;
  std::vector<int32_t> ids = tokenizer_.Encode(text, add_special, /*parse_special=*/true, &lost);
  if (!lost.empty()) return UnencodableError(lost, param);
  return ids;
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
                    // the prompt alone too long is the prompt's fault, whatever max_tokens says
                    r.max_tokens && n < len ? "max_tokens" : (r.endpoint == Endpoint::kChat ? "messages" : "prompt")};
  }
  vt::SamplingParams sampling = r.sampling;
  sampling.max_tokens = static_cast<int>(want);
  auto job = std::make_shared<Job>(std::move(ids), std::move(sampling));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    DropCancelled();
    // Room is a free running slot or a free place in the queue (--max-queued-requests 0 still
    // runs a request when a slot is free).
    int running = static_cast<int>(std::count_if(running_.begin(), running_.end(), [](const auto& j) { return !j->done(); }));
    if (static_cast<int>(waiting_.size()) >= options_.max_queued + std::max(0, options_.max_num_seqs - running)) {
      return ApiError{503, "the server is busy: " + std::to_string(waiting_.size()) + " requests are waiting (--max-queued-requests)",
                      "", "ServiceUnavailableError"};
    }
    waiting_.push_back(job);
    UpdateGauges();
  }
  wake_.notify_all();
  return job;
}

// A waiting request whose client hung up holds no place in the queue.
void ServeEngine::DropCancelled() {
  for (auto& job : waiting_) {
    if (job->cancelled()) job->Finish("abort");
  }
  waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(), [](const auto& j) { return j->cancelled(); }), waiting_.end());
}

void ServeEngine::UpdateGauges() {
  metrics_.SetQueue(static_cast<int>(running_.size()), static_cast<int>(waiting_.size()), batcher_.kv_usage());
}

// Admits what fits, steps the batch without the lock (HTTP threads keep queueing), then
// forgets the jobs that ended.
void ServeEngine::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    DropCancelled();
    while (!waiting_.empty() && !batcher_.Full()) {
      running_.push_back(waiting_.front());
      waiting_.pop_front();
      if (running_.back()->cancelled()) running_.back()->Finish("abort");
      else batcher_.Admit(running_.back());
    }
    running_.erase(std::remove_if(running_.begin(), running_.end(), [](const auto& j) { return j->done(); }), running_.end());
    UpdateGauges();
    if (stop_) return;
    if (batcher_.Empty()) {
      wake_.wait(lock, [this] { return stop_ || !waiting_.empty(); });
      continue;
    }
    lock.unlock();
    batcher_.Step();
    lock.lock();
  }
}

}  // namespace vtserve
