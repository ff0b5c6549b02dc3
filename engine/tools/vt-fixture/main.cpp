// vt-fixture: writes a deterministic tiny model of any architecture vt runs (dense or MoE) as GGUF.
#include <CLI/CLI.hpp>

#include <cctype>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vt/fixture.h"
#include "vt/model.h"

namespace {

const vt::DType kMatrixTypes[] = {vt::DType::kF32, vt::DType::kF16, vt::DType::kBF16, vt::DType::kQ8_0,
                                  vt::DType::kQ4_0, vt::DType::kQ4_1, vt::DType::kQ5_0, vt::DType::kQ5_1,
                                  vt::DType::kQ2_K, vt::DType::kQ3_K, vt::DType::kQ4_K, vt::DType::kQ5_K,
                                  vt::DType::kQ6_K, vt::DType::kMXFP4};

// Lowercase names ("q4_k"), as llama-quantize's type names are typed.
std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> DTypeNames() {
  std::vector<std::string> names;
  for (vt::DType t : kMatrixTypes) names.push_back(Lower(vt::DTypeName(t)));
  return names;
}

vt::DType DTypeNamed(const std::string& name) {
  for (vt::DType t : kMatrixTypes) {
    if (Lower(vt::DTypeName(t)) == name) return t;
  }
  return vt::DType::kF32;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vt-fixture: write a deterministic tiny GGUF model of any architecture vt runs (see --arch), for tests"};
  vt::FixtureSpec s;
  std::string out, dtype = "f32", vocab_path;
  app.add_option("--out,-o", out, "Output .gguf file")->required();
  std::vector<std::string> archs;
  for (std::string names = vt::SupportedArchitectures() + ", "; !names.empty(); names.erase(0, names.find(", ") + 2)) {
    archs.push_back(names.substr(0, names.find(", ")));
  }
  app.add_option("--arch", s.arch, "general.architecture (" + vt::SupportedArchitectures() + "; default llama)")->check(CLI::IsMember(archs));
  app.add_option("--layers", s.layers, "Transformer blocks")->check(CLI::Range(1, 256));
  app.add_option("--dim", s.dim, "Embedding width")->check(CLI::Range(8, 16384));
  app.add_option("--heads", s.heads, "Attention heads")->check(CLI::Range(1, 256));
  app.add_option("--kv-heads", s.kv_heads, "Key/value heads (GQA)")->check(CLI::Range(1, 256));
  app.add_option("--ff", s.ff, "Feed-forward width (per expert for MoE)")->check(CLI::Range(1, 65536));
  app.add_option("--experts", s.experts, "Experts (0: dense)")->check(CLI::Range(0, 256));
  app.add_option("--experts-used", s.experts_used, "Experts per token")->check(CLI::Range(1, 256));
  app.add_option("--ctx", s.ctx, "Context length recorded in the file")->check(CLI::Range(1, 1 << 20));
  app.add_option("--dtype", dtype, "Matrix dtype: f32, f16, bf16 or a ggml block type (q8_0, q4_0, q4_1, q5_0, q5_1, q2_k, q3_k, q4_k, q5_k, q6_k, mxfp4)")
      ->check(CLI::IsMember(DTypeNames()));
  app.add_option("--seed", s.seed, "Random seed");
  app.add_flag("--tied", s.tied_output, "No output.weight: reuse the token embedding");
  app.add_option("--head-dim", s.head_dim, "Head size, written as llama.attention.key_length (default: dim / heads)")
      ->check(CLI::Range(2, 1024));
  app.add_flag("--rope-freqs", s.rope_freqs, "Write a rope_freqs.weight of Llama 3's kind (frequency factors 1 to 8)");
  app.add_flag("--biases", s.biases, "Attention biases (and the dense feed-forward's)");
  app.add_flag("--fused-qkv", s.fused_qkv, "One attn_qkv.weight instead of attn_q/k/v.weight");
  app.add_option("--sliding-window", s.sliding_window, "gemma3, olmo2, gpt-oss (which needs it): attention window of the windowed layers (0: none)")->check(CLI::Range(0, 1 << 20));
  app.add_option("--swa-pattern", s.swa_pattern, "gemma3, olmo2, gpt-oss: every Nth layer attends globally (0: not written, llama.cpp's 6, 4 or 2)")->check(CLI::Range(0, 256));
  auto* scale = app.add_option("--rope-scale", s.rope_scale, "Linear RoPE scaling factor (0: none)")->check(CLI::Range(0.0f, 1024.0f));
  app.add_flag("--yarn", s.yarn, "Scale RoPE by YaRN (--rope-scale's factor, trained at 4096 positions)")->needs(scale);
  app.add_option("--softcap", s.logit_softcap, "gemma3: final logit soft-capping (0: none)")->check(CLI::Range(0.0f, 1e6f));
  auto* text = app.add_flag("--text-vocab", s.text_vocab, "Whole-text pieces instead of byte tokens (any output is valid UTF-8)");
  app.add_option("--vocab", vocab_path, "Copy the tokenizer of this GGUF file (e.g. from vt-convert-vocab)")->excludes(text);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  const int64_t head_dim = s.head_dim ? s.head_dim : s.dim / s.heads;
  if ((!s.head_dim && s.dim % s.heads != 0) || s.heads % s.kv_heads != 0 || head_dim % 2 != 0) {
    std::cerr << "vt-fixture: the head size (--head-dim, or --dim over --heads) must be whole and even, and --heads must split "
                 "over --kv-heads\n";
    return 2;
  }
  if (s.experts > 0 && s.experts_used > s.experts) {
    std::cerr << "vt-fixture: --experts-used exceeds --experts\n";
    return 2;
  }
  if ((s.sliding_window > 0 || s.swa_pattern > 0) && s.arch != "gemma3" && s.arch != "olmo2" && s.arch != "gpt-oss") {
    std::cerr << "vt-fixture: --sliding-window and --swa-pattern are gemma3's, olmo2's and gpt-oss's (not " << s.arch << "'s)\n";
    return 2;
  }
  if (s.arch == "gpt-oss" && s.sliding_window == 0) {
    std::cerr << "vt-fixture: --arch gpt-oss needs --sliding-window (its files always have one)\n";
    return 2;
  }
  if (s.logit_softcap > 0 && s.arch != "gemma3") {
    std::cerr << "vt-fixture: --softcap is gemma3's (not " << s.arch << "'s)\n";
    return 2;
  }
  const bool moe = s.arch == "qwen3moe" || s.arch == "gpt-oss";
  if (moe != (s.experts > 0) && s.arch != "llama") {
    std::cerr << "vt-fixture: --arch " << s.arch << (moe ? " needs --experts" : " has no experts (--experts 0)") << "\n";
    return 2;
  }
  std::optional<vt::GgufFile> vocab;
  if (!vocab_path.empty()) {
    auto file = vt::GgufFile::Open(vocab_path);
    if (!file.ok()) {
      std::cerr << "vt-fixture: --vocab " << vocab_path << ": " << file.status().message() << "\n";
      return 2;
    }
    vocab = std::move(file.value());
    s.vocab = &*vocab;
  }
  s.dtype = DTypeNamed(dtype);
  int64_t block = vt::BlockSize(s.dtype);
  if (s.dim % block != 0 || s.ff % block != 0) {
    std::cerr << "vt-fixture: --dtype " << dtype << " needs --dim and --ff multiples of " << block << " (got " << s.dim << " and " << s.ff << ")\n";
    return 2;
  }
  vt::Status st = vt::MakeFixture(s).Write(out);
  if (!st.ok()) {
    std::cerr << "vt-fixture: " << st.message() << "\n";
    return 1;
  }
  return 0;
}
