// The forward pass of every registered architecture (architecture.h says what each one's graph
// does over llama's): every step is an op on the engine's backend, so the same code runs on
// the CPU, the reference backend and the GPUs.
#include <cmath>
#include <cstring>

#include "vt/model.h"

#include "architecture.h"

namespace vt {
namespace {

// Ops of one forward pass on one backend, allocating outputs as they go.
class Graph {
 public:
  explicit Graph(Backend& b) : b_(b) {}
  StatusOr<Tensor> New(DType t, std::array<int64_t, 4> ne) { return NewTensor(b_, t, ne); }
  Status Run(OpKind kind, std::vector<const Tensor*> src, Tensor& out, OpParams p = {}) {
    return RunOp(b_, Op{kind, std::move(src), &out, p});
  }
  // out = kind(src...) into a fresh f32 tensor of `ne`.
  StatusOr<Tensor> Apply(OpKind kind, std::vector<const Tensor*> src, std::array<int64_t, 4> ne, OpParams p = {}) {
    auto out = New(DType::kF32, ne);
    if (!out.ok()) return out;
    VT_RETURN_IF_ERROR(Run(kind, std::move(src), out.value(), p));
    return out;
  }
  // w_i · x into a fresh f32 tensor each, run as one group (the CPU: one pool dispatch for a
  // decode's q, k and v, or its gate and up).
  StatusOr<std::vector<Tensor>> Matmuls(const std::vector<const Tensor*>& ws, const Tensor& x) {
    std::vector<Tensor> outs;
    std::vector<Op> ops;
    for (const Tensor* w : ws) {
      auto out = New(DType::kF32, {w->ne[1], x.ne[1], 1, 1});
      if (!out.ok()) return out.status();
      outs.push_back(std::move(out).value());
    }
    for (size_t i = 0; i < ws.size(); ++i) ops.push_back(Op{OpKind::kMatmul, {ws[i], &x}, &outs[i], {}});
    VT_RETURN_IF_ERROR(RunOps(b_, ops));
    return outs;
  }
  Backend& backend() { return b_; }

 private:
  Backend& b_;
};

Tensor Reshape(const Tensor& t, std::array<int64_t, 4> ne) { return View(t, ne, ContiguousStrides(t.dtype, ne), 0); }

#define VT_ASSIGN(lhs, expr)              \
  auto lhs##_or = (expr);                 \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  Tensor lhs = std::move(lhs##_or).value()

StatusOr<Tensor> NormMul(Graph& g, const Tensor& x, const Tensor& w, float eps) {
  OpParams p;
  p.eps = eps;
  VT_ASSIGN(n, g.Apply(OpKind::kRmsNorm, {&x}, x.ne, p));
  VT_RETURN_IF_ERROR(g.Run(OpKind::kMul, {&n, &w}, n));
  return n;
}

// x += b, where a file has the bias (b: [rows], broadcast over x's tokens).
Status AddBias(Graph& g, Tensor& x, const Tensor& b) { return b.data ? g.Run(OpKind::kAdd, {&x, &b}, x) : Status(); }

}  // namespace

Status Model::FeedForward(const LayerWeights& L, const Tensor& h, Tensor& out) {
  Graph g(*engine_.q.backend);
  if (is_moe()) {
    MoeWeights w{&L.ffn_gate_inp, &L.ffn_gate_exps, &L.ffn_up_exps, &L.ffn_down_exps, static_cast<int>(hp_.n_expert_used)};
    if (hp_.arch->oai_experts) {  // gpt-oss: biases after each matmul, the clamped SwiGLU
      w.router_b = &L.ffn_gate_inp_b;
      w.gate_b = &L.ffn_gate_exps_b;
      w.up_b = &L.ffn_up_exps_b;
      w.down_b = &L.ffn_down_exps_b;
      w.swiglu_oai = true;
    }
    return RunMoe(engine_, placement_, w, h, out, &moe_copies_);
  }
  auto gate_up = g.Matmuls({&L.ffn_gate, &L.ffn_up}, h);
  if (!gate_up.ok()) return gate_up.status();
  Tensor &gate = gate_up.value()[0], &up = gate_up.value()[1];
  VT_RETURN_IF_ERROR(AddBias(g, gate, L.ffn_gate_b));
  VT_RETURN_IF_ERROR(AddBias(g, up, L.ffn_up_b));
  const OpKind gating = hp_.arch->ffn == Architecture::Ffn::kGeglu ? OpKind::kGeglu : OpKind::kSwiglu;
  VT_RETURN_IF_ERROR(g.Run(gating, {&gate, &up}, gate));
  VT_RETURN_IF_ERROR(g.Run(OpKind::kMatmul, {&L.ffn_down, &gate}, out));
  return AddBias(g, out, L.ffn_down_b);
}

// One sequence's keys and values into its cache, then its queries over that cache: the only
// part of a layer a batch runs sequence by sequence. Its tokens are columns
// [offset, offset + t) of q3/k3/v3 and of the output `a`.
Status Model::Attend(int64_t l, const Tensor& q3, const Tensor& k3, const Tensor& v3, const Segment& s, Tensor& a) {
  Graph g(*engine_.q.backend);
  KvCache& cache = *s.cache;
  const int64_t hd = hp_.head_dim();
  auto cols = [&](const Tensor& t) { return View(t, {hd, t.ne[1], s.t, 1}, t.nb, s.offset * t.nb[2]); };
  Tensor q = cols(q3), k = cols(k3), v = cols(v3), out = cols(a);
  VT_RETURN_IF_ERROR(WriteKv(k, s, cache.k[l]));
  VT_RETURN_IF_ERROR(WriteKv(v, s, cache.v[l]));
  OpParams attn;
  attn.n_past = static_cast<int>(cache.n_past);
  attn.scale = hp_.attention_scale;  // 0: 1/sqrt(head_dim)
  attn.window = hp_.is_swa(l) ? static_cast<int>(hp_.n_swa) : 0;
  std::vector<const Tensor*> src{&q, &cache.k[l], &cache.v[l]};
  if (layers_[l].attn_sinks.data) src.push_back(&layers_[l].attn_sinks);  // gpt-oss
  if (s.rows.data) src.push_back(&s.rows);
  return g.Run(OpKind::kAttention, std::move(src), out, attn);
}

// A segment's new keys (or values) `src` [hd, hkv, t] into the rows of its positions, converted
// to the cache's dtype: one copy, or one per run of consecutive rows in a paged cache.
Status Model::WriteKv(const Tensor& src, const Segment& s, Tensor& cache) {
  Graph g(*engine_.q.backend);
  OpParams copy;
  copy.out_dtype = cache.dtype;
  const KvCache& c = *s.cache;
  for (int64_t i0 = 0, i1; i0 < s.t; i0 = i1) {
    const int64_t row = c.Row(c.n_past + i0);
    for (i1 = i0 + 1; i1 < s.t && c.Row(c.n_past + i1) == row + (i1 - i0);) ++i1;
    Tensor from = View(src, {src.ne[0], src.ne[1], i1 - i0, 1}, src.nb, i0 * src.nb[2]);
    Tensor to = View(cache, from.ne, cache.nb, row * cache.nb[2]);
    VT_RETURN_IF_ERROR(g.Run(OpKind::kCopy, {&from}, to, copy));
  }
  return Status();
}

// The attention block of layer l over the normalised hidden state h: its output projection,
// into `o` [n_embd, T].
Status Model::SelfAttention(int64_t l, const Tensor& h, const Tensor& pos, const std::vector<Segment>& segments, Tensor& o) {
  const LayerWeights& L = layers_[l];
  Graph g(*engine_.q.backend);
  int64_t hd = hp_.head_dim(), hkv = hp_.n_head_kv, t = h.ne[1];
  auto qkv = g.Matmuls({&L.wq, &L.wk, &L.wv}, h);
  if (!qkv.ok()) return qkv.status();
  Tensor &q = qkv.value()[0], &k = qkv.value()[1], &v = qkv.value()[2];
  VT_RETURN_IF_ERROR(AddBias(g, q, L.bq));
  VT_RETURN_IF_ERROR(AddBias(g, k, L.bk));
  VT_RETURN_IF_ERROR(AddBias(g, v, L.bv));
  if (hp_.arch->qk_norm_whole) {  // olmo2: Q and K each normalised over all of their heads at once
    VT_ASSIGN(qn, NormMul(g, q, L.attn_q_norm, hp_.rms_eps));
    VT_ASSIGN(kn, NormMul(g, k, L.attn_k_norm, hp_.rms_eps));
    q = qn;
    k = kn;
  }
  OpParams rope;
  rope.n_dims = static_cast<int>(hp_.n_rot);
  rope.freq_base = hp_.is_swa(l) ? hp_.rope_freq_base_swa : hp_.rope_freq_base;  // windowed layers: their own
  rope.freq_scale = hp_.is_swa(l) ? hp_.rope_freq_scale_swa : hp_.rope_freq_scale;
  rope.freq_factors = rope_factors_.empty() ? nullptr : rope_factors_.data();
  if (!hp_.is_swa(l) || hp_.swa_yarn) {  // windowed layers rotate plainly (olmo2's graph), but gpt-oss's
    rope.ext_factor = hp_.rope_ext_factor;
    rope.mscale = hp_.rope_mscale;
    rope.n_ctx_orig = static_cast<int>(hp_.n_ctx_orig);
  }
  rope.rope_neox = hp_.arch->rope_neox;
  Tensor q3 = Reshape(q, {hd, hp_.n_head, t, 1}), k3 = Reshape(k, {hd, hkv, t, 1}), v3 = Reshape(v, {hd, hkv, t, 1});
  if (hp_.arch->qk_norm) {  // qwen3: each head of Q and K normalised on its own, then RoPE
    VT_ASSIGN(qn, NormMul(g, q3, L.attn_q_norm, hp_.rms_eps));
    VT_ASSIGN(kn, NormMul(g, k3, L.attn_k_norm, hp_.rms_eps));
    q3 = qn;
    k3 = kn;
  }
  VT_RETURN_IF_ERROR(g.Run(OpKind::kRope, {&q3, &pos}, q3, rope));  // each token at its own position
  VT_RETURN_IF_ERROR(g.Run(OpKind::kRope, {&k3, &pos}, k3, rope));
  VT_ASSIGN(a, g.New(DType::kF32, q3.ne));
  for (const Segment& s : segments) VT_RETURN_IF_ERROR(Attend(l, q3, k3, v3, s, a));
  Tensor a2 = Reshape(a, {hp_.q_dim(), t, 1, 1});
  VT_RETURN_IF_ERROR(g.Run(OpKind::kMatmul, {&L.wo, &a2}, o));
  return AddBias(g, o, L.bo);
}

Status Model::Layer(int64_t l, Tensor& x, const Tensor& pos, const std::vector<Segment>& segments) {
  const LayerWeights& L = layers_[l];
  Graph g(*engine_.q.backend);
  int64_t d = hp_.n_embd, t = x.ne[1];
  // olmo2 has no norm before either block: each reads the residual stream itself.
  VT_ASSIGN(h, hp_.arch->pre_norms ? NormMul(g, x, L.attn_norm, hp_.rms_eps) : StatusOr<Tensor>(x));
  VT_ASSIGN(o, g.New(DType::kF32, {d, t, 1, 1}));
  VT_RETURN_IF_ERROR(SelfAttention(l, h, pos, segments, o));
  if (hp_.arch->sandwich_norms) {  // Gemma: each block's output normalised before its residual add
    VT_ASSIGN(on, NormMul(g, o, L.attn_post_norm, hp_.rms_eps));
    o = on;
  }
  VT_RETURN_IF_ERROR(g.Run(OpKind::kAdd, {&x, &o}, x));
  VT_ASSIGN(h2, hp_.arch->pre_norms ? NormMul(g, x, L.ffn_norm, hp_.rms_eps) : StatusOr<Tensor>(x));
  VT_ASSIGN(f, g.New(DType::kF32, {d, t, 1, 1}));
  VT_RETURN_IF_ERROR(FeedForward(L, h2, f));
  if (hp_.arch->sandwich_norms) {
    VT_ASSIGN(fn, NormMul(g, f, L.ffn_post_norm, hp_.rms_eps));
    f = fn;
  }
  return g.Run(OpKind::kAdd, {&x, &f}, x);
}

// A paged segment's row map on the device, once for all its layers' attention.
Status Model::PagedRows(Segment& s) {
  const KvCache& c = *s.cache;
  if (c.block_size <= 0) return Status();
  std::vector<int32_t> rows(static_cast<size_t>(c.n_past + s.t));
  for (size_t j = 0; j < rows.size(); ++j) rows[j] = static_cast<int32_t>(c.Row(static_cast<int64_t>(j)));
  Graph g(*engine_.q.backend);
  VT_ASSIGN(t, g.New(DType::kI32, {static_cast<int64_t>(rows.size()), 1, 1, 1}));
  VT_RETURN_IF_ERROR(g.backend().CopyIn(t.data, rows.data(), 4 * rows.size()));
  s.rows = std::move(t);
  return Status();
}

// The hidden state [n_embd, T] after every layer, each segment's tokens at its own cache's
// positions; every cache then advances by its segment.
StatusOr<Tensor> Model::Hidden(const std::vector<int32_t>& tokens, std::vector<Segment>& segments) {
  int64_t t = static_cast<int64_t>(tokens.size());
  Backend& b = *engine_.q.backend;
  Graph g(b);
  std::vector<int32_t> positions(t);
  for (const Segment& s : segments) {
    for (int64_t i = 0; i < s.t; ++i) positions[s.offset + i] = static_cast<int32_t>(s.cache->n_past + i);
  }
  VT_ASSIGN(ids, g.New(DType::kI32, {t, 1, 1, 1}));
  VT_ASSIGN(pos, g.New(DType::kI32, {t, 1, 1, 1}));
  VT_RETURN_IF_ERROR(b.CopyIn(ids.data, tokens.data(), 4 * t));
  VT_RETURN_IF_ERROR(b.CopyIn(pos.data, positions.data(), 4 * t));
  VT_ASSIGN(x, g.Apply(OpKind::kGetRows, {&tok_embd_, &ids}, {hp_.n_embd, t, 1, 1}));
  for (Segment& s : segments) VT_RETURN_IF_ERROR(PagedRows(s));
  if (hp_.arch->embedding_scale) {  // Gemma: √n_embd, in f32 as ggml_scale's sqrtf
    OpParams scale;
    scale.scale = std::sqrt(static_cast<float>(hp_.n_embd));
    VT_RETURN_IF_ERROR(g.Run(OpKind::kScale, {&x}, x, scale));
  }
  for (int64_t l = 0; l < hp_.n_layer; ++l) VT_RETURN_IF_ERROR(Layer(l, x, pos, segments));
  for (const Segment& s : segments) s.cache->n_past += s.t;
  return x;
}

// Final norm and output projection of x's columns, copied out: [n_vocab] per column.
StatusOr<std::vector<float>> Model::Logits(const Tensor& x) {
  Backend& b = *engine_.q.backend;
  Graph g(b);
  VT_ASSIGN(n, NormMul(g, x, output_norm_, hp_.rms_eps));
  VT_ASSIGN(logits, g.Apply(OpKind::kMatmul, {&output_, &n}, {hp_.n_vocab, n.ne[1], 1, 1}));
  std::vector<float> out(static_cast<size_t>(logits.NumElements()));
  VT_RETURN_IF_ERROR(b.CopyOut(out.data(), logits.data, logits.ByteSize()));
  // Soft-capping, on the host: one tanh per logit of the few rows a step returns.
  if (const float c = hp_.logit_softcap; c > 0) {
    for (float& v : out) v = c * std::tanh(v * (1.0f / c));  // ggml_scale by 1/c, tanh, scale by c
  }
  return out;
}

// What Forward and Hiddens take: some tokens, each in the vocabulary, that fit the cache.
Status Model::CheckTokens(const std::vector<int32_t>& tokens, const KvCache& cache, const char* who) const {
  const int64_t t = static_cast<int64_t>(tokens.size());
  if (t == 0) return Status(StatusCode::kInvalidArgument, std::string(who) + ": no tokens");
  if (cache.n_past + t > cache.n_ctx) return Status(StatusCode::kOutOfRange, std::string(who) + ": the KV cache is full");
  VT_RETURN_IF_ERROR(CheckBlocks(cache, std::string(who) + ": "));
  for (int32_t id : tokens) {
    if (id < 0 || id >= hp_.n_vocab) return Status(StatusCode::kInvalidArgument, std::string(who) + ": token id " + std::to_string(id) + " out of range");
  }
  return Status();
}

StatusOr<std::vector<float>> Model::Forward(const std::vector<int32_t>& tokens, KvCache& cache, bool all_logits) {
  VT_RETURN_IF_ERROR(CheckTokens(tokens, cache, "Forward"));
  const int64_t t = static_cast<int64_t>(tokens.size());
  std::vector<Segment> segments{Segment{&cache, 0, t, {}}};
  VT_ASSIGN(x, Hidden(tokens, segments));
  return Logits(all_logits ? x : View(x, {hp_.n_embd, 1, 1, 1}, x.nb, (t - 1) * x.nb[1]));
}

StatusOr<std::vector<float>> Model::Hiddens(const std::vector<int32_t>& tokens, KvCache& cache) {
  VT_RETURN_IF_ERROR(CheckTokens(tokens, cache, "Hiddens"));
  std::vector<Segment> segments{Segment{&cache, 0, static_cast<int64_t>(tokens.size()), {}}};
  VT_ASSIGN(x, Hidden(tokens, segments));
  Backend& b = *engine_.q.backend;
  Graph g(b);
  VT_ASSIGN(n, NormMul(g, x, output_norm_, hp_.rms_eps));
  std::vector<float> out(static_cast<size_t>(n.NumElements()));
  VT_RETURN_IF_ERROR(b.CopyOut(out.data(), n.data, n.ByteSize()));
  return out;
}

Status Model::CheckBatch(const std::vector<BatchEntry>& batch) const {
  if (batch.empty()) return Status(StatusCode::kInvalidArgument, "ForwardBatch: no sequences");
  for (size_t i = 0; i < batch.size(); ++i) {
    const BatchEntry& e = batch[i];
    std::string entry = "ForwardBatch: entry " + std::to_string(i) + ": ";
    if (!e.cache) return Status(StatusCode::kInvalidArgument, entry + "no cache");
    if (e.tokens.empty()) return Status(StatusCode::kInvalidArgument, entry + "no tokens");
    if (e.n_logits < 1 || e.n_logits > static_cast<int64_t>(e.tokens.size())) {
      return Status(StatusCode::kInvalidArgument, entry + "n_logits " + std::to_string(e.n_logits) + " is not in [1, its " +
                                                      std::to_string(e.tokens.size()) + " tokens]");
    }
    if (e.cache->n_past + static_cast<int64_t>(e.tokens.size()) > e.cache->n_ctx) {
      return Status(StatusCode::kOutOfRange, entry + "the KV cache is full");
    }
    VT_RETURN_IF_ERROR(CheckBlocks(*e.cache, entry));
    for (size_t j = 0; j < i; ++j) {
      if (batch[j].cache == e.cache) return Status(StatusCode::kInvalidArgument, entry + "its cache is entry " + std::to_string(j) + "'s too");
    }
    for (int32_t id : e.tokens) {
      if (id < 0 || id >= hp_.n_vocab) return Status(StatusCode::kInvalidArgument, entry + "token id " + std::to_string(id) + " out of range");
    }
  }
  return Status();
}

// A paged cache's table covers n_ctx and names only blocks of its pool.
Status Model::CheckBlocks(const KvCache& c, const std::string& entry) const {
  if (c.block_size <= 0) return Status();
  if (c.n_ctx > static_cast<int64_t>(c.blocks.size()) * c.block_size || c.k.empty()) {
    return Status(StatusCode::kInvalidArgument, entry + "the block table is shorter than n_ctx");
  }
  const int64_t n_blocks = c.k[0].ne[2] / c.block_size;
  for (int32_t b : c.blocks) {
    if (b < 0 || b >= n_blocks) {
      return Status(StatusCode::kInvalidArgument, entry + "block " + std::to_string(b) + " is outside the pool of " + std::to_string(n_blocks));
    }
  }
  return Status();
}

StatusOr<std::vector<std::vector<float>>> Model::ForwardBatch(const std::vector<BatchEntry>& batch) {
  VT_RETURN_IF_ERROR(CheckBatch(batch));
  std::vector<int32_t> tokens;
  std::vector<Segment> segments;
  for (const BatchEntry& e : batch) {
    segments.push_back(Segment{e.cache, static_cast<int64_t>(tokens.size()), static_cast<int64_t>(e.tokens.size()), {}});
    tokens.insert(tokens.end(), e.tokens.begin(), e.tokens.end());
  }
  VT_ASSIGN(x, Hidden(tokens, segments));
  // Each sequence's last n_logits columns, side by side: one output projection for all.
  Graph g(*engine_.q.backend);
  int64_t d = hp_.n_embd, n = 0;
  for (const BatchEntry& e : batch) n += e.n_logits;
  VT_ASSIGN(last, g.New(DType::kF32, {d, n, 1, 1}));
  int64_t col = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const int64_t k = batch[i].n_logits, from = segments[i].offset + segments[i].t - k;
    Tensor rows = View(x, {d, k, 1, 1}, x.nb, from * x.nb[1]);
    Tensor slot = View(last, {d, k, 1, 1}, last.nb, col * last.nb[1]);
    VT_RETURN_IF_ERROR(g.Run(OpKind::kCopy, {&rows}, slot));
    col += k;
  }
  auto flat = Logits(last);
  if (!flat.ok()) return flat.status();
  std::vector<std::vector<float>> out(batch.size());
  const size_t vocab = static_cast<size_t>(hp_.n_vocab);
  size_t at = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t size = static_cast<size_t>(batch[i].n_logits) * vocab;
    out[i].assign(flat->begin() + static_cast<long>(at), flat->begin() + static_cast<long>(at + size));
    at += size;
  }
  return out;
}

}  // namespace vt
