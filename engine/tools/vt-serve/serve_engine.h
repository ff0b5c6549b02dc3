// The model behind the server: requests are tokenized (chat through the template), queued
// first come first served, and handed to the scheduler (batcher.h), which runs them as the
// paged KV cache's blocks allow; one engine thread steps the batch. The HTTP side waits on a Job for its text.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "api_request.h"
#include "batcher.h"
#include "job.h"
#include "serve_metrics.h"
#include "tool_calls.h"
#include "vt/model.h"
#include "vt/speculative.h"
#include "vt/tokenizer.h"

namespace vtserve {

struct ServeOptions {
  std::string served_name;
  int64_t max_model_len = 0;  // 0: the model's training context
  int max_queued = 64;
  std::string chat_template;  // the text; empty: the model's tokenizer.chat_template
  int max_num_seqs = 8;             // sequences running at once (KV-cache slots)
  int max_num_batched_tokens = 2048;  // tokens per step, at least max_num_seqs
  bool warmup = true;               // a prompt and a decode step before the first request
  int64_t kv_cache_memory_bytes = 0;  // the KV pool; 0: max_num_seqs × max_model_len, at most half of MemAvailable
  int64_t block_size = 16;            // positions per KV block
  bool prefix_caching = true;
  vt::DType kv_dtype = vt::DType::kF32;  // --kv-cache-dtype
  bool kv_on_host = true;                // the pool is host memory (--device cpu): bounded by MemAvailable
  vt::SpeculativeConfig speculative;     // --speculative-config (a draft model's is Start's `draft`)
  std::string tool_call_parser;          // --tool-call-parser; empty: told by the chat template
  std::string pooling;                   // --pooling mean, last or cls; empty: the file's, else mean
};

// The KV pool Start made, for the start-up line.
struct KvPoolInfo {
  int64_t n_blocks = 0, block_size = 0, bytes = 0, bytes_per_position = 0;
  vt::DType dtype = vt::DType::kF32;  // read back from the pool made
  bool max_model_len_lowered = false;  // the default context did not fit the default budget
  int64_t draft_bytes_per_position = 0;  // of bytes_per_position, the draft model's (speculation)
};

class ServeEngine {
 public:
  // `draft`: the draft model when options.speculative names one (its vocabulary checked by
  // the caller); its KV pool has the target's blocks and counts in the budget.
  static vt::StatusOr<std::unique_ptr<ServeEngine>> Start(std::shared_ptr<const vt::GgufFile> file,
                                                          std::unique_ptr<vt::Model> model, ServeOptions options,
                                                          std::unique_ptr<vt::Model> draft = nullptr);
  ~ServeEngine();
  ServeEngine(const ServeEngine&) = delete;
  ServeEngine& operator=(const ServeEngine&) = delete;

  // Tokenizes and queues `r`, or says why not (a prompt past the context: 400; full: 503).
  std::variant<std::shared_ptr<Job>, ApiError> Submit(const ServeRequest& r);
  // An embedding (POST /v1/embeddings): the prompt's final hidden states pooled and
  // L2-normalized, run on the engine thread between steps; or a 400 (too long, unencodable).
  // `*tokens`: the prompt's.
  std::variant<std::vector<float>, ApiError> Embed(const ServeRequest::Prompt& prompt, int64_t* tokens);
  // Each prompt token's log-probability after the ones before it, with the `top_n` likeliest
  // there (completions' echo with logprobs, as vLLM's prompt logprobs; the first token has
  // none): a pass over the prompt on the engine thread, between steps.
  // `gone` (asked between chunks) says the client left: the pass stops there.
  std::variant<std::vector<LogprobEntry>, ApiError> PromptLogprobs(const std::vector<int32_t>& ids, int top_n,
                                                                   const std::function<bool()>& gone = {});
  const std::string& pooling() const { return pooling_; }
  // Shutting down: running requests stop at their next token, waiting ones end as "abort".
  void CancelAll();
  const vt::Tokenizer& tokenizer() const { return tokenizer_; }
  const ServeOptions& options() const { return options_; }
  std::string MetricsText() const { return metrics_.Text(options_.served_name); }
  double warmup_ms() const { return warmup_ms_; }  // -1: no warm-up ran (read after Start)
  const KvPoolInfo& kv_pool() const { return kv_pool_; }
  ToolFormat tool_format() const { return tool_format_; }

 private:
  ServeEngine(std::shared_ptr<const vt::GgufFile> file, std::unique_ptr<vt::Model> model, vt::Tokenizer tokenizer,
              vt::KvCache pool, KvPoolInfo info, ServeOptions options, std::unique_ptr<vt::Model> draft, SpecOptions spec);
  std::variant<std::vector<int32_t>, ApiError> PromptOf(const ServeRequest& r) const;
  std::variant<std::vector<int32_t>, ApiError> Encode(const std::string& text, bool add_special, const std::string& param) const;
  void DropCancelled();  // callers hold mutex_
  void Abort(Job& job);
  void Loop();
  void UpdateGauges();  // callers hold mutex_
  // Runs `work` on the engine thread between steps (the model is that thread's) and waits for
  // it; false when the server is stopping (`work` never runs).
  bool OnEngineThread(const std::function<void()>& work);
  void RunTasks(std::unique_lock<std::mutex>& lock);  // the engine thread's, lock held on entry

  std::shared_ptr<const vt::GgufFile> file_;
  std::unique_ptr<vt::Model> model_;
  std::unique_ptr<vt::Model> draft_;  // before batcher_, whose drafter reads it
  vt::Tokenizer tokenizer_;
  ServeOptions options_;
  KvPoolInfo kv_pool_;
  ToolFormat tool_format_ = ToolFormat::kNone;
  ServeMetrics metrics_;
  Batcher batcher_;  // the engine thread's alone
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> waiting_;
  struct Task {
    const std::function<void()>* work;
    std::promise<void> done;
  };
  std::deque<Task*> tasks_;
  std::string pooling_ = "mean";
  std::vector<std::shared_ptr<Job>> running_;  // admitted and not yet done
  bool stop_ = false;
  double warmup_ms_ = -1;          // written by the engine thread before warmed_ is set
  std::future<vt::Status> warmed_;
  std::thread worker_;
};

}  // namespace vtserve
