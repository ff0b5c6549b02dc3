// The keys of sliding-window attention, as the architectures that have it (gemma3, olmo2)
// read them in llama.cpp's load_arch_hparams.
#include <cmath>

#include "architecture.h"
#include "vt/model.h"

namespace vt {

Status ReadSlidingWindow(const GgufFile& f, const std::string& arch, int64_t period, float base, Hparams* hp) {
  auto bad = [&](const std::string& key, const std::string& what) {
    return Status(StatusCode::kInvalidArgument, "gguf: " + arch + "." + key + " " + what);
  };
  const GgufValue* window = f.Find(arch + ".attention.sliding_window");
  if (!window) return Status();
  if (!window->AsInt() || *window->AsInt() < 0) return bad("attention.sliding_window", "is not a non-negative integer");
  hp->n_swa = *window->AsInt();
  if (hp->n_swa == 0) return Status();
  // A scalar period; llama.cpp's get_key_or_arr passes over an array here (Olmo 3's converter
  // writes one) and keeps the default, and so does vt: the same layers are windowed in both.
  hp->swa_period = period;
  const GgufValue* pattern = f.Find(arch + ".attention.sliding_window_pattern");
  if (pattern && !pattern->AsArray()) {
    if (!pattern->AsInt() || *pattern->AsInt() < 0) return bad("attention.sliding_window_pattern", "is not a non-negative integer");
    hp->swa_period = *pattern->AsInt();
  }
  hp->rope_freq_base_swa = base;
  if (const GgufValue* b = f.Find(arch + ".rope.freq_base_swa")) {
    if (!b->AsFloat() || !(*b->AsFloat() > 0) || std::isinf(*b->AsFloat())) return bad("rope.freq_base_swa", "must be a positive number");
    hp->rope_freq_base_swa = static_cast<float>(*b->AsFloat());
  }
  hp->rope_freq_scale_swa = 1.0f;  // the windowed layers are never scaled
  return Status();
}

}  // namespace vt
