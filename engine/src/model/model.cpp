// Loading a llama model: hyper-parameters from GGUF metadata, weights by llama.cpp's names.
#include "vt/model.h"

#include <cmath>

#include "architecture.h"

namespace vt {
namespace {

Status Missing(const std::string& what) { return Status(StatusCode::kInvalidArgument, "gguf: missing " + what); }

// An integer key, or `fallback` where absent; present, it must be at least `min` (a count of
// 0 layers or heads is refused naming its key, not met later as a shape or division error).
StatusOr<int64_t> IntKey(const GgufFile& f, const std::string& key, std::optional<int64_t> fallback = std::nullopt, int64_t min = 0) {
  const GgufValue* v = f.Find(key);
  if (!v) {
    if (fallback) return *fallback;
    return Missing("key " + key);
  }
  auto i = v->AsInt();
  if (!i || *i < min) return Status(StatusCode::kInvalidArgument, "gguf: key " + key + (min > 0 ? " is not a positive integer" : " is not a non-negative integer"));
  return *i;
}

float FloatKey(const GgufFile& f, const std::string& key, float fallback) {
  const GgufValue* v = f.Find(key);
  return v && v->AsFloat() ? static_cast<float>(*v->AsFloat()) : fallback;
}

// A number key, or `fallback` where absent; present, it must be a finite number above `min`
// (at least `min` where `or_equal`), or the file is refused naming it, never read as the default.
StatusOr<float> NumberKey(const GgufFile& f, const std::string& key, float fallback, float min, bool or_equal) {
  const GgufValue* v = f.Find(key);
  if (!v) return fallback;
  std::optional<double> x = v->AsFloat();
  if (!x || !std::isfinite(*x) || *x < min || (!or_equal && *x == min)) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + key + " must be a finite number " + (or_equal ? "at least " : "above ") +
                                                    std::to_string(static_cast<int>(min)));
  }
  return static_cast<float>(*x);
}

std::string Shape(const std::array<int64_t, 4>& ne) {
  return "[" + std::to_string(ne[0]) + "," + std::to_string(ne[1]) + "," + std::to_string(ne[2]) + "]";
}

// Head counts, and the head size: <arch>.attention.key_length where given (it may differ from
// n_embd / n_head), the values' the same (llama.cpp's llama builds assert it too).
Status HeadSizes(const GgufFile& f, const std::string& a, Hparams* hp) {
  if (hp->n_head == 0 || hp->n_head_kv == 0 || hp->n_head % hp->n_head_kv) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + a + ".attention.head_count_kv must divide " + a + ".attention.head_count");
  }
  auto key = IntKey(f, a + ".attention.key_length", 0, 1);  // absent: n_embd / n_head; present: > 0
  if (!key.ok()) return key.status();
  if (key.value() == 0 && hp->n_embd % hp->n_head) {
    return Status(StatusCode::kInvalidArgument, "gguf: head counts do not divide the embedding");
  }
  hp->n_head_dim = key.value() ? key.value() : hp->n_embd / hp->n_head;
  auto value = IntKey(f, a + ".attention.value_length", hp->n_head_dim);
  if (!value.ok()) return value.status();
  if (value.value() != hp->n_head_dim) {
    return Status(StatusCode::kUnimplemented, "gguf: " + a + ".attention.value_length " + std::to_string(value.value()) +
                                                  " differs from the key length " + std::to_string(hp->n_head_dim) +
                                                  " (vt's " + a + ", as llama.cpp's, needs them equal)");
  }
  return Status();
}

// Linear scaling divides the positions by <arch>.rope.scaling.factor (or the older
// <arch>.rope.scale_linear; 0 means none, as in llama.cpp); YaRN mixes that with the unscaled
// angle pair by pair (vt/ops.h). Other scaling types (LongRoPE) change the angles in ways vt
// does not compute: refused, not run wrong.
Status RopeScaling(const GgufFile& f, const std::string& a, Hparams* hp) {
  const GgufValue* type = f.Find(a + ".rope.scaling.type");
  std::string kind = type && type->AsString() ? *type->AsString() : "linear";
  if (type && (!type->AsString() || (kind != "none" && kind != "linear" && kind != "yarn"))) {
    std::string name = type->AsString() ? "\"" + kind + "\"" : "(not a string)";
    return Status(StatusCode::kUnimplemented, "gguf: " + a + ".rope.scaling.type " + name + " is not supported (vt scales RoPE linearly, by YaRN or not at all)");
  }
  float factor = FloatKey(f, a + ".rope.scaling.factor", FloatKey(f, a + ".rope.scale_linear", 0.0f));
  const GgufValue* given = f.Find(a + ".rope.scaling.factor");
  if (!(factor >= 0) || std::isinf(factor) || (given && !given->AsFloat())) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + a + ".rope.scaling.factor must be a positive number");
  }
  hp->rope_freq_scale = factor == 0 || kind == "none" ? 1.0f : 1.0f / factor;
  float attn_factor = FloatKey(f, a + ".rope.scaling.attn_factor", 1.0f);
  const GgufValue* attn_given = f.Find(a + ".rope.scaling.attn_factor");
  if (!(attn_factor > 0) || std::isinf(attn_factor) || (attn_given && !attn_given->AsFloat())) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + a + ".rope.scaling.attn_factor must be a positive number");
  }
  hp->rope_mscale = attn_factor;
  if (kind != "yarn") return Status();
  // As llama.cpp's context sets YaRN up: its magnitude correction get_mscale(s) is cancelled
  // against the one ggml's rope applies, leaving attn_factor where the factor exceeds 1.
  const float s = 1.0f / hp->rope_freq_scale, ms = s <= 1.0f ? 1.0f : 0.1f * std::log(s) + 1.0f;
  hp->rope_ext_factor = 1.0f;
  hp->rope_mscale = attn_factor * ms / (1.0f + 0.1f * std::log(s));
  VT_ASSIGN_OR_RETURN(hp->n_ctx_orig, IntKey(f, a + ".rope.scaling.original_context_length", hp->n_ctx_train));
  if (hp->n_ctx_orig == 0) return Status(StatusCode::kInvalidArgument, "gguf: " + a + ".rope.scaling.original_context_length must be positive");
  return Status();
}

// The experts: <arch>.expert_count and _used_count, and their width (<arch>.expert_feed_forward_length
// where the architecture has it, else feed_forward_length), as the architecture allows them.
Status Experts(const GgufFile& f, const Architecture& arch, Hparams* hp) {
  const std::string a = arch.name;
  VT_ASSIGN_OR_RETURN(hp->n_expert, IntKey(f, a + ".expert_count", 0));
  VT_ASSIGN_OR_RETURN(hp->n_expert_used, IntKey(f, a + ".expert_used_count", 0));
  if (hp->n_expert > 0 && arch.experts == Architecture::Experts::kNone) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + a + " has no experts, but " + a + ".expert_count is " + std::to_string(hp->n_expert));
  }
  if (hp->n_expert == 0 && arch.experts == Architecture::Experts::kRequired) return Missing("key " + a + ".expert_count (" + a + " is a MoE)");
  if (hp->n_expert > 0 && (hp->n_expert_used < 1 || hp->n_expert_used > hp->n_expert)) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + a + ".expert_used_count must be in 1.." + a + ".expert_count");
  }
  hp->n_ff_exp = hp->n_ff;
  if (arch.expert_ff_key && hp->n_expert > 0) {  // a macro of several statements: braces
    VT_ASSIGN_OR_RETURN(hp->n_ff_exp, IntKey(f, a + ".expert_feed_forward_length"));
  }
  return Status();
}

}  // namespace

// Keys as llama.cpp names them (LLM_KV_NAMES): the architecture's name, then the key.
StatusOr<Hparams> ReadHparams(const GgufFile& f) {
  const GgufValue* name = f.Find("general.architecture");
  if (!name) return Missing("key general.architecture");
  if (!name->AsString()) return Status(StatusCode::kInvalidArgument, "gguf: general.architecture is not a string");
  const Architecture* arch = FindArchitecture(*name->AsString());
  if (!arch) {
    return Status(StatusCode::kUnimplemented, "unsupported architecture \"" + *name->AsString() + "\" (vt runs " + SupportedArchitectures() + ")");
  }
  const std::string a = arch->name;
  Hparams hp;
  hp.arch = arch;
  VT_ASSIGN_OR_RETURN(hp.n_embd, IntKey(f, a + ".embedding_length", std::nullopt, 1));
  VT_ASSIGN_OR_RETURN(hp.n_layer, IntKey(f, a + ".block_count", std::nullopt, 1));
  // Every layer has tensors of its own: a count past the file's tensors is a wrong key, refused
  // before a vector of that many layers is allocated (10^7 of them threw bad_alloc).
  if (hp.n_layer > static_cast<int64_t>(f.tensors().size())) {
    return Status(StatusCode::kInvalidArgument, "gguf: key " + a + ".block_count " + std::to_string(hp.n_layer) + " is more layers than the file's " +
                                                    std::to_string(f.tensors().size()) + " tensors can hold");
  }
  VT_ASSIGN_OR_RETURN(hp.n_head, IntKey(f, a + ".attention.head_count", std::nullopt, 1));
  VT_ASSIGN_OR_RETURN(hp.n_ff, IntKey(f, a + ".feed_forward_length"));
  VT_ASSIGN_OR_RETURN(hp.n_head_kv, IntKey(f, a + ".attention.head_count_kv", hp.n_head, 1));
  VT_ASSIGN_OR_RETURN(hp.n_ctx_train, IntKey(f, a + ".context_length", 2048));
  VT_RETURN_IF_ERROR(Experts(f, *arch, &hp));
  VT_RETURN_IF_ERROR(HeadSizes(f, a, &hp));
  VT_ASSIGN_OR_RETURN(hp.n_rot, IntKey(f, a + ".rope.dimension_count", hp.head_dim()));
  if (hp.n_rot % 2 || hp.n_rot > hp.head_dim()) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + a + ".rope.dimension_count " + std::to_string(hp.n_rot) +
                                                    " must be even and at most the head size " + std::to_string(hp.head_dim()));
  }
  VT_ASSIGN_OR_RETURN(hp.rope_freq_base, NumberKey(f, a + ".rope.freq_base", 10000.0f, 0, false));
  VT_RETURN_IF_ERROR(RopeScaling(f, a, &hp));
  VT_ASSIGN_OR_RETURN(hp.rms_eps, NumberKey(f, a + ".attention.layer_norm_rms_epsilon", 1e-5f, 0, true));
  const GgufTensorInfo* embd = f.FindTensor("token_embd.weight");
  if (!embd) return Missing("tensor token_embd.weight");
  hp.n_vocab = embd->ne[1];
  // One embedding row per token, as llama.cpp requires: a token past the rows would be read
  // out of bounds, and found only when generation met it.
  const GgufValue* tokens = f.Find("tokenizer.ggml.tokens");
  if (tokens && tokens->AsArray() && static_cast<int64_t>(tokens->AsArray()->size()) != hp.n_vocab) {
    return Status(StatusCode::kInvalidArgument, "gguf: token_embd.weight has " + std::to_string(hp.n_vocab) +
                                                    " rows, but tokenizer.ggml.tokens has " +
                                                    std::to_string(tokens->AsArray()->size()) + " tokens (one row per token)");
  }
  if (arch->read_keys) VT_RETURN_IF_ERROR(arch->read_keys(f, &hp));
  return hp;
}

StatusOr<std::unique_ptr<Model>> Model::Load(std::shared_ptr<const GgufFile> file, Engine engine,
                                                       const PlacementQueue* placement) {
  auto hp = ReadHparams(*file);
  if (!hp.ok()) return hp.status();
  std::unique_ptr<Model> m(new Model());
  m->file_ = std::move(file);
  m->engine_ = engine;
  m->placement_ = placement;
  m->hp_ = hp.value();
  VT_RETURN_IF_ERROR(m->LoadWeights());
  return m;
}

StatusOr<Tensor> Model::Weight(const std::string& name, bool on_placement, bool optional, bool matmul) {
  if (optional && !file_->FindTensor(name)) return Tensor{};
  auto view = file_->TensorView(name);
  if (!view.ok()) return view.status();
  read_.insert(name);
  auto placed = Place(view.value(), on_placement, matmul);
  // A copy (another device, or the CPU's own order) leaves the mapping's pages unused.
  if (placed.ok() && placed->data != view->data) copied_.push_back(name);
  if (placed.ok()) held_[std::string(DTypeName(placed->dtype))] += static_cast<int64_t>(placed->ByteSize());
  return placed;
}

StatusOr<Tensor> Model::Place(const Tensor& view, bool on_placement, bool matmul) {
  const Queue& q = on_placement && placement_ ? placement_->q() : engine_.q;
  // The mapping is the weight, no copy, unless the CPU reads a matmul's weights in its own
  // order (Q4_0 interleaved: vt/quant.h).
  if (q.device.type == DeviceType::kCPU) return matmul ? q.backend->AdoptMatmulWeight(view) : view;
  auto t = NewTensor(*q.backend, view.dtype, view.ne);
  if (!t.ok()) return t.status();
  VT_RETURN_IF_ERROR(CopyTensor(view, t.value()));
  return t;
}

// A tensor the architecture reads is not in the file: named, with the shape it must have.
Status Model::MissingTensor(const std::string& name, std::array<int64_t, 4> ne) const {
  return Status(StatusCode::kInvalidArgument, "gguf: missing tensor " + name + " (" + hp_.arch->name + " reads it, shape " + Shape(ne) + ")");
}

// `matrix`: a matmul's weights (not a norm, nor the token embedding's GetRows table).
Status Model::LoadTensor(const std::string& name, Tensor* out, std::array<int64_t, 4> ne, bool placed, bool matrix) {
  if (!file_->FindTensor(name)) return MissingTensor(name, ne);
  auto t = Weight(name, placed, false, matrix);
  if (!t.ok()) return t.status();
  if (t->ne != ne) return Status(StatusCode::kInvalidArgument, "gguf: " + name + " has shape " + Shape(t->ne) + ", expected " + Shape(ne));
  *out = std::move(t).value();
  return Status();
}

// An optional bias, added after its matmul: f32 (llama.cpp's converters keep 1-D tensors so).
// `read` false: the architecture has no such bias (a file that has one is refused, as unread).
Status Model::LoadBias(const std::string& name, Tensor* out, int64_t n, bool read) {
  const GgufTensorInfo* info = file_->FindTensor(name);
  if (!info || !read) return Status();
  if (info->dtype != DType::kF32 || info->ne != std::array<int64_t, 4>{n, 1, 1, 1}) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + name + " must be f32 [" + std::to_string(n) + "], not " +
                                                    std::string(DTypeName(info->dtype)) + " " + Shape(info->ne));
  }
  auto t = Weight(name, false, false, false);
  if (!t.ok()) return t.status();
  *out = std::move(t).value();
  return Status();
}

Status Model::LoadWeights() {
  int64_t d = hp_.n_embd;
  VT_RETURN_IF_ERROR(LoadTensor("token_embd.weight", &tok_embd_, {d, hp_.n_vocab, 1, 1}, false, false));
  VT_RETURN_IF_ERROR(LoadTensor("output_norm.weight", &output_norm_, {d, 1, 1, 1}, false, false));
  auto output = Weight("output.weight", false, /*optional=*/true, /*matmul=*/true);
  if (!output.ok()) return output.status();
  output_ = output->data ? std::move(output).value() : tok_embd_;  // tied embeddings
  VT_RETURN_IF_ERROR(LoadRopeFactors());
  layers_.resize(hp_.n_layer);
  for (int64_t l = 0; l < hp_.n_layer; ++l) VT_RETURN_IF_ERROR(LoadLayer(l));
  // A weight vt would not read is a model it does not compute: refused, not ignored (as
  // llama.cpp refuses a file with tensors its graph does not create).
  for (const GgufTensorInfo& info : file_->tensors()) {
    if (!read_.count(info.name)) {
      return Status(StatusCode::kUnimplemented, "gguf: tensor " + info.name + " is not one vt's " + hp_.arch->name +
                                                    " reads (refused rather than ignored)");
    }
  }
  for (const std::string& name : copied_) file_->ReleasePages(name);
  return Status();
}

Status Model::LoadLayer(int64_t l) {
  int64_t d = hp_.n_embd, e = hp_.n_expert;
  std::string p = "blk." + std::to_string(l) + ".";
  LayerWeights& L = layers_[l];
  if (hp_.arch->pre_norms) {
    VT_RETURN_IF_ERROR(LoadTensor(p + "attn_norm.weight", &L.attn_norm, {d, 1, 1, 1}, false, false));
    VT_RETURN_IF_ERROR(LoadTensor(p + hp_.arch->ffn_norm + ".weight", &L.ffn_norm, {d, 1, 1, 1}, false, false));
  }
  VT_RETURN_IF_ERROR(LoadAttention(p, L));
  if (hp_.arch->sandwich_norms) {
    VT_RETURN_IF_ERROR(LoadTensor(p + "post_attention_norm.weight", &L.attn_post_norm, {d, 1, 1, 1}, false, false));
    VT_RETURN_IF_ERROR(LoadTensor(p + "post_ffw_norm.weight", &L.ffn_post_norm, {d, 1, 1, 1}, false, false));
  }
  if (e == 0 && hp_.arch->fused_gate_up) return LoadFusedGateUp(p, L);
  if (e == 0) {
    VT_RETURN_IF_ERROR(LoadTensor(p + "ffn_gate.weight", &L.ffn_gate, {d, hp_.n_ff, 1, 1}));
    VT_RETURN_IF_ERROR(LoadTensor(p + "ffn_up.weight", &L.ffn_up, {d, hp_.n_ff, 1, 1}));
    VT_RETURN_IF_ERROR(LoadTensor(p + "ffn_down.weight", &L.ffn_down, {hp_.n_ff, d, 1, 1}));
    const bool biases = hp_.arch->biases;
    VT_RETURN_IF_ERROR(LoadBias(p + "ffn_gate.bias", &L.ffn_gate_b, hp_.n_ff, biases));
    VT_RETURN_IF_ERROR(LoadBias(p + "ffn_up.bias", &L.ffn_up_b, hp_.n_ff, biases));
    return LoadBias(p + "ffn_down.bias", &L.ffn_down_b, d, biases);
  }
  const int64_t f = hp_.n_ff_exp;
  VT_RETURN_IF_ERROR(LoadTensor(p + "ffn_gate_inp.weight", &L.ffn_gate_inp, {d, e, 1, 1}, true));
  if (hp_.arch->oai_experts) VT_RETURN_IF_ERROR(LoadExpertBiases(p, L));
  VT_RETURN_IF_ERROR(LoadTensor(p + "ffn_gate_exps.weight", &L.ffn_gate_exps, {d, f, e, 1}, true));
  VT_RETURN_IF_ERROR(LoadTensor(p + "ffn_up_exps.weight", &L.ffn_up_exps, {d, f, e, 1}, true));
  return LoadTensor(p + "ffn_down_exps.weight", &L.ffn_down_exps, {f, d, e, 1}, true);
}

Status Model::LoadAttention(const std::string& p, LayerWeights& L) {
  int64_t d = hp_.n_embd, qd = hp_.q_dim(), kv = hp_.head_dim() * hp_.n_head_kv;
  if (file_->FindTensor(p + "attn_qkv.weight")) {
    VT_RETURN_IF_ERROR(LoadFusedQkv(p, L));
  } else {
    VT_RETURN_IF_ERROR(LoadTensor(p + "attn_q.weight", &L.wq, {d, qd, 1, 1}));
    VT_RETURN_IF_ERROR(LoadTensor(p + "attn_k.weight", &L.wk, {d, kv, 1, 1}));
    VT_RETURN_IF_ERROR(LoadTensor(p + "attn_v.weight", &L.wv, {d, kv, 1, 1}));
    VT_RETURN_IF_ERROR(LoadBias(p + "attn_q.bias", &L.bq, qd));
    VT_RETURN_IF_ERROR(LoadBias(p + "attn_k.bias", &L.bk, kv));
    VT_RETURN_IF_ERROR(LoadBias(p + "attn_v.bias", &L.bv, kv));
  }
  VT_RETURN_IF_ERROR(LoadTensor(p + "attn_output.weight", &L.wo, {qd, d, 1, 1}));
  if (hp_.arch->qk_norm || hp_.arch->qk_norm_whole) {  // per head: one weight per element of a head, shared by every head
    const bool whole = hp_.arch->qk_norm_whole;
    VT_RETURN_IF_ERROR(LoadTensor(p + "attn_q_norm.weight", &L.attn_q_norm, {whole ? qd : hp_.head_dim(), 1, 1, 1}, false, false));
    VT_RETURN_IF_ERROR(LoadTensor(p + "attn_k_norm.weight", &L.attn_k_norm, {whole ? kv : hp_.head_dim(), 1, 1, 1}, false, false));
  }
  if (hp_.arch->attn_sinks) {  // one f32 logit per query head
    const GgufTensorInfo* info = file_->FindTensor(p + "attn_sinks.weight");
    if (info && info->dtype != DType::kF32) return Status(StatusCode::kInvalidArgument, "gguf: " + p + "attn_sinks.weight must be f32");
    VT_RETURN_IF_ERROR(LoadTensor(p + "attn_sinks.weight", &L.attn_sinks, {hp_.n_head, 1, 1, 1}, false, false));
  }
  return LoadBias(p + "attn_output.bias", &L.bo, d, hp_.arch->biases);
}

// gpt-oss's router and expert biases, f32 beside the experts (on the placement device):
// the router's [E], the gate's and up's [F, E], the down's [D, E].
Status Model::LoadExpertBiases(const std::string& p, LayerWeights& L) {
  const int64_t d = hp_.n_embd, e = hp_.n_expert, f = hp_.n_ff_exp;
  const std::pair<const char*, std::pair<Tensor*, std::array<int64_t, 4>>> biases[] = {
      {"ffn_gate_inp.bias", {&L.ffn_gate_inp_b, {e, 1, 1, 1}}}, {"ffn_gate_exps.bias", {&L.ffn_gate_exps_b, {f, e, 1, 1}}},
      {"ffn_up_exps.bias", {&L.ffn_up_exps_b, {f, e, 1, 1}}},   {"ffn_down_exps.bias", {&L.ffn_down_exps_b, {d, e, 1, 1}}}};
  for (const auto& [name, where] : biases) {
    const GgufTensorInfo* info = file_->FindTensor(p + name);
    if (info && info->dtype != DType::kF32) {
      return Status(StatusCode::kInvalidArgument, "gguf: " + p + name + " must be f32, not " + std::string(DTypeName(info->dtype)));
    }
    VT_RETURN_IF_ERROR(LoadTensor(p + name, where.first, where.second, true, false));
  }
  return Status();
}

// One attn_qkv.weight whose rows are Q's, then K's, then V's (and its bias likewise): split
// into views of the mapping, each placed as its own matmul weight (the CPU interleaves each).
Status Model::LoadFusedQkv(const std::string& p, LayerWeights& L) {
  const int64_t d = hp_.n_embd, qd = hp_.q_dim(), kv = hp_.head_dim() * hp_.n_head_kv, rows[3] = {qd, kv, kv};
  auto fused = file_->TensorView(p + "attn_qkv.weight");
  if (!fused.ok()) return fused.status();
  read_.insert(p + "attn_qkv.weight");
  if (fused->ne != std::array<int64_t, 4>{d, qd + 2 * kv, 1, 1}) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + p + "attn_qkv.weight has shape " + Shape(fused->ne) + ", expected " +
                                                    Shape({d, qd + 2 * kv, 1, 1}));
  }
  Tensor bias;
  VT_RETURN_IF_ERROR(LoadBias(p + "attn_qkv.bias", &bias, qd + 2 * kv));
  Tensor* weights[3] = {&L.wq, &L.wk, &L.wv};
  Tensor* biases[3] = {&L.bq, &L.bk, &L.bv};
  for (int64_t i = 0, at = 0; i < 3; at += rows[i++]) {
    auto w = Place(View(fused.value(), {d, rows[i], 1, 1}, fused->nb, static_cast<size_t>(at) * fused->nb[1]), false, true);
    if (!w.ok()) return w.status();
    *weights[i] = std::move(w).value();
    if (bias.data) *biases[i] = View(bias, {rows[i], 1, 1, 1}, bias.nb, static_cast<size_t>(at) * bias.nb[0]);
  }
  return Status();
}

// phi3's ffn_up.weight: the gate's n_ff rows, then the up's, split into two views of the
// mapping, each placed as its own matmul weight (no copy on the CPU but its own order's).
Status Model::LoadFusedGateUp(const std::string& p, LayerWeights& L) {
  const int64_t d = hp_.n_embd, f = hp_.n_ff;
  const std::string name = p + "ffn_up.weight";
  if (!file_->FindTensor(name)) return MissingTensor(name, {d, 2 * f, 1, 1});
  auto fused = file_->TensorView(name);
  if (!fused.ok()) return fused.status();
  read_.insert(name);
  if (fused->ne != std::array<int64_t, 4>{d, 2 * f, 1, 1}) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + name + " has shape " + Shape(fused->ne) + ", expected " + Shape({d, 2 * f, 1, 1}) +
                                                    " (the gate's rows, then the up's)");
  }
  Tensor* halves[2] = {&L.ffn_gate, &L.ffn_up};
  for (int64_t i = 0; i < 2; ++i) {
    auto w = Place(View(fused.value(), {d, f, 1, 1}, fused->nb, static_cast<size_t>(i * f) * fused->nb[1]), false, true);
    if (!w.ok()) return w.status();
    *halves[i] = std::move(w).value();
  }
  return LoadTensor(p + "ffn_down.weight", &L.ffn_down, {f, d, 1, 1});
}

// Llama 3's frequency factors: one f32 divisor per rotated pair, read to host memory (every
// backend builds its angle table on the host from them).
Status Model::LoadRopeFactors() {
  const char* name = "rope_freqs.weight";
  if (!file_->FindTensor(name) || !hp_.arch->rope_freqs) return Status();
  auto view = file_->TensorView(name);
  if (!view.ok()) return view.status();
  const int64_t pairs = hp_.n_rot / 2;
  if (view->dtype != DType::kF32 || view->ne != std::array<int64_t, 4>{pairs, 1, 1, 1}) {
    return Status(StatusCode::kInvalidArgument, std::string("gguf: ") + name + " must be f32 [" + std::to_string(pairs) +
                                                    "] (one per rotated pair), not " + std::string(DTypeName(view->dtype)) + " " + Shape(view->ne));
  }
  const float* v = static_cast<const float*>(view->data);
  rope_factors_.assign(v, v + pairs);
  read_.insert(name);
  for (float x : rope_factors_) {
    if (!(x > 0) || std::isinf(x)) return Status(StatusCode::kInvalidArgument, std::string("gguf: ") + name + " has a factor that is not a positive number");
  }
  return Status();
}

StatusOr<KvCache> Model::NewCache(int64_t n_ctx, DType dtype) {
  if (dtype != DType::kF32 && dtype != DType::kF16 && dtype != DType::kBF16 && dtype != DType::kQ8_0) {
    return Status(StatusCode::kInvalidArgument, "a KV cache is f32, f16, bf16 or q8_0, not " + std::string(DTypeName(dtype)));
  }
  if (IsQuantized(dtype) && hp_.head_dim() % BlockSize(dtype) != 0) {
    return Status(StatusCode::kInvalidArgument, "a " + std::string(DTypeName(dtype)) + " KV cache needs a head dimension that is a multiple of " +
                                                    std::to_string(BlockSize(dtype)) + "; this model's is " + std::to_string(hp_.head_dim()));
  }
  KvCache c;
  c.n_ctx = n_ctx;
  for (int64_t l = 0; l < hp_.n_layer; ++l) {
    auto k = NewTensor(*engine_.q.backend, dtype, {hp_.head_dim(), hp_.n_head_kv, n_ctx, 1});
    auto v = NewTensor(*engine_.q.backend, dtype, {hp_.head_dim(), hp_.n_head_kv, n_ctx, 1});
    if (!k.ok()) return k.status();
    if (!v.ok()) return v.status();
    c.k.push_back(std::move(k).value());
    c.v.push_back(std::move(v).value());
  }
  return c;
}

StatusOr<KvCache> Model::NewKvPool(int64_t n_blocks, int64_t block_size, DType dtype) {
  if (n_blocks < 1 || block_size < 1) return Status(StatusCode::kInvalidArgument, "a KV pool needs at least one block of one position");
  auto pool = NewCache(n_blocks * block_size, dtype);
  if (!pool.ok()) return pool.status();
  pool->n_ctx = 0;
  pool->block_size = block_size;
  return pool;
}

int64_t Model::KvBytesPerPosition(DType dtype) const {
  return 2 * hp_.n_layer * static_cast<int64_t>(RowBytes(dtype, hp_.head_dim() * hp_.n_head_kv));
}

StatusOr<DType> ParseKvCacheDtype(const std::string& text, const std::string& flag) {
  if (text == "auto" || text == "f32" || text == "float32") return DType::kF32;
  if (text == "f16" || text == "float16") return DType::kF16;
  if (text == "bf16" || text == "bfloat16") return DType::kBF16;
  if (text == "q8_0") return DType::kQ8_0;
  return Status(StatusCode::kInvalidArgument,
                flag + " " + text + ": the KV cache's type must be auto, f32 (float32), f16 (float16), bf16 (bfloat16) or q8_0");
}

}  // namespace vt
