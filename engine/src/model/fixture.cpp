#include "vt/fixture.h"
#include "vt/quant.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <tuple>
#include <vector>

namespace vt {
namespace {

// splitmix64 + Box-Muller: the same numbers on every platform and standard library.
class Normal {
 public:
  explicit Normal(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  double Next() {
    double u1 = (Bits() >> 11) * 0x1.0p-53, u2 = (Bits() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1 + 1e-300)) * std::cos(2 * M_PI * u2);
  }

 private:
  uint64_t Bits() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

struct Builder {
  GgufWriter w;
  Normal rng;
  void Add(const std::string& name, DType dtype, std::array<int64_t, 4> ne, int n_dims, double stddev, double mean = 0,
           int64_t zero_row = -1) {
    int64_t n = ne[0] * ne[1] * ne[2] * ne[3];
    // Rows that no block of the type fits stay f16, as llama-quantize falls back to another
    // type for them (vt-fixture refuses such widths by flag before it gets here).
    if (ne[0] % BlockSize(dtype) != 0) dtype = DType::kF16;
    std::vector<float> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = i / ne[0] == zero_row ? 0.0f : static_cast<float>(mean + stddev * rng.Next());
    std::vector<uint8_t> bytes(RowBytes(dtype, n));
    if (IsQuantized(dtype)) {
      for (int64_t r = 0; r < n / ne[0]; ++r) (void)QuantizeRow(dtype, values.data() + r * ne[0], bytes.data() + r * RowBytes(dtype, ne[0]), ne[0]);
    }
    for (int64_t i = 0; i < n && !IsQuantized(dtype); ++i) {
      float v = values[static_cast<size_t>(i)];
      if (dtype == DType::kF32) std::memcpy(bytes.data() + 4 * i, &v, 4);
      uint16_t h = dtype == DType::kF16 ? F32ToF16(v) : F32ToBF16(v);
      if (dtype != DType::kF32) std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    w.AddTensor(name, dtype, ne, n_dims, bytes.data());
  }
};

// The 256 ordinary tokens: byte tokens (<0x00>..<0xFF>: text is exactly its bytes), or with
// `text` pieces that are all whole text — "▁" (a space), the 94 printable ASCII characters,
// then "▁a".."▁z", "▁A".."▁Z" and lowercase pairs — so any output decodes to valid UTF-8
// (llama-server refuses to answer output that does not: specs/vt-serve.md).
void AddOrdinaryTokens(bool text, std::vector<GgufValue>* tokens, std::vector<GgufValue>* scores, std::vector<GgufValue>* types) {
  std::vector<std::string> pieces;
  if (text) {
    pieces.push_back("\xe2\x96\x81");
    for (char c = '!'; c <= '~'; ++c) pieces.push_back(std::string(1, c));
    for (char c = 'a'; c <= 'z'; ++c) pieces.push_back("\xe2\x96\x81" + std::string(1, c));
    for (char c = 'A'; c <= 'Z'; ++c) pieces.push_back("\xe2\x96\x81" + std::string(1, c));
    for (char a = 'a'; pieces.size() < 256; ++a) {
      for (char b = 'a'; b <= 'z' && pieces.size() < 256; ++b) pieces.push_back(std::string{a, b});
    }
  } else {
    for (int b = 0; b < 256; ++b) {
      char piece[8];
      std::snprintf(piece, sizeof piece, "<0x%02X>", b);
      pieces.push_back(piece);
    }
  }
  for (const std::string& piece : pieces) {
    tokens->push_back(GgufValue::String(piece));
    types->push_back(GgufValue::Int(GgufType::kI32, text ? 1 : 6));  // NORMAL or BYTE
    // Longer pieces first, as SentencePiece's scores rank merges.
    scores->push_back(GgufValue::Float(GgufType::kF32, text ? static_cast<float>(piece.size()) : 0.0f));
  }
}

void AddVocab(GgufWriter& w, bool text) {
  std::vector<GgufValue> tokens, scores, types;
  AddOrdinaryTokens(text, &tokens, &scores, &types);
  for (const char* special : {"<s>", "</s>"}) {
    tokens.push_back(GgufValue::String(special));
    types.push_back(GgufValue::Int(GgufType::kI32, 3));  // CONTROL
    scores.push_back(GgufValue::Float(GgufType::kF32, 0));
  }
  w.Set("tokenizer.ggml.model", GgufValue::String("llama"));
  w.Set("tokenizer.ggml.tokens", GgufValue::Array(GgufType::kString, tokens));
  w.Set("tokenizer.ggml.scores", GgufValue::Array(GgufType::kF32, scores));
  w.Set("tokenizer.ggml.token_type", GgufValue::Array(GgufType::kI32, types));
  w.Set("tokenizer.ggml.bos_token_id", GgufValue::Uint(GgufType::kU32, kFixtureBos));
  w.Set("tokenizer.ggml.eos_token_id", GgufValue::Uint(GgufType::kU32, kFixtureEos));
  // No SentencePiece space in front: a byte vocabulary's text is exactly its bytes.
  w.Set("tokenizer.ggml.add_space_prefix", GgufValue::Bool(false));
}

// The tokenizer of another GGUF file (e.g. one vt-convert-vocab wrote); returns its size and EOS.
std::pair<int64_t, int64_t> CopyVocab(GgufWriter& w, const GgufFile& from) {
  for (const auto& [key, value] : from.metadata()) {
    if (key.rfind("tokenizer.", 0) == 0) w.Set(key, value);
  }
  const GgufValue* tokens = from.Find("tokenizer.ggml.tokens");
  const GgufValue* eos = from.Find("tokenizer.ggml.eos_token_id");
  int64_t n = tokens && tokens->AsArray() ? static_cast<int64_t>(tokens->AsArray()->size()) : 0;
  return {n, eos && eos->AsInt() ? *eos->AsInt() : -1};
}

// Keys with the architecture's prefix, as llama.cpp's converters write them.
void AddHparams(GgufWriter& w, const FixtureSpec& s) {
  auto u32 = [](int64_t v) { return GgufValue::Uint(GgufType::kU32, static_cast<uint64_t>(v)); };
  const std::string a = s.arch + ".";
  w.Set("general.architecture", GgufValue::String(s.arch));
  w.Set("general.name", GgufValue::String("vt-fixture"));
  w.Set(a + "context_length", u32(s.ctx));
  w.Set(a + "embedding_length", u32(s.dim));
  w.Set(a + "block_count", u32(s.layers));
  w.Set(a + "feed_forward_length", u32(s.ff));
  w.Set(a + "attention.head_count", u32(s.heads));
  w.Set(a + "attention.head_count_kv", u32(s.kv_heads));
  const int64_t hd = s.head_dim ? s.head_dim : s.dim / s.heads;
  w.Set(a + "rope.dimension_count", u32(hd));
  if (s.head_dim) {
    w.Set(a + "attention.key_length", u32(hd));
    w.Set(a + "attention.value_length", u32(hd));
  }
  w.Set(a + "rope.freq_base", GgufValue::Float(GgufType::kF32, s.arch == "gemma3" ? 1e6 : 10000));
  if (s.rope_scale > 0) {
    w.Set(a + "rope.scaling.type", GgufValue::String(s.yarn ? "yarn" : "linear"));
    w.Set(a + "rope.scaling.factor", GgufValue::Float(GgufType::kF32, s.rope_scale));
    if (s.yarn) w.Set(a + "rope.scaling.original_context_length", u32(4096));  // gpt-oss's
  }
  if (s.sliding_window > 0) w.Set(a + "attention.sliding_window", u32(s.sliding_window));
  if (s.swa_pattern > 0) w.Set(a + "attention.sliding_window_pattern", u32(s.swa_pattern));
  if (s.logit_softcap > 0) w.Set(a + "final_logit_softcapping", GgufValue::Float(GgufType::kF32, s.logit_softcap));
  w.Set(a + "attention.layer_norm_rms_epsilon", GgufValue::Float(GgufType::kF32, 1e-5));
  if (s.experts > 0) {
    w.Set(a + "expert_count", u32(s.experts));
    w.Set(a + "expert_used_count", u32(s.experts_used));
    if (s.arch == "qwen3moe" || s.arch == "gpt-oss") w.Set(a + "expert_feed_forward_length", u32(s.ff));
  }
}

// Architectures whose graphs normalise each head of Q and K (llama.cpp's qwen3 and qwen3moe).
bool HasQkNorm(const FixtureSpec& s) { return s.arch == "qwen3" || s.arch == "qwen3moe" || s.arch == "gemma3"; }
// Only llama's graph reads an output projection's and a dense FFN's biases.
bool HasLlamaBiases(const FixtureSpec& s) { return s.biases && s.arch == "llama"; }

// Llama 3's shape of factors: 1 for the fastest-turning pairs, rising to 8 for the slowest
// (its converter's low_freq_factor/high_freq_factor ramp, simplified to a straight line).
void AddRopeFreqs(GgufWriter& w, int64_t head_dim) {
  const int64_t pairs = head_dim / 2;
  std::vector<float> f(static_cast<size_t>(pairs));
  for (int64_t j = 0; j < pairs; ++j) f[static_cast<size_t>(j)] = 1.0f + 7.0f * static_cast<float>(j) / static_cast<float>(std::max<int64_t>(pairs - 1, 1));
  w.AddTensor("rope_freqs.weight", DType::kF32, {pairs, 1, 1, 1}, 1, f.data());
}

// Q, K, V (three matrices, or one attn_qkv.weight whose rows are theirs in that order) and
// the output projection, with biases if asked.
void AddAttention(Builder& b, const FixtureSpec& s, const std::string& p, int64_t qd, int64_t kv) {
  const int64_t d = s.dim;
  const bool oss = s.arch == "gpt-oss";  // biases always, and a sink logit per head
  const double inv_d = 1 / std::sqrt(static_cast<double>(d));
  if (s.fused_qkv) {
    b.Add(p + "attn_qkv.weight", s.dtype, {d, qd + 2 * kv, 1, 1}, 2, inv_d);
    if (s.biases) b.Add(p + "attn_qkv.bias", DType::kF32, {qd + 2 * kv, 1, 1, 1}, 1, 0.1);
  } else {
    b.Add(p + "attn_q.weight", s.dtype, {d, qd, 1, 1}, 2, inv_d);
    b.Add(p + "attn_k.weight", s.dtype, {d, kv, 1, 1}, 2, inv_d);
    b.Add(p + "attn_v.weight", s.dtype, {d, kv, 1, 1}, 2, inv_d);
    for (auto [name, n] : {std::pair{"attn_q.bias", qd}, {"attn_k.bias", kv}, {"attn_v.bias", kv}}) {
      if (s.biases || oss) b.Add(p + name, DType::kF32, {n, 1, 1, 1}, 1, 0.1);
    }
  }
  b.Add(p + "attn_output.weight", s.dtype, {qd, d, 1, 1}, 2, 1 / std::sqrt(static_cast<double>(qd)));
  if (HasLlamaBiases(s) || oss) b.Add(p + "attn_output.bias", DType::kF32, {d, 1, 1, 1}, 1, 0.1);
  if (oss) b.Add(p + "attn_sinks.weight", DType::kF32, {s.heads, 1, 1, 1}, 1, 1.0, 2.0);  // near ln(a prompt's length)
  if (HasQkNorm(s)) {  // gains near 2: attention logits 4x sharper, so positions matter
    const int64_t hd = qd / s.heads;
    b.Add(p + "attn_q_norm.weight", DType::kF32, {hd, 1, 1, 1}, 1, 0.2, s.qk_norm_gain);
    b.Add(p + "attn_k_norm.weight", DType::kF32, {hd, 1, 1, 1}, 1, 0.2, s.qk_norm_gain);
  } else if (s.arch == "olmo2") {  // over all of Q's heads, and of K's
    b.Add(p + "attn_q_norm.weight", DType::kF32, {qd, 1, 1, 1}, 1, 0.2, s.qk_norm_gain);
    b.Add(p + "attn_k_norm.weight", DType::kF32, {kv, 1, 1, 1}, 1, 0.2, s.qk_norm_gain);
  }
}

}  // namespace

GgufWriter MakeFixture(const FixtureSpec& s) {
  Builder b{GgufWriter(), Normal(s.seed)};
  AddHparams(b.w, s);
  int64_t vocab = 258, eos = kFixtureEos;
  if (s.vocab) {
    std::tie(vocab, eos) = CopyVocab(b.w, *s.vocab);
  } else {
    AddVocab(b.w, s.text_vocab);
  }
  const int64_t hd = s.head_dim ? s.head_dim : s.dim / s.heads;
  int64_t d = s.dim, qd = hd * s.heads, kv = hd * s.kv_heads, e = s.experts;
  double inv_d = 1 / std::sqrt(static_cast<double>(d)), inv_ff = 1 / std::sqrt(static_cast<double>(s.ff));
  // Tied output: the embedding doubles as the output matrix, so its EOS row is zero too.
  const bool gemma = s.arch == "gemma3", olmo = s.arch == "olmo2", oss = s.arch == "gpt-oss";
  b.Add("token_embd.weight", s.dtype, {d, vocab, 1, 1}, 2, gemma ? inv_d : 1.0, 0, s.tied_output ? eos : -1);
  if (s.rope_freqs && s.arch == "llama") AddRopeFreqs(b.w, hd);
  for (int64_t l = 0; l < s.layers; ++l) {
    std::string p = "blk." + std::to_string(l) + ".";
    if (!olmo) b.Add(p + "attn_norm.weight", DType::kF32, {d, 1, 1, 1}, 1, 0.1, 1.0);
    AddAttention(b, s, p, qd, kv);
    if (!olmo) b.Add(p + (oss ? "post_attention_norm.weight" : "ffn_norm.weight"), DType::kF32, {d, 1, 1, 1}, 1, 0.1, 1.0);
    if (gemma || olmo) {  // sandwich norms (olmo2's only norms)
      b.Add(p + "post_attention_norm.weight", DType::kF32, {d, 1, 1, 1}, 1, 0.1, 1.0);
      b.Add(p + "post_ffw_norm.weight", DType::kF32, {d, 1, 1, 1}, 1, 0.1, 1.0);
    }
    if (e == 0 && s.arch == "phi3") {  // gate and up in one matrix, the gate's rows first
      b.Add(p + "ffn_up.weight", s.dtype, {d, 2 * s.ff, 1, 1}, 2, inv_d);
      b.Add(p + "ffn_down.weight", s.dtype, {s.ff, d, 1, 1}, 2, inv_ff);
    } else if (e == 0) {
      b.Add(p + "ffn_gate.weight", s.dtype, {d, s.ff, 1, 1}, 2, inv_d);
      b.Add(p + "ffn_up.weight", s.dtype, {d, s.ff, 1, 1}, 2, inv_d);
      b.Add(p + "ffn_down.weight", s.dtype, {s.ff, d, 1, 1}, 2, inv_ff);
      for (auto [name, n] : {std::pair{"ffn_gate.bias", s.ff}, {"ffn_up.bias", s.ff}, {"ffn_down.bias", d}}) {
        if (HasLlamaBiases(s)) b.Add(p + name, DType::kF32, {n, 1, 1, 1}, 1, 0.1);
      }
    } else {
      b.Add(p + "ffn_gate_inp.weight", DType::kF32, {d, e, 1, 1}, 2, inv_d * 4);
      b.Add(p + "ffn_gate_exps.weight", s.dtype, {d, s.ff, e, 1}, 3, inv_d);
      b.Add(p + "ffn_up_exps.weight", s.dtype, {d, s.ff, e, 1}, 3, inv_d);
      b.Add(p + "ffn_down_exps.weight", s.dtype, {s.ff, d, e, 1}, 3, inv_ff);
      if (oss) {  // the router's and experts' biases
        b.Add(p + "ffn_gate_inp.bias", DType::kF32, {e, 1, 1, 1}, 1, 0.5);
        b.Add(p + "ffn_gate_exps.bias", DType::kF32, {s.ff, e, 1, 1}, 2, 0.1);
        b.Add(p + "ffn_up_exps.bias", DType::kF32, {s.ff, e, 1, 1}, 2, 0.1);
        b.Add(p + "ffn_down_exps.bias", DType::kF32, {d, e, 1, 1}, 2, 0.1);
      }
    }
  }
  b.Add("output_norm.weight", DType::kF32, {d, 1, 1, 1}, 1, 0.1, 1.0);
  if (!s.tied_output) b.Add("output.weight", s.dtype, {d, vocab, 1, 1}, 2, inv_d * 4, 0, eos);
  return std::move(b.w);
}

}  // namespace vt
