#include "serve_engine.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>

#include "json_value.h"
#include "vt/chat_template.h"
#include "vt/prompt_scores.h"
#include "vt/sampling.h"

namespace vtserve {

namespace {

// MemAvailable from /proc/meminfo in bytes, or 0 where it cannot be read.
int64_t AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    in.ignore(256, '\n');
  }
  return 0;
}

// The default budget: every sequence's whole context, in whole blocks, capped at half the
// memory available now (`available`, 0: unknown) but never below one block.
int64_t DefaultBudget(const ServeOptions& o, int64_t per_block, int64_t available) {
  const int64_t bytes = o.max_num_seqs * ((o.max_model_len + o.block_size - 1) / o.block_size) * per_block;
  return available > 0 ? std::min(bytes, std::max(available / 2, per_block)) : bytes;
}

// The pool's blocks: the flag's bytes, or the default budget. A default context the budget
// cannot hold is lowered to what it holds; a context the user chose is refused, as is a
// budget on the host past the memory available.
vt::StatusOr<KvPoolInfo> PlanPool(const vt::Model& model, const vt::Model* draft, ServeOptions& o) {
  const int64_t trained = model.hparams().n_ctx_train, available = AvailableMemoryBytes();
  const bool chosen = o.max_model_len > 0, flagged = o.kv_cache_memory_bytes > 0;
  if (!chosen) o.max_model_len = trained > 0 ? trained : 2048;
  const int64_t per_position = model.KvBytesPerPosition(o.kv_dtype) + (draft ? draft->KvBytesPerPosition(o.kv_dtype) : 0);
  const int64_t per_block = o.block_size * per_position;
  const int64_t bytes = flagged ? o.kv_cache_memory_bytes : DefaultBudget(o, per_block, available);
  const std::string budget = flagged ? "--kv-cache-memory-bytes" : "the default budget, half the memory available: set --kv-cache-memory-bytes";
  if (flagged && o.kv_on_host && available > 0 && bytes > available) {
    return vt::Status(vt::StatusCode::kInvalidArgument, "--kv-cache-memory-bytes " + std::to_string(bytes) +
                                                            " is more than the memory available now (" + std::to_string(available) + " bytes)");
  }
  KvPoolInfo info{bytes / per_block, o.block_size, bytes / per_block * per_block, per_position, o.kv_dtype, false,
                  draft ? draft->KvBytesPerPosition(o.kv_dtype) : 0};
  if (info.n_blocks < 1 || info.n_blocks > INT32_MAX) {
    return vt::Status(vt::StatusCode::kInvalidArgument, "--kv-cache-memory-bytes " + std::to_string(bytes) + " is not between one block (" +
                                                            std::to_string(per_block) + " bytes of " + std::to_string(o.block_size) + " positions) and 2^31 blocks");
  }
  const int64_t holds = info.n_blocks * o.block_size;
  if (o.max_model_len > holds && chosen) {
    return vt::Status(vt::StatusCode::kInvalidArgument, "--max-model-len " + std::to_string(o.max_model_len) + " is longer than the KV cache holds: " +
                                                            std::to_string(holds) + " positions in " + std::to_string(info.bytes) + " bytes (" + budget + ")");
  }
  info.max_model_len_lowered = o.max_model_len > holds;
  o.max_model_len = std::min(o.max_model_len, holds);
  return info;
}

// The drafter --speculative-config asks for: n-gram lookup, or the draft model over a pool of
// the target's blocks.
vt::StatusOr<SpecOptions> MakeSpec(const ServeOptions& o, vt::Model* draft, const KvPoolInfo& info) {
  SpecOptions spec;
  const vt::SpeculativeConfig& c = o.speculative;
  if (!c.enabled()) return spec;
  spec.num_speculative = c.num_speculative_tokens;
  if (c.method == vt::SpeculativeConfig::Method::kNgram) {
    spec.drafter = std::make_unique<vt::serve::NgramDrafter>(c.prompt_lookup_min, c.prompt_lookup_max);
    return spec;
  }
  if (!draft) return vt::Status(vt::StatusCode::kInvalidArgument, "--speculative-config: a draft model was asked for and none was loaded");
  auto pool = draft->NewKvPool(info.n_blocks, info.block_size, o.kv_dtype);
  if (!pool.ok()) return vt::Status(pool.status().code(), "the draft model's KV cache: " + pool.status().message());
  spec.drafter = std::make_unique<vt::serve::ModelDrafter>(*draft, std::move(pool).value());
  return spec;
}

// The pooling the file asks for (`ARCH.pooling_type`, llama.cpp's: 1 mean, 2 cls, 3 last), else mean.
std::string FilePooling(const vt::GgufFile& file) {
  const vt::GgufValue* arch = file.Find("general.architecture");
  const vt::GgufValue* type = arch && arch->AsString() ? file.Find(*arch->AsString() + ".pooling_type") : nullptr;
  const int64_t t = type && type->AsInt() ? *type->AsInt() : 1;
  return t == 2 ? "cls" : t == 3 ? "last" : "mean";
}

// [n_embd, T] hidden states pooled into one vector of unit length.
std::vector<float> Pool(const std::vector<float>& hidden, int64_t n_embd, const std::string& pooling) {
  const int64_t t = static_cast<int64_t>(hidden.size()) / n_embd;
  std::vector<double> sum(static_cast<size_t>(n_embd), 0.0);
  const int64_t first = pooling == "last" ? t - 1 : 0, last = pooling == "cls" ? 1 : t;
  for (int64_t p = first; p < last; ++p) {
    for (int64_t i = 0; i < n_embd; ++i) sum[static_cast<size_t>(i)] += hidden[static_cast<size_t>(p * n_embd + i)];
  }
  double norm = 0;
  for (double v : sum) norm += v * v;
  norm = std::sqrt(norm);
  std::vector<float> out(sum.size());
  for (size_t i = 0; i < sum.size(); ++i) out[i] = static_cast<float>(norm > 0 ? sum[i] / norm : 0.0);
  return out;
}

}  // namespace

vt::StatusOr<std::unique_ptr<ServeEngine>> ServeEngine::Start(std::shared_ptr<const vt::GgufFile> file,
                                                              std::unique_ptr<vt::Model> model, ServeOptions options,
                                                              std::unique_ptr<vt::Model> draft) {
  auto tokenizer = vt::Tokenizer::FromGguf(*file);
  if (!tokenizer.ok()) return tokenizer.status();
  auto info = PlanPool(*model, draft.get(), options);
  if (!info.ok()) return info.status();
  auto pool = model->NewKvPool(info->n_blocks, info->block_size, options.kv_dtype);
  if (!pool.ok()) return vt::Status(pool.status().code(), "the KV cache (--kv-cache-memory-bytes " + std::to_string(info->bytes) + "): " + pool.status().message());
  if (!pool->k.empty()) info->dtype = pool->k[0].dtype;
  if (options.chat_template.empty()) {
    const vt::GgufValue* tmpl = file->Find("tokenizer.chat_template");
    if (tmpl && tmpl->AsString()) options.chat_template = *tmpl->AsString();
  }
  auto spec = MakeSpec(options, draft.get(), info.value());
  if (!spec.ok()) return spec.status();
  std::unique_ptr<ServeEngine> engine(new ServeEngine(std::move(file), std::move(model), std::move(tokenizer).value(),
                                                      std::move(pool).value(), info.value(), std::move(options), std::move(draft),
                                                      std::move(spec).value()));
  VT_RETURN_IF_ERROR(engine->warmed_.get());
  return engine;
}

ServeEngine::ServeEngine(std::shared_ptr<const vt::GgufFile> file, std::unique_ptr<vt::Model> model,
                         vt::Tokenizer tokenizer, vt::KvCache pool, KvPoolInfo info, ServeOptions options,
                         std::unique_ptr<vt::Model> draft, SpecOptions spec)
    : file_(std::move(file)), model_(std::move(model)), draft_(std::move(draft)), tokenizer_(std::move(tokenizer)),
      options_(std::move(options)), kv_pool_(info),
      batcher_(*model_, tokenizer_, std::move(pool), KvOptions{info.n_blocks, info.block_size, options_.prefix_caching},
               vt::serve::SchedulerConfig{options_.max_num_seqs, options_.max_num_batched_tokens}, metrics_, std::move(spec)) {
  tool_format_ = options_.tool_call_parser.empty() ? DetectToolFormat(options_.chat_template) : ToolFormatNamed(options_.tool_call_parser);
  pooling_ = options_.pooling.empty() ? FilePooling(*file_) : options_.pooling;
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
  for (auto& job : waiting_) Abort(*job);
  waiting_.clear();
  UpdateGauges();
}

// The prompt's token ids: text tokenized (BOS as the vocabulary asks), ids checked against the
// vocabulary, or messages rendered through the chat template first.
std::variant<std::vector<int32_t>, ApiError> ServeEngine::PromptOf(const ServeRequest& r) const {
  if (r.endpoint == Endpoint::kCompletions) {
    const ServeRequest::Prompt& p = r.prompts.front();
    if (!p.ids) return Encode(p.text, /*add_special=*/true, "prompt");
    // The model's rows bound the ids as much as the vocabulary's texts do.
    size_t vocab = std::min(tokenizer_.size(), static_cast<size_t>(model_->hparams().n_vocab));
    for (int32_t id : *p.ids) {
      if (static_cast<size_t>(id) >= vocab) {
        return ApiError{400, "token id " + std::to_string(id) + " is outside the vocabulary (" + std::to_string(vocab) + " tokens)",
                        "prompt"};
      }
    }
    return *p.ids;
  }
  if (options_.chat_template.empty()) {
    return ApiError{400, "the model has no chat template: start vt-serve with --chat-template FILE", "messages"};
  }
  auto messages = vt::ParseJsonValue(r.messages.dump(), "messages");
  if (!messages.ok()) return ApiError{400, messages.status().message(), "messages"};
  vt::ChatOptions chat;
  chat.add_generation_prompt = r.add_generation_prompt;
  chat.enable_thinking = r.enable_thinking;
  if (!r.reasoning_effort.empty()) chat.extra = vt::jinja::Value::MakeObject({{"reasoning_effort", vt::jinja::Value::String(r.reasoning_effort)}});
  chat.bos_token = tokenizer_.bos() >= 0 ? tokenizer_.Piece(tokenizer_.bos(), /*special=*/true) : "";
  chat.eos_token = tokenizer_.eos() >= 0 ? tokenizer_.Piece(tokenizer_.eos(), /*special=*/true) : "";
  if (!r.tools.empty()) {
    auto tools = vt::ParseJsonValue(r.tools.dump(), "tools");
    if (!tools.ok()) return ApiError{400, tools.status().message(), "tools"};
    chat.tools = tools.value();
  }
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
  // max_tokens 0 (echo) scores a prompt that fills the context; a generation needs a place after it.
  if (n > len || (r.max_tokens != 0 && n >= len) || n + want > len) {
    const int64_t asked = std::max<int64_t>(want, r.max_tokens == 0 ? 0 : 1);
    return ApiError{400, "This model's maximum context length is " + std::to_string(len) + " tokens. However, you requested " +
                             std::to_string(n + asked) + " tokens (" + std::to_string(n) +
                             " in the prompt, " + std::to_string(asked) + " in the completion). "
                             "Please reduce the length of the prompt or of max_tokens." +
                             (kv_pool_.max_model_len_lowered ? " (The context is what the KV cache holds: " + std::to_string(kv_pool_.bytes) + " bytes" +
                                                                    (kv_pool_.draft_bytes_per_position > 0 ? ", the draft model's cache included" : "") +
                                                                    ", --kv-cache-memory-bytes.)"
                                                              : std::string()),
                    // the prompt alone too long is the prompt's fault, whatever max_tokens says
                    r.max_tokens && n < len ? "max_tokens" : (r.endpoint == Endpoint::kChat ? "messages" : "prompt")};
  }
  vt::SamplingParams sampling = r.sampling;
  sampling.max_tokens = static_cast<int>(want);
  for (const auto& [id, bias] : sampling.logit_bias) {
    if (static_cast<size_t>(id) >= tokenizer_.size()) {
      return ApiError{400, "logit_bias names token " + std::to_string(id) + ", outside the vocabulary (" + std::to_string(tokenizer_.size()) + " tokens)",
                      "logit_bias"};
    }
  }
  auto job = std::make_shared<Job>(std::move(ids), std::move(sampling));
  job->grammar = r.grammar;
  job->special_text = r.endpoint == Endpoint::kChat && tool_format_ == ToolFormat::kHarmony;
  if (want == 0) {  // max_tokens 0 with echo: the prompt is scored, nothing is generated
    metrics_.Finished(n, 0, "length", 0, 0);
    job->Finish("length");
    return job;
  }
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

std::variant<std::vector<float>, ApiError> ServeEngine::Embed(const ServeRequest::Prompt& prompt, int64_t* tokens) {
  ServeRequest r;
  r.prompts = {prompt};
  auto ids = PromptOf(r);
  if (auto* e = std::get_if<ApiError>(&ids)) return e->param = "input", *e;
  const std::vector<int32_t>& input = std::get<std::vector<int32_t>>(ids);
  *tokens = static_cast<int64_t>(input.size());
  if (input.empty()) return ApiError{400, "the input is empty", "input"};
  if (*tokens > options_.max_model_len) {
    return ApiError{400, "the input is " + std::to_string(*tokens) + " tokens, more than the context (" + std::to_string(options_.max_model_len) + ")", "input"};
  }
  vt::StatusOr<std::vector<float>> hidden = vt::Status(vt::StatusCode::kInternal, "not run");
  // Each in a cache of its own: the serving pool's blocks are the requests'.
  bool ran = OnEngineThread([&] {
    auto cache = model_->NewCache(*tokens, options_.kv_dtype);
    hidden = cache.ok() ? model_->Hiddens(input, cache.value()) : vt::StatusOr<std::vector<float>>(cache.status());
  });
  if (!ran) return ApiError{503, "the server is shutting down", "", "ServiceUnavailableError"};
  if (!hidden.ok()) return ApiError{500, hidden.status().message(), "", "InternalServerError"};
  return Pool(hidden.value(), model_->hparams().n_embd, pooling_);
}

std::variant<std::vector<LogprobEntry>, ApiError> ServeEngine::PromptLogprobs(const std::vector<int32_t>& ids, int top_n,
                                                                             const std::function<bool()>& gone) {
  vt::PromptScorer scorer(*model_, ids, top_n, options_.kv_dtype);
  // A chunk a turn of the engine thread: running sequences step between chunks (a whole prompt
  // at once stalled them for seconds), and a client that left stops the pass.
  vt::Status status;
  while (status.ok() && !scorer.done()) {
    if (gone && gone()) return ApiError{499, "the client closed the request", "", "ClientClosedRequest"};
    if (!OnEngineThread([&] { status = scorer.Step(); })) return ApiError{503, "the server is shutting down", "", "ServiceUnavailableError"};
  }
  if (!status.ok()) return ApiError{500, status.message(), "", "InternalServerError"};
  std::vector<LogprobEntry> out;
  if (ids.empty()) return out;
  out.push_back(LogprobEntry{tokenizer_.Piece(ids.front(), /*special=*/true), 0, {}, /*scored=*/false});
  for (const vt::TokenLogprobs& t : scorer.scores()) out.push_back(EntryOf(tokenizer_, t));
  return out;
}

bool ServeEngine::OnEngineThread(const std::function<void()>& work) {
  Task task{&work, {}};
  auto done = task.done.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_) return false;
    tasks_.push_back(&task);
  }
  wake_.notify_all();
  done.get();
  return true;
}

// The tasks queued before this turn, without the lock: one queued while they run waits for the
// next turn, after a step (a prompt's scoring, a chunk a turn, leaves the batch room).
void ServeEngine::RunTasks(std::unique_lock<std::mutex>& lock) {
  for (size_t n = tasks_.size(); n > 0 && !tasks_.empty(); --n) {
    Task* task = tasks_.front();
    tasks_.pop_front();
    lock.unlock();
    (*task->work)();
    task->done.set_value();
    lock.lock();
  }
}

// A request that ends before it runs: aborted, and counted as the running ones are.
void ServeEngine::Abort(Job& job) {
  const double waited = std::chrono::duration<double>(Job::Clock::now() - job.arrived).count();
  metrics_.Finished(static_cast<int64_t>(job.prompt.size()), 0, "abort", waited, waited);
  job.Finish("abort");
}

// A waiting request whose client hung up holds no place in the queue.
void ServeEngine::DropCancelled() {
  for (auto& job : waiting_) {
    if (job->cancelled()) Abort(*job);
  }
  waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(), [](const auto& j) { return j->cancelled(); }), waiting_.end());
}

void ServeEngine::UpdateGauges() {
  metrics_.SetQueue(batcher_.num_running(), static_cast<int>(waiting_.size()) + batcher_.num_waiting(), batcher_.kv_usage());
}

// Admits what fits, steps the batch without the lock (HTTP threads keep queueing), then
// forgets the jobs that ended.
void ServeEngine::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    RunTasks(lock);
    DropCancelled();
    while (!waiting_.empty() && !batcher_.Full()) {
      running_.push_back(waiting_.front());
      waiting_.pop_front();
      if (running_.back()->cancelled()) Abort(*running_.back());
      else batcher_.Admit(running_.back());
    }
    running_.erase(std::remove_if(running_.begin(), running_.end(), [](const auto& j) { return j->done(); }), running_.end());
    UpdateGauges();
    if (stop_) return;
    if (batcher_.Empty()) {
      wake_.wait(lock, [this] { return stop_ || !waiting_.empty() || !tasks_.empty(); });
      continue;
    }
    lock.unlock();
    batcher_.Step();
    lock.lock();
  }
}

}  // namespace vtserve
