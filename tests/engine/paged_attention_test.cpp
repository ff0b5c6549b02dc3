// Paged attention: keys and values read through a block table's row map (OpKind::kAttention's
// rows input) are the contiguous cache's, on every backend and through the model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include "cpu/cpu_ops.h"
#include "cpu/thread_pool.h"
#include "fixture_support.h"
#include "parity_support.h"
#include "vt/backend.h"
#include "vt/fixture.h"
#include "vt/model.h"

namespace vt {
namespace {

using testing::IntTensor;
using testing::RandomTensor;

Backend& Cpu() { return *GetBackend(DeviceType::kCPU); }

// A shuffled block table for `positions` positions in a pool of `n_blocks` blocks of `bs`.
std::vector<int32_t> ShuffledBlocks(int64_t n_blocks, std::mt19937& rng) {
  std::vector<int32_t> blocks(static_cast<size_t>(n_blocks));
  std::iota(blocks.begin(), blocks.end(), 0);
  std::shuffle(blocks.begin(), blocks.end(), rng);
  return blocks;
}

// The row map of a block table: position j in row blocks[j / bs] · bs + j % bs.
std::vector<int32_t> RowsOf(const std::vector<int32_t>& blocks, int64_t visible, int64_t bs) {
  std::vector<int32_t> rows(static_cast<size_t>(visible));
  for (int64_t j = 0; j < visible; ++j)
    rows[static_cast<size_t>(j)] =
        static_cast<int32_t>(blocks[static_cast<size_t>(j / bs)] * bs + j % bs);
  return rows;
}

// A pool of random rows with `cache`'s rows [0, n) copied to rows[j]: any other row read is noise.
Tensor PoolOf(const Tensor& cache, const std::vector<int32_t>& rows, int64_t pool_rows,
              std::mt19937& rng) {
  Tensor pool = RandomTensor(cache.dtype, {cache.ne[0], cache.ne[1], pool_rows, 1}, rng);
  for (size_t j = 0; j < rows.size(); ++j) {
    std::memcpy(static_cast<char*>(pool.data) + rows[j] * pool.nb[2],
                static_cast<const char*>(cache.data) + j * cache.nb[2], cache.nb[2]);
  }
  return pool;
}

// `src` (host tensors) through `kind` on `b`, the output's floats.
std::vector<float> RunOnBackend(Backend& b, const std::vector<Tensor>& src, const OpParams& p) {
  std::vector<Tensor> on;
  for (const Tensor& h : src) {
    Tensor t = NewTensor(b, h.dtype, h.ne).value();
    EXPECT_TRUE(b.CopyIn(t.data, h.data, h.ByteSize()).ok());
    on.push_back(t);
  }
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : on) ptrs.push_back(&t);
  Tensor out = NewTensor(b, DType::kF32, src[0].ne).value();
  Status s = RunOp(b, Op{OpKind::kAttention, ptrs, &out, p});
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<float> got(static_cast<size_t>(out.NumElements()));
  EXPECT_TRUE(b.CopyOut(got.data(), out.data, out.ByteSize()).ok());
  return got;
}

struct Case {
  int64_t hd, heads, kv_heads, tokens;
  int n_past, window;
  DType cache;
  bool sinks;
};
const Case kCases[] = {
    {64, 8, 2, 1, 250, 0, DType::kF16, false},  {64, 4, 2, 1, 77, 0, DType::kF32, true},
    {64, 4, 2, 130, 30, 0, DType::kF32, false}, {32, 4, 1, 100, 20, 48, DType::kF16, true},
    {32, 6, 3, 5, 3, 0, DType::kF32, false},    {64, 4, 2, 12, 60, 0, DType::kF16, true}};

// The reference reads the rows it is given, and every backend agrees with it.
TEST(PagedAttention, EveryBackendReadsTheRowsTheTableNames) {
  std::mt19937 rng(59);
  const int64_t bs = 16;
  for (const Case& c : kCases) {
    const int64_t visible = c.n_past + c.tokens, n_blocks = (visible + bs - 1) / bs + 3;
    Tensor q = RandomTensor(DType::kF32, {c.hd, c.heads, c.tokens, 1}, rng, -0.5, 0.5);
    Tensor k = RandomTensor(c.cache, {c.hd, c.kv_heads, visible, 1}, rng);
    Tensor v = RandomTensor(c.cache, {c.hd, c.kv_heads, visible, 1}, rng);
    Tensor sinks = RandomTensor(DType::kF32, {c.heads, 1, 1, 1}, rng, 0, 4);
    const std::vector<int32_t> rows = RowsOf(ShuffledBlocks(n_blocks, rng), visible, bs);
    Tensor kp = PoolOf(k, rows, n_blocks * bs, rng), vp = PoolOf(v, rows, n_blocks * bs, rng),
           map = IntTensor(rows);
    OpParams p;
    p.n_past = c.n_past;
    p.window = c.window;
    std::vector<const Tensor*> flat{&q, &k, &v}, paged{&q, &kp, &vp};
    if (c.sinks) flat.push_back(&sinks), paged.push_back(&sinks);
    paged.push_back(&map);
    SCOPED_TRACE("tokens=" + std::to_string(c.tokens) + " n_past=" + std::to_string(c.n_past));
    EXPECT_EQ(testing::ReferenceOutput(OpKind::kAttention, paged, p),
              testing::ReferenceOutput(OpKind::kAttention, flat, p));
    std::vector<Tensor> inputs;
    for (const Tensor* t : paged) inputs.push_back(*t);
    for (Backend* b : testing::KernelBackends())
      EXPECT_TRUE(testing::Parity(*b, OpKind::kAttention, inputs, p, testing::kTierGeneral));
  }
}

// The CPU's arithmetic over a paged cache is the contiguous cache's, bit for bit, whether the
// table's rows are scattered (gathered first) or run on (read in place).
TEST(PagedAttention, TheCpuIsBitIdenticalToTheContiguousCache) {
  std::mt19937 rng(60);
  const int64_t bs = 16;
  for (const Case& c : kCases) {
    const int64_t visible = c.n_past + c.tokens, n_blocks = (visible + bs - 1) / bs + 3;
    Tensor q = RandomTensor(DType::kF32, {c.hd, c.heads, c.tokens, 1}, rng, -0.5, 0.5);
    Tensor k = RandomTensor(c.cache, {c.hd, c.kv_heads, visible, 1}, rng);
    Tensor v = RandomTensor(c.cache, {c.hd, c.kv_heads, visible, 1}, rng);
    OpParams p;
    p.n_past = c.n_past;
    p.window = c.window;
    const std::vector<float> flat = RunOnBackend(Cpu(), {q, k, v}, p);
    std::vector<int32_t> scattered = ShuffledBlocks(n_blocks, rng),
                         run(static_cast<size_t>(n_blocks));
    std::iota(run.begin(), run.end(), 2);  // blocks 2, 3, ...: one run of rows
    for (const std::vector<int32_t>* blocks : {&scattered, &run}) {
      const std::vector<int32_t> rows = RowsOf(*blocks, visible, bs);
      const int64_t pool_rows = (n_blocks + 2) * bs;
      EXPECT_EQ(RunOnBackend(Cpu(),
                             {q, PoolOf(k, rows, pool_rows, rng), PoolOf(v, rows, pool_rows, rng),
                              IntTensor(rows)},
                             p),
                flat)
          << "tokens=" << c.tokens << " n_past=" << c.n_past
          << (blocks == &run ? " (one run)" : " (scattered)");
    }
  }
}

// The model over a pool with a shuffled block table (a prompt in chunks that cross blocks,
// then decode steps) gives the logits of its own contiguous cache, bit for bit.
TEST(PagedAttention, ModelLogitsThroughABlockTableAreTheContiguousCachesBitForBit) {
  for (const char* arch : {"llama", "gemma3"}) {
    FixtureSpec spec;
    spec.arch = arch;
    if (spec.arch == "gemma3") spec.sliding_window = 8, spec.swa_pattern = 2;
    auto model = Model::Load(testing::FixtureFile(spec), Engine{MakeQueue(Cpu())});
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    std::mt19937 rng(61);
    auto pool = model.value()->NewKvPool(12, 4);
    ASSERT_TRUE(pool.ok()) << pool.status().ToString();
    KvCache paged = pool.value(), flat = model.value()->NewCache(48).value();
    paged.blocks = ShuffledBlocks(12, rng);
    paged.n_ctx = 48;
    std::vector<int32_t> tokens(40);
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int32_t>(rng() % 256);
    for (size_t at = 0; at < tokens.size();) {
      size_t n = at < 30 ? 7 : 1;  // chunks of 7 across 4-position blocks, then decodes
      std::vector<int32_t> chunk(
          tokens.begin() + static_cast<std::ptrdiff_t>(at),
          tokens.begin() + static_cast<std::ptrdiff_t>(std::min(at + n, tokens.size())));
      auto a = model.value()->Forward(chunk, paged), b = model.value()->Forward(chunk, flat);
      ASSERT_TRUE(a.ok() && b.ok()) << a.status().ToString() << b.status().ToString();
      ASSERT_EQ(a.value(), b.value()) << arch << " at position " << at;
      at += chunk.size();
    }
  }
}

// q's token t alone, as a decode step of it has it.
Tensor TokenOf(const Tensor& q, int64_t t) {
  Tensor one = NewTensor(Cpu(), DType::kF32, {q.ne[0], q.ne[1], 1, 1}).value();
  std::memcpy(one.data, static_cast<const char*>(q.data) + t * q.nb[2], q.nb[2]);
  return one;
}

// Under the batch-invariant choice (vt-serve) a chunk's attention is its tokens' decode steps
// bit for bit (specs/amx.md): each row of a 40-token chunk over a paged cache equals that token
// decoded alone over the cache up to it, for f32, f16, bf16 and q8_0 caches, GQA, a window and
// sinks; the prompt path (packed gemms) is not, which is why.
TEST(CpuAttention, UnderBatchInvarianceAChunkIsItsTokensDecoded) {
  std::mt19937 rng(62);
  const int64_t bs = 16, hd = 64, heads = 4, kv = 2, T = 40, n_past = 23, visible = n_past + T,
                n_blocks = visible / bs + 2;
  ThreadPool pool(2);
  for (DType cache : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ8_0}) {
    for (int window : {0, 24}) {
      SCOPED_TRACE(std::string(DTypeName(cache)) + " window " + std::to_string(window));
      Tensor q = RandomTensor(DType::kF32, {hd, heads, T, 1}, rng, -0.5, 0.5),
             sinks = RandomTensor(DType::kF32, {heads, 1, 1, 1}, rng, 0, 4);
      Tensor k = RandomTensor(cache, {hd, kv, visible, 1}, rng),
             v = RandomTensor(cache, {hd, kv, visible, 1}, rng);
      const std::vector<int32_t> rows = RowsOf(ShuffledBlocks(n_blocks, rng), visible, bs);
      Tensor kp = PoolOf(k, rows, n_blocks * bs, rng), vp = PoolOf(v, rows, n_blocks * bs, rng),
             map = IntTensor(rows);
      OpParams p;
      p.n_past = n_past;
      p.window = window;
      Tensor chunk = NewTensor(Cpu(), DType::kF32, q.ne).value(),
             packed = NewTensor(Cpu(), DType::kF32, q.ne).value();
      cpu::AttentionOf(Op{OpKind::kAttention, {&q, &kp, &vp, &sinks, &map}, &chunk, p}, pool, true);
      cpu::AttentionOf(Op{OpKind::kAttention, {&q, &kp, &vp, &sinks, &map}, &packed, p}, pool,
                       false);
      bool prompt_path_differs = false;
      for (int64_t t = 0; t < T; ++t) {
        Tensor one = TokenOf(q, t), out = NewTensor(Cpu(), DType::kF32, one.ne).value();
        Tensor upto = IntTensor(std::vector<int32_t>(rows.begin(), rows.begin() + n_past + t + 1));
        OpParams step = p;
        step.n_past = n_past + t;
        cpu::AttentionOf(Op{OpKind::kAttention, {&one, &kp, &vp, &sinks, &upto}, &out, step}, pool,
                         true);
        const float* want = static_cast<const float*>(out.data);
        const float* got = static_cast<const float*>(chunk.data) + t * hd * heads;
        const float* gemm = static_cast<const float*>(packed.data) + t * hd * heads;
        for (int64_t i = 0; i < hd * heads; ++i)
          ASSERT_EQ(got[i], want[i]) << "token " << t << ", value " << i;
        prompt_path_differs = prompt_path_differs || !std::equal(gemm, gemm + hd * heads, want);
      }
      if (cache == DType::kF32) {
        EXPECT_TRUE(prompt_path_differs)
            << "the packed gemms' chunk equals the decode: the control sees nothing";
      }
    }
  }
}

// A table naming a block outside the pool is refused, not read.
TEST(PagedAttention, ABlockOutsideThePoolIsRefused) {
  FixtureSpec spec;
  auto model = Model::Load(testing::FixtureFile(spec), Engine{MakeQueue(Cpu())});
  ASSERT_TRUE(model.ok());
  KvCache c = model.value()->NewKvPool(4, 4).value();
  c.blocks = {0, 4};
  c.n_ctx = 8;
  auto out = model.value()->Forward({1, 2, 3, 4, 5, 6}, c);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("block 4 is outside the pool of 4"), std::string::npos)
      << out.status().message();
}

}  // namespace
}  // namespace vt
