#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "cpu/matmul_kernels.h"
#include "fixture_support.h"
#include "parity_support.h"
#include "vt/fixture.h"
#include "vt/generate.h"
#include "vt/tokenizer.h"

namespace vt {
namespace {

using testing::FixtureFile;

Engine On(Backend& b) { return Engine{MakeQueue(b)}; }
Backend& Cpu() { return *GetBackend(DeviceType::kCPU); }

std::unique_ptr<Model> Load(const FixtureSpec& spec, Backend& b,
                            const PlacementQueue* placement = nullptr) {
  auto m = Model::Load(FixtureFile(spec), On(b), placement);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

std::vector<int32_t> Greedy(Model& m, const std::vector<int32_t>& prompt, int n,
                            DType cache_dtype = DType::kF32) {
  auto cache = m.NewCache(128, cache_dtype);
  auto g = Generate(m, cache.value(), prompt, n);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? g->tokens : std::vector<int32_t>{};
}

const std::vector<int32_t> kPrompt = {kFixtureBos, 'H', 'e', 'l', 'l', 'o', ',', ' ', 'v', 't'};

FixtureSpec Dense() { return FixtureSpec{}; }
FixtureSpec Moe() { return FixtureSpec{.ff = 48, .experts = 4, .experts_used = 2, .seed = 2}; }
// Llama 3's rope_freqs.weight, and heads of 32 where n_embd / n_head is 16 (key_length).
FixtureSpec Llama3() { return FixtureSpec{.seed = 3, .head_dim = 32, .rope_freqs = true}; }
// Every optional tensor of llama.cpp's llama graph: biases, and Q/K/V fused in one matrix.
FixtureSpec Biased() { return FixtureSpec{.seed = 4, .biases = true, .fused_qkv = true}; }

// A q8_0 cache holds whole blocks of 32 values per head: 16-wide heads are refused naming the
// head dimension (a library caller's guard; the tools check before they get here).
TEST(Model, AQ8_0CacheNeedsHeadsOfWholeBlocks) {
  auto narrow = Load(Dense(), Cpu());
  auto cache = narrow->NewCache(8, DType::kQ8_0);
  EXPECT_EQ(cache.status().message(),
            "a q8_0 KV cache needs a head dimension that is a multiple of 32; this model's is 16");
  EXPECT_TRUE(Load(FixtureSpec{.dim = 128}, Cpu())->NewCache(8, DType::kQ8_0).ok());
}

TEST(Model, ReadsLlamaHyperparametersFromTheFixture) {
  FixtureSpec s = Moe();
  auto hp = ReadHparams(*FixtureFile(s));
  ASSERT_TRUE(hp.ok());
  EXPECT_EQ(hp->n_embd, 64);
  EXPECT_EQ(hp->n_head_kv, 2);
  EXPECT_EQ(hp->n_vocab, 258);
  EXPECT_EQ(hp->n_expert, 4);
  EXPECT_EQ(hp->n_rot, 16);
}

// held_bytes names each weight's type as the backend holds it, and layouts keep the bytes: on
// the CPU an f16 model's matmul weights in the set's own order (panels, or plain where the set
// reads none), their bytes and the f32 norms' adding up to the file's.
TEST(Model, HeldBytesNameTheLayoutsTheBackendKeeps) {
  FixtureSpec s = Dense();
  s.dtype = DType::kF16;
  auto m = Load(s, Cpu());
  ASSERT_TRUE(m);
  int64_t file = 0, held = 0;
  for (const GgufTensorInfo& t : m->file().tensors()) file += static_cast<int64_t>(t.bytes);
  for (const auto& [type, bytes] : m->held_bytes()) held += bytes;
  EXPECT_EQ(held, file);
  const std::string wq(DTypeName(m->layers()[0].wq.dtype));
  ASSERT_TRUE(m->held_bytes().count(wq)) << wq;
  EXPECT_GE(m->held_bytes().at(wq), static_cast<int64_t>(m->layers()[0].wq.ByteSize()) * s.layers);
  EXPECT_EQ(m->held_bytes().count("f32"), 1u);
}

// The CPU forward against the float64 reference backend running the same code path.
TEST(Model, CpuLogitsMatchTheFloat64ReferenceForward) {
  for (FixtureSpec s : {Dense(), Moe(), Llama3(), Biased()}) {
    for (DType dt : {DType::kF32, DType::kF16, DType::kBF16}) {
      s.dtype = dt;
      SCOPED_TRACE(std::string(DTypeName(dt)) + (s.experts      ? " moe"
                                                 : s.rope_freqs ? " llama3"
                                                 : s.biases     ? " biased"
                                                                : " dense"));
      auto cpu = Load(s, Cpu());
      auto ref = Load(s, ReferenceBackend());
      auto c1 = cpu->NewCache(64), c2 = ref->NewCache(64);
      auto a = cpu->Forward(kPrompt, c1.value(), true);
      auto b = ref->Forward(kPrompt, c2.value(), true);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_LT(testing::Nmse(b.value(), a.value()), 1e-6);
    }
  }
}

// How many whole pages of [p, p + bytes) are in this process's page table (/proc/self/pagemap:
// bit 63 of a page's entry says present; readable for one's own pages without privileges).
int64_t PresentPages(const void* p, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)),
                  at = reinterpret_cast<uintptr_t>(p);
  const int fd =
      open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);  // pread: 8-byte reads at 8-byte offsets
  if (fd < 0) return -1;
  int64_t present = 0;
  for (uintptr_t a = (at + page - 1) / page * page; a + page <= at + bytes; a += page) {
    uint64_t entry = 0;
    if (pread(fd, &entry, sizeof entry, static_cast<off_t>(a / page * sizeof entry)) !=
        sizeof entry)
      present = -1000000;
    present += static_cast<int64_t>(entry >> 63);
  }
  close(fd);
  return present;
}

// An f16 model from a file: the CPU copies its matmul weights into panels (where its set reads
// them), and the mapping's pages of those weights are given back, so the process does not
// hold each weight twice. Page by page from the page table: the mapping's resident size
// (smaps) cannot tell which tensor a page is of, and on tmpfs a 2 MiB page's mapping goes
// whole when any part of it is given back.
TEST(Model, ACopiedWeightGivesItsMappedPagesBack) {
  if (!cpu::BestKernels().panels)
    GTEST_SKIP() << cpu::BestKernels().name << " copies no f16 weights";
  {
    const FixtureSpec spec{
        .layers = 2, .dim = 256, .heads = 4, .kv_heads = 2, .ff = 704, .dtype = DType::kF16};
    const std::string path =
        ::testing::TempDir() + "vt-release-" + std::to_string(getpid()) + ".gguf";
    ASSERT_TRUE(MakeFixture(spec).Write(path).ok());
    auto opened = GgufFile::Open(path);
    std::remove(path.c_str());  // the mapping keeps the file's pages
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    auto file = std::make_shared<const GgufFile>(std::move(opened).value());
    auto m = Model::Load(file, On(Cpu()));
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    int64_t matrices = 0;
    for (const GgufTensorInfo& info : file->tensors()) {
      if (info.name.find("norm") != std::string::npos || info.name == "token_embd.weight") continue;
      ++matrices;
      const Tensor view = file->TensorView(info.name).value();
      EXPECT_EQ(PresentPages(view.data, info.bytes), 0)
          << info.name << ": pages of a copied weight still mapped after load";
    }
    EXPECT_EQ(matrices, 2 * 7 + 1);
  }
}

TEST(Model, GreedyTokensMatchTheReferenceFor32Steps) {
  for (FixtureSpec s : {Dense(), Moe()}) {
    s.dtype = DType::kF16;
    SCOPED_TRACE(s.experts ? "moe" : "dense");
    auto cpu = Load(s, Cpu());
    auto ref = Load(s, ReferenceBackend());
    std::vector<int32_t> ours = Greedy(*cpu, kPrompt, 32), truth = Greedy(*ref, kPrompt, 32);
    EXPECT_EQ(ours, truth);
    EXPECT_EQ(std::count(ours.begin(), ours.end(), kFixtureEos), 0);
  }
}

// Decoding one token at a time through the cache gives the logits a full prefill gives.
TEST(Model, DecodingThroughTheCacheEqualsAFullPrefill) {
  auto m = Load(Dense(), Cpu());
  auto full_cache = m->NewCache(64);
  auto full = m->Forward(kPrompt, full_cache.value(), true);
  ASSERT_TRUE(full.ok());
  auto cache = m->NewCache(64);
  int64_t vocab = m->hparams().n_vocab;
  for (size_t t = 0; t < kPrompt.size(); ++t) {
    auto step = m->Forward({kPrompt[t]}, cache.value());
    ASSERT_TRUE(step.ok());
    std::vector<float> want(full->begin() + t * vocab, full->begin() + (t + 1) * vocab);
    EXPECT_LT(testing::Nmse(want, step.value()), 1e-10) << "position " << t;
  }
}

// Each sequence alone, then all in one batch: sequence B already has a past, so the batch
// mixes two prefills and one decode; a second step decodes all three.
void ExpectBatchEqualsAlone(const FixtureSpec& spec) {
  auto m = Load(spec, Cpu());
  ASSERT_TRUE(m);
  const std::vector<std::vector<int32_t>> first = {kPrompt, {'!'}, {kFixtureBos, 'o', 'k'}};
  const std::vector<int32_t> past = {kFixtureBos, 'a', 'b', 'c', 'd'};
  std::vector<KvCache> alone, batched;
  for (int i = 0; i < 3; ++i) {
    alone.push_back(m->NewCache(64).value());
    batched.push_back(m->NewCache(64).value());
  }
  ASSERT_TRUE(m->Forward(past, alone[1]).ok());
  ASSERT_TRUE(m->Forward(past, batched[1]).ok());
  for (const std::vector<std::vector<int32_t>>& step : {first, {{'x'}, {'y'}, {'z'}}}) {
    std::vector<BatchEntry> batch;
    for (int i = 0; i < 3; ++i) batch.push_back(BatchEntry{step[i], &batched[i]});
    auto together = m->ForwardBatch(batch);
    ASSERT_TRUE(together.ok()) << together.status().ToString();
    ASSERT_EQ(together->size(), 3u);
    for (int i = 0; i < 3; ++i) {
      auto one = m->Forward(step[i], alone[i]);
      ASSERT_TRUE(one.ok());
      EXPECT_LT(testing::Nmse(one.value(), together.value()[i]), 1e-10) << "sequence " << i;
      EXPECT_EQ(batched[i].n_past, alone[i].n_past) << "sequence " << i;
    }
  }
}

TEST(Model, ABatchGivesEachSequenceTheLogitsItGetsAlone) { ExpectBatchEqualsAlone(Dense()); }
TEST(Model, ABatchOfMoeSequencesGivesEachTheLogitsItGetsAlone) { ExpectBatchEqualsAlone(Moe()); }

TEST(Model, ABadBatchEntryIsNamedAndNoCacheMoves) {
  auto m = Load(Dense(), Cpu());
  ASSERT_TRUE(m);
  KvCache a = m->NewCache(8).value(), b = m->NewCache(8).value();
  const std::pair<std::vector<BatchEntry>, std::string> bad[] = {
      {{{{'a'}, &a}, {{}, &b}}, "ForwardBatch: entry 1: no tokens"},
      {{{{'a'}, &a}, {{'b'}, &a}}, "ForwardBatch: entry 1: its cache is entry 0's too"},
      {{{{'a'}, &a}, {{'b', 9999}, &b}}, "ForwardBatch: entry 1: token id 9999 out of range"},
      {{{{'a'}, &a}, {std::vector<int32_t>(9, 'b'), &b}},
       "ForwardBatch: entry 1: the KV cache is full"},
  };
  for (const auto& [batch, message] : bad) {
    auto r = m->ForwardBatch(batch);
    ASSERT_FALSE(r.ok()) << message;
    EXPECT_EQ(r.status().message(), message);
    EXPECT_EQ(a.n_past, 0);
    EXPECT_EQ(b.n_past, 0);
  }
}

TEST(Model, AnF16CacheStaysCloseToAnF32Cache) {
  auto m = Load(Dense(), Cpu());
  auto c32 = m->NewCache(64, DType::kF32), c16 = m->NewCache(64, DType::kF16);
  auto a = m->Forward(kPrompt, c32.value(), true), b = m->Forward(kPrompt, c16.value(), true);
  double nmse = testing::Nmse(a.value(), b.value());
  EXPECT_LT(nmse, 1e-5);
  EXPECT_GT(nmse, 0.0);  // the cache really is f16
}

TEST(Model, MoeExpertsPlacedOnTheCpuGiveTheSameTokens) {
  PlacementQueue placement = PlacementQueue::Create(Cpu()).value();
  auto placed = Load(Moe(), Cpu(), &placement);
  auto unplaced = Load(Moe(), Cpu());
  EXPECT_EQ(Greedy(*placed, kPrompt, 16), Greedy(*unplaced, kPrompt, 16));
}

TEST(Model, TiedOutputUsesTheEmbedding) {
  FixtureSpec s = Dense();
  s.tied_output = true;
  auto file = FixtureFile(s);
  EXPECT_EQ(file->FindTensor("output.weight"), nullptr);
  auto m = Model::Load(file, On(Cpu()));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(Greedy(*m.value(), kPrompt, 8).size(), 8u);
}

// Q4_0 matmul weights are interleaved for the CPU's decode where its kernel set reads them
// (specs/quantized.md), experts too; the embedding, a GetRows table, stays Q4_0.
TEST(Model, TheCpuInterleavesQ4_0MatmulWeightsButNotTheEmbedding) {
  const DType matmul = cpu::BestKernels().interleaved ? DType::kQ4_0x16 : DType::kQ4_0;
  FixtureSpec dense{.dtype = DType::kQ4_0},
      moe{.ff = 64, .experts = 4, .experts_used = 2, .dtype = DType::kQ4_0, .seed = 2};
  auto d = Load(dense, Cpu()), m = Load(moe, Cpu());
  ASSERT_TRUE(d && m);
  for (const Tensor* t :
       {&d->layers()[0].wq, &d->layers()[1].ffn_down, &d->output(), &m->layers()[0].ffn_up_exps}) {
    EXPECT_EQ(t->dtype, matmul) << Describe(*t);
  }
  EXPECT_EQ(d->token_embedding().dtype, DType::kQ4_0);
  EXPECT_EQ(Greedy(*d, kPrompt, 4).size(), 4u);
}

// A fused attn_qkv.weight draws the same numbers as Q, K and V written apart (same seed, same
// order), so the two files are one model: equal logits, and on the CPU the fused matrix's
// three views are interleaved as three matrices would be.
TEST(Model, AFusedQkvRunsAsItsThreeMatrices) {
  for (DType t : {DType::kF32, DType::kQ4_0}) {
    SCOPED_TRACE(std::string(DTypeName(t)));
    FixtureSpec apart{.dtype = t, .seed = 5}, fused{.dtype = t, .seed = 5, .fused_qkv = true};
    auto a = Load(apart, Cpu()), f = Load(fused, Cpu());
    ASSERT_TRUE(a && f);
    EXPECT_EQ(f->layers()[1].wv.dtype, a->layers()[1].wv.dtype);
    auto ca = a->NewCache(64), cf = f->NewCache(64);
    auto la = a->Forward(kPrompt, ca.value(), true), lf = f->Forward(kPrompt, cf.value(), true);
    ASSERT_TRUE(la.ok() && lf.ok());
    EXPECT_EQ(la.value(), lf.value());
  }
}

TEST(Model, AMissingOrMisshapenTensorIsANamedError) {
  // The metadata says 4 kv heads; the tensors were written for 2.
  GgufWriter mixed = MakeFixture(Dense());
  mixed.Set("llama.attention.head_count_kv", GgufValue::Uint(GgufType::kU32, 4));
  auto file = GgufFile::FromBytes(mixed.Bytes());
  auto m = Model::Load(std::make_shared<const GgufFile>(std::move(file).value()), On(Cpu()));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(),
            "gguf: blk.0.attn_k.weight has shape [64,32,1], expected [64,64,1]");
  GgufWriter other = MakeFixture(Dense());
  other.Set("general.architecture", GgufValue::String("gpt2"));
  auto o = Model::Load(std::make_shared<const GgufFile>(GgufFile::FromBytes(other.Bytes()).value()),
                       On(Cpu()));
  EXPECT_EQ(o.status().message(),
            "unsupported architecture \"gpt2\" (vt runs llama, qwen2, qwen3, qwen3moe, phi3, "
            "gemma3, olmo2, gpt-oss)");
}

// Keys vt cannot honour are refused by name, never run with the wrong angles or shapes.
TEST(Model, RopeAndHeadKeysItCannotRunAreRefusedByName) {
  auto load = [](GgufWriter w) {
    auto m = Model::Load(std::make_shared<const GgufFile>(GgufFile::FromBytes(w.Bytes()).value()),
                         On(Cpu()));
    return m.ok() ? std::string("loaded") : std::string(m.status().message());
  };
  auto with = [](FixtureSpec s, const std::string& key, GgufValue v) {
    GgufWriter w = MakeFixture(s);
    w.Set(key, std::move(v));
    return w;
  };
  EXPECT_EQ(load(with(Dense(), "llama.rope.scaling.type", GgufValue::String("longrope"))),
            "gguf: llama.rope.scaling.type \"longrope\" is not supported (vt scales RoPE linearly, "
            "by YaRN or not at all)");
  EXPECT_EQ(load(with(Dense(), "llama.rope.scaling.type", GgufValue::String("linear"))), "loaded");
  // A number key present must be one, finite and in range: never its default, never NaN.
  auto number = [](double v) { return GgufValue::Float(GgufType::kF32, v); };
  const std::string base = "gguf: llama.rope.freq_base must be a finite number above 0";
  EXPECT_EQ(load(with(Dense(), "llama.rope.freq_base", number(0))), base);
  EXPECT_EQ(load(with(Dense(), "llama.rope.freq_base", number(-10000))), base);
  EXPECT_EQ(load(with(Dense(), "llama.rope.freq_base", GgufValue::String("10000"))), base);
  const std::string eps =
      "gguf: llama.attention.layer_norm_rms_epsilon must be a finite number at least 0";
  EXPECT_EQ(load(with(Dense(), "llama.attention.layer_norm_rms_epsilon", number(std::nan("")))),
            eps);
  EXPECT_EQ(
      load(with(Dense(), "llama.attention.layer_norm_rms_epsilon", GgufValue::String("1e-5"))),
      eps);
  EXPECT_EQ(load(with(Dense(), "llama.attention.layer_norm_rms_epsilon", number(0))), "loaded");
  EXPECT_EQ(load(with(Dense(), "llama.rope.scaling.factor", GgufValue::String("8"))),
            "gguf: llama.rope.scaling.factor must be a positive number");
  EXPECT_EQ(
      load(with(Llama3(), "llama.attention.value_length", GgufValue::Uint(GgufType::kU32, 16))),
      "gguf: llama.attention.value_length 16 differs from the key length 32 (vt's llama, as "
      "llama.cpp's, needs them equal)");
  EXPECT_EQ(load(with(Dense(), "llama.rope.dimension_count", GgufValue::Uint(GgufType::kU32, 15))),
            "gguf: llama.rope.dimension_count 15 must be even and at most the head size 16");
  GgufWriter short_factors = MakeFixture(Dense());
  const float three[3] = {1, 2, 3};
  short_factors.AddTensor("rope_freqs.weight", DType::kF32, {3, 1, 1, 1}, 1, three);
  EXPECT_EQ(load(std::move(short_factors)),
            "gguf: rope_freqs.weight must be f32 [8] (one per rotated pair), not f32 [3,1,1]");
  GgufWriter zero = MakeFixture(Dense());
  const float factors[32] = {1, 1, 1, 0, 1, 1, 1, 1};
  zero.AddTensor("rope_freqs.weight", DType::kF32, {8, 1, 1, 1}, 1, factors);  // the first 8
  EXPECT_EQ(load(std::move(zero)),
            "gguf: rope_freqs.weight has a factor that is not a positive number");
  // A tensor vt would not read means a model it does not compute; a bias of the wrong type.
  GgufWriter stray = MakeFixture(Dense());
  stray.AddTensor("blk.0.attn_q_norm.weight", DType::kF32, {16, 1, 1, 1}, 1, factors);
  EXPECT_EQ(load(std::move(stray)),
            "gguf: tensor blk.0.attn_q_norm.weight is not one vt's llama reads (refused rather "
            "than ignored)");
  GgufWriter f16_bias = MakeFixture(Dense());
  f16_bias.AddTensor("blk.1.attn_output.bias", DType::kF16, {64, 1, 1, 1}, 1, factors);
  EXPECT_EQ(load(std::move(f16_bias)),
            "gguf: blk.1.attn_output.bias must be f32 [64], not f16 [64,1,1]");
  // A scaling factor of 0 means none, as llama.cpp reads it; the older key still counts.
  auto none = ReadHparams(
      GgufFile::FromBytes(
          with(Dense(), "llama.rope.scaling.factor", GgufValue::Float(GgufType::kF32, 0)).Bytes())
          .value());
  auto old = ReadHparams(
      GgufFile::FromBytes(
          with(Dense(), "llama.rope.scale_linear", GgufValue::Float(GgufType::kF32, 4)).Bytes())
          .value());
  ASSERT_TRUE(none.ok() && old.ok());
  EXPECT_EQ(none->rope_freq_scale, 1.0f);
  EXPECT_EQ(old->rope_freq_scale, 0.25f);
}

// Counts of nothing, a name that is not a string and a vocabulary with more tokens than
// embedding rows are refused naming their key, never met later as a division or a bad row.
TEST(Model, ZeroCountsAndAVocabularyWithoutItsRowsAreRefusedByName) {
  auto load = [](GgufWriter w) {
    auto hp = ReadHparams(GgufFile::FromBytes(w.Bytes()).value());
    return hp.ok() ? std::string("loaded") : std::string(hp.status().message());
  };
  auto with = [](const std::string& key, GgufValue v) {
    GgufWriter w = MakeFixture(Dense());
    w.Set(key, std::move(v));
    return w;
  };
  auto u32 = [](uint64_t v) { return GgufValue::Uint(GgufType::kU32, v); };
  for (const char* key :
       {"llama.block_count", "llama.embedding_length", "llama.attention.head_count",
        "llama.attention.head_count_kv", "llama.attention.key_length"}) {
    EXPECT_EQ(load(with(key, u32(0))),
              std::string("gguf: key ") + key + " is not a positive integer");
  }
  EXPECT_EQ(load(with("general.architecture", u32(1))),
            "gguf: general.architecture is not a string");
  const size_t tensors = GgufFile::FromBytes(MakeFixture(Dense()).Bytes()).value().tensors().size();
  EXPECT_EQ(load(with("llama.block_count", GgufValue::Uint(GgufType::kU64, 10000000))),
            "gguf: key llama.block_count 10000000 is more layers than the file's " +
                std::to_string(tensors) + " tensors can hold");
  GgufWriter more = MakeFixture(Dense());
  const size_t rows =
      static_cast<size_t>(ReadHparams(GgufFile::FromBytes(more.Bytes()).value()).value().n_vocab);
  std::vector<GgufValue> tokens(rows + 1, GgufValue::String("t"));
  more.Set("tokenizer.ggml.tokens", GgufValue::Array(GgufType::kString, tokens));
  EXPECT_EQ(load(std::move(more)), "gguf: token_embd.weight has " + std::to_string(rows) +
                                       " rows, but tokenizer.ggml.tokens has " +
                                       std::to_string(rows + 1) + " tokens (one row per token)");
}

TEST(Model, AFullCacheIsAnErrorNotAnOverrun) {
  auto m = Load(Dense(), Cpu());
  auto cache = m->NewCache(4);
  auto r = m->Forward(kPrompt, cache.value());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
}

TEST(Fixture, TheSameSeedWritesTheSameBytesAndAnotherSeedDoesNot) {
  FixtureSpec a = Dense(), b = Dense();
  b.seed = 9;
  EXPECT_EQ(MakeFixture(a).Bytes(), MakeFixture(a).Bytes());
  EXPECT_NE(MakeFixture(a).Bytes(), MakeFixture(b).Bytes());
}

// A fixture's vocabulary is its bytes: text goes through the tokenizer byte for byte.
TEST(Fixture, ItsVocabularyRoundTripsTextThroughTheTokenizer) {
  auto tokenizer = Tokenizer::FromGguf(*FixtureFile(Dense()));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  std::vector<int32_t> ids =
      tokenizer->Encode("h\xc3\xa9llo", /*add_special=*/true, /*parse_special=*/false);
  EXPECT_EQ(ids, (std::vector<int32_t>{kFixtureBos, 'h', 0xC3, 0xA9, 'l', 'l', 'o'}));
  StreamDecoder decoder(tokenizer.value());
  std::string back;
  for (int32_t id : ids) back += decoder.Push(id);
  EXPECT_EQ(back, "h\xc3\xa9llo");
  EXPECT_EQ(tokenizer->eos(), kFixtureEos);
  EXPECT_EQ(tokenizer->Piece(kFixtureEos), "");
}

// --text-vocab: every ordinary token is whole text, so whatever a model generates decodes to
// valid UTF-8 one token at a time (the pinned llama-server answers 500 to anything else), and
// ASCII text still round-trips.
TEST(Fixture, ATextVocabularyDecodesEveryTokenToWholeText) {
  auto tokenizer = Tokenizer::FromGguf(*FixtureFile(FixtureSpec{.text_vocab = true}));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  for (int32_t id = 0; id < 256; ++id) {
    StreamDecoder decoder(tokenizer.value());
    std::string piece = decoder.Push(id);
    EXPECT_FALSE(piece.empty()) << "token " << id << " held back: not whole text";
    EXPECT_TRUE(decoder.Flush().empty()) << "token " << id;
  }
  std::vector<int32_t> ids =
      tokenizer->Encode("Hi there, vt!", /*add_special=*/true, /*parse_special=*/false);
  EXPECT_EQ(ids.front(), kFixtureBos);
  StreamDecoder decoder(tokenizer.value());
  std::string back;
  for (int32_t id : ids) back += decoder.Push(id);
  EXPECT_EQ(back, "Hi there, vt!");
}

}  // namespace
}  // namespace vt

namespace vt {
namespace {

// Embeddings pool Hiddens: each position's state after the final norm, which the output
// projection turns into exactly Forward's logits.
TEST(Model, HiddensAreWhatTheOutputProjectionMakesTheLogitsOf) {
  FixtureSpec s = Dense();
  auto model = Load(s, Cpu());
  const std::vector<int32_t> prompt = {1, 72, 105, 33};
  auto c1 = model->NewCache(16), c2 = model->NewCache(16);
  auto hidden = model->Hiddens(prompt, c1.value());
  auto logits = model->Forward(prompt, c2.value(), /*all_logits=*/true);
  ASSERT_TRUE(hidden.ok() && logits.ok()) << hidden.status().message();
  const int64_t n_embd = model->hparams().n_embd, n_vocab = model->hparams().n_vocab;
  ASSERT_EQ(hidden->size(), static_cast<size_t>(n_embd * 4));
  EXPECT_EQ(c1->n_past, 4) << "the cache advances as Forward's";
  const Tensor& out = model->output();
  ASSERT_EQ(out.dtype, DType::kF32);
  const float* w = static_cast<const float*>(out.data);
  for (int64_t p = 0; p < 4; ++p) {
    for (int64_t v = 0; v < n_vocab; v += 17) {
      double dot = 0;
      for (int64_t i = 0; i < n_embd; ++i)
        dot += static_cast<double>(w[v * n_embd + i]) *
               hidden.value()[static_cast<size_t>(p * n_embd + i)];
      EXPECT_NEAR(dot, logits.value()[static_cast<size_t>(p * n_vocab + v)], 1e-3)
          << "position " << p << ", token " << v;
    }
  }
  EXPECT_FALSE(model->Hiddens({}, c1.value()).ok());
}

}  // namespace
}  // namespace vt
