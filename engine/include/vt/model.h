// vt::Model: a model of any architecture vt runs (llama, qwen2, qwen3, qwen3moe, phi3, gemma3,
// olmo2, gpt-oss: dense or mixture of experts) loaded from GGUF, and its forward pass over a KV
// cache. What an architecture changes is its registry entry's traits
// (engine/src/model/architecture.h, one arch_*.cpp file each), composed by the shared blocks of
// engine/src/model/forward.cpp: the tools and the placement seam see only this class.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "vt/gguf.h"
#include "vt/placement.h"
#include "vt/queue.h"

namespace vt {

struct Architecture;  // engine/src/model/architecture.h: what an architecture's graph does

struct Hparams {
  const Architecture* arch = nullptr;  // general.architecture's entry in the registry
  int64_t n_vocab = 0, n_embd = 0, n_layer = 0, n_head = 0, n_head_kv = 0, n_ff = 0;
  int64_t n_ctx_train = 0, n_rot = 0, n_expert = 0, n_expert_used = 0;
  int64_t n_ff_exp = 0;    // each expert's width (MoE)
  int64_t n_head_dim = 0;  // llama.attention.key_length (0: n_embd / n_head)
  float rope_freq_base = 10000, rope_freq_scale = 1, rms_eps = 1e-5f;
  // YaRN (rope.scaling.type yarn): ext_factor 1 and the context it was trained at; mscale is
  // llama.cpp's attn_factor (rope.scaling.attn_factor, and YaRN's own correction of it).
  float rope_ext_factor = 0, rope_mscale = 1;
  int64_t n_ctx_orig = 0;
  // Sliding-window attention (gemma3): the window (0: none) and the layers that have it, every
  // one but each swa_period-th (0: all), which rotate with their own base and scale.
  int64_t n_swa = 0, swa_period = 0;
  float rope_freq_base_swa = 10000, rope_freq_scale_swa = 1;
  bool swa_yarn = false;  // the windowed layers rotate with YaRN too (gpt-oss)
  float attention_scale = 0;  // the attention's scale of q·k (0: 1/√head_dim)
  float logit_softcap = 0;    // > 0: logits become c·tanh(logits/c)
  bool is_swa(int64_t l) const { return n_swa > 0 && (swa_period == 0 || l % swa_period < swa_period - 1); }
  int64_t head_dim() const { return n_head_dim ? n_head_dim : n_embd / n_head; }
  int64_t q_dim() const { return n_head * head_dim(); }  // the queries' and attention output's width
};

struct LayerWeights {
  Tensor attn_norm, wq, wk, wv, wo, ffn_norm;
  Tensor attn_q_norm, attn_k_norm;                                   // per-head Q/K RMSNorm (qwen3)
  Tensor attn_post_norm, ffn_post_norm;                              // sandwich norms (gemma3)
  Tensor bq, bk, bv, bo;                                             // optional biases (f32)
  Tensor ffn_gate, ffn_up, ffn_down;                                 // dense
  Tensor ffn_gate_b, ffn_up_b, ffn_down_b;                           // dense, optional
  Tensor ffn_gate_inp, ffn_gate_exps, ffn_up_exps, ffn_down_exps;    // MoE (on the placement device)
  Tensor ffn_gate_inp_b, ffn_gate_exps_b, ffn_up_exps_b, ffn_down_exps_b;  // gpt-oss's MoE biases
  Tensor attn_sinks;                                                 // gpt-oss: [n_head] f32
};

struct KvCache {
  std::vector<Tensor> k, v;  // per layer [head_dim, n_head_kv, rows]
  int64_t n_ctx = 0;         // positions this sequence may fill
  int64_t n_past = 0;        // positions filled
  // Paged (block_size > 0): k and v are a pool of blocks that many sequences' caches share,
  // and position p lives in row blocks[p / block_size] · block_size + p % block_size; n_ctx is
  // at most blocks.size() · block_size. Otherwise position p is row p.
  std::vector<int32_t> blocks;
  int64_t block_size = 0;
  int64_t Row(int64_t p) const { return block_size > 0 ? blocks[p / block_size] * block_size + p % block_size : p; }
};

// One sequence's share of a batched forward pass: the tokens it adds (a chunk of its prompt,
// or its next token) at positions cache->n_past.. of its own cache.
struct BatchEntry {
  std::vector<int32_t> tokens;
  KvCache* cache = nullptr;
  int64_t n_logits = 1;  // the logits of its last n_logits positions (drafted tokens' verification)
};

class Model {
 public:
  // Reads hyper-parameters and weights. Weights live on the engine's device (views of the
  // mapped file when that is the CPU); experts live on `placement` when given.
  static StatusOr<std::unique_ptr<Model>> Load(std::shared_ptr<const GgufFile> file, Engine engine,
                                                    const PlacementQueue* placement = nullptr);

  const Hparams& hparams() const { return hp_; }
  const GgufFile& file() const { return *file_; }
  // The weights as the backends read them (the CPU's Q4_0 matmul weights interleaved).
  const std::vector<LayerWeights>& layers() const { return layers_; }
  const Tensor& token_embedding() const { return tok_embd_; }
  const Tensor& output() const { return output_; }
  bool is_moe() const { return hp_.n_expert > 0; }
  // The device crossings the MoE placement seam has made (none when the experts share the
  // engine's device): two per MoE layer per Forward, activations there and back.
  const MoeCopies& moe_copies() const { return moe_copies_; }
  // Bytes of the weights as the backends hold them, by type name (the CPU's own orders among
  // them: q4_0x16, f16x16, bf16tiles): what a start-up line says reached which layout.
  const std::map<std::string, int64_t>& held_bytes() const { return held_; }

  StatusOr<KvCache> NewCache(int64_t n_ctx, DType dtype = DType::kF32);
  // A pool of `n_blocks` blocks of `block_size` positions (no table, n_ctx 0): a sequence runs
  // on a copy given its own block table and n_ctx (vt/serve/executor.h).
  StatusOr<KvCache> NewKvPool(int64_t n_blocks, int64_t block_size, DType dtype = DType::kF32);
  // The bytes one position takes in a cache of `dtype`: keys and values of every layer.
  int64_t KvBytesPerPosition(DType dtype = DType::kF32) const;
  // Runs `tokens` at positions cache.n_past.. and advances the cache. Returns logits
  // [n_vocab, T] for every position (all_logits) or [n_vocab, 1] for the last one.
  StatusOr<std::vector<float>> Forward(const std::vector<int32_t>& tokens, KvCache& cache, bool all_logits = false);
  // Every entry's tokens in one pass (each weight read once for all of them); each entry's
  // logits of its last n_logits positions ([n_vocab, n_logits]), in order. Each cache advances
  // by its entry's tokens.
  StatusOr<std::vector<std::vector<float>>> ForwardBatch(const std::vector<BatchEntry>& batch);
  // As Forward, but each position's last hidden state after the final norm, before the output
  // projection ([n_embd, T]): what embeddings are pooled from.
  StatusOr<std::vector<float>> Hiddens(const std::vector<int32_t>& tokens, KvCache& cache);

 private:
  Model() = default;
  Status LoadWeights();
  Status LoadRopeFactors();
  Status LoadLayer(int64_t l);
  Status LoadAttention(const std::string& prefix, LayerWeights& layer);
  Status LoadExpertBiases(const std::string& prefix, LayerWeights& layer);
  Status LoadFusedQkv(const std::string& prefix, LayerWeights& layer);
  Status LoadFusedGateUp(const std::string& prefix, LayerWeights& layer);
  Status MissingTensor(const std::string& name, std::array<int64_t, 4> ne) const;
  Status LoadTensor(const std::string& name, Tensor* out, std::array<int64_t, 4> ne, bool placed = false, bool matrix = true);
  Status LoadBias(const std::string& name, Tensor* out, int64_t n, bool read = true);
  StatusOr<Tensor> Weight(const std::string& name, bool on_placement = false, bool optional = false, bool matmul = false);
  StatusOr<Tensor> Place(const Tensor& view, bool on_placement, bool matmul);
  // Where each sequence's tokens sit in a batch: columns [offset, offset + t) of x.
  struct Segment {
    KvCache* cache;
    int64_t offset, t;
    Tensor rows;  // a paged cache's rows of positions [0, n_past + t), i32 on the device
  };
  Status WriteKv(const Tensor& src, const Segment& s, Tensor& cache);
  Status CheckBatch(const std::vector<BatchEntry>& batch) const;
  Status CheckTokens(const std::vector<int32_t>& tokens, const KvCache& cache, const char* who) const;
  StatusOr<Tensor> Hidden(const std::vector<int32_t>& tokens, std::vector<Segment>& segments);
  Status PagedRows(Segment& s);
  Status CheckBlocks(const KvCache& c, const std::string& entry) const;
  Status SelfAttention(int64_t l, const Tensor& h, const Tensor& pos, const std::vector<Segment>& segments, Tensor& o);
  Status Layer(int64_t l, Tensor& x, const Tensor& pos, const std::vector<Segment>& segments);
  Status Attend(int64_t l, const Tensor& q3, const Tensor& k3, const Tensor& v3, const Segment& s, Tensor& a);
  StatusOr<std::vector<float>> Logits(const Tensor& x);
  Status FeedForward(const LayerWeights& layer, const Tensor& h, Tensor& out);

  std::shared_ptr<const GgufFile> file_;
  Engine engine_;
  const PlacementQueue* placement_ = nullptr;
  Hparams hp_;
  Tensor tok_embd_, output_norm_, output_;
  std::vector<float> rope_factors_;  // rope_freqs.weight (Llama 3), or empty
  std::set<std::string> read_;       // the file's tensors the model has read (any other: refused)
  // Tensors copied at load (another device, or the CPU's own order): their mapped pages are
  // given back once every weight is loaded, since reading the next tensor maps its neighbours'
  // pages again (the kernel's fault-around, 64 KiB) and would undo an earlier release.
  std::vector<std::string> copied_;
  std::map<std::string, int64_t> held_;  // held_bytes()
  std::vector<LayerWeights> layers_;
  MoeCopies moe_copies_;
};

// A KV cache type as a flag names it (`flag`: the flag, for the message): auto and f32/float32
// are f32, f16/float16 is f16; any other is kInvalidArgument naming the flag, the value and
// the types there are.
StatusOr<DType> ParseKvCacheDtype(const std::string& text, const std::string& flag);

// The hyper-parameters of any registered architecture, read with its own key prefix; an
// architecture vt does not run is kUnimplemented naming it and the ones it does.
StatusOr<Hparams> ReadHparams(const GgufFile& file);
// The architectures vt runs ("llama, qwen2, ..."), for messages and --help.
std::string SupportedArchitectures();

}  // namespace vt
