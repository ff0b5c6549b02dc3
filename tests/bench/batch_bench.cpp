// batch_bench: one decode step of B sequences at once (vt-serve's continuous batching) against
// B = 1, on vt-fixture's models: what batching gains before any HTTP. Each sequence has a
// prompt of 32 tokens in its own cache; an iteration is one ForwardBatch step of one new token
// per sequence (the caches are reset to the prompt's end between iterations, outside the
// timing). tokens/s = B / step time; the ratio of B's rate to B = 1's is batching's gain.
//   batch_bench [--benchmark_filter=...]   (VT_BATCH_MODEL=FILE.gguf: another model)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "vt/backend.h"
#include "vt/fixture.h"
#include "vt/model.h"

namespace {

constexpr int64_t kPrompt = 32, kCtx = 256;

struct Loaded {
  std::unique_ptr<vt::Model> model;
  std::string error;
};

// The 2048-wide f16 fixture of scripts/bench-serve (memory-bound), or VT_BATCH_MODEL.
Loaded& Model() {
  static Loaded loaded = [] {
    Loaded l;
    const char* path = std::getenv("VT_BATCH_MODEL");
    vt::StatusOr<vt::GgufFile> file = vt::Status(vt::StatusCode::kInternal, "unset");
    if (path && *path) {
      file = vt::GgufFile::Open(path);
    } else {
      vt::FixtureSpec spec;
      spec.layers = 4, spec.dim = 2048, spec.heads = 16, spec.kv_heads = 4, spec.ff = 5632,
      spec.ctx = kCtx;
      spec.dtype = vt::DType::kF16;
      file = vt::GgufFile::FromBytes(vt::MakeFixture(spec).Bytes());
    }
    if (!file.ok()) {
      l.error = file.status().message();
      return l;
    }
    auto shared = std::make_shared<const vt::GgufFile>(std::move(file).value());
    auto model =
        vt::Model::Load(shared, vt::Engine{vt::MakeQueue(*vt::GetBackend(vt::DeviceType::kCPU))});
    if (!model.ok()) {
      l.error = model.status().message();
      return l;
    }
    l.model = std::move(model).value();
    return l;
  }();
  return loaded;
}

void BatchDecode(benchmark::State& state) {
  Loaded& l = Model();
  if (!l.model) return state.SkipWithError(l.error.c_str());
  const int64_t b = state.range(0), vocab = l.model->hparams().n_vocab;
  std::vector<vt::KvCache> caches;
  for (int64_t i = 0; i < b; ++i) {
    auto cache = l.model->NewCache(kCtx);
    if (!cache.ok()) return state.SkipWithError(cache.status().message().c_str());
    caches.push_back(std::move(cache).value());
    std::vector<int32_t> prompt;
    for (int64_t t = 0; t < kPrompt; ++t)
      prompt.push_back(static_cast<int32_t>((i * 131 + t * 7) % vocab));
    if (!l.model->Forward(prompt, caches.back()).ok()) return state.SkipWithError("prompt failed");
  }
  std::vector<vt::BatchEntry> batch;
  for (int64_t i = 0; i < b; ++i)
    batch.push_back(
        vt::BatchEntry{{static_cast<int32_t>(i % vocab)}, &caches[static_cast<size_t>(i)]});
  for (auto _ : state) {
    auto logits = l.model->ForwardBatch(batch);
    if (!logits.ok()) return state.SkipWithError(logits.status().message().c_str());
    state.PauseTiming();
    for (vt::KvCache& c : caches) c.n_past = kPrompt;
    state.ResumeTiming();
  }
  state.counters["tok/s"] =
      benchmark::Counter(static_cast<double>(b * state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BatchDecode)
    ->Arg(1)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK_MAIN();
