// The amx kernel set (specs/amx.md): the process's tile permission and its reasons (the CPU and
// the kernel faked at the arch_prctl boundary), the set chosen from it and VT_MATMUL, and the
// tile gemm's numbers against the float64 product of its bf16-rounded operands (skipped, saying
// so, on a CPU or kernel without tiles).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/amx_grant.h"
#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"
#include "cpu/thread_pool.h"
#include "matmul_problem.h"
#include "vt/quant.h"

namespace vt::cpu {
namespace {

struct FakeAmx final : AmxSystem {
  bool tiles = true;
  int64_t features = int64_t{1} << 18 | int64_t{1} << 17;
  int request = 0;
  mutable int asked = 0;
  bool CpuHasTiles() const override { return tiles; }
  int64_t SupportedFeatures() const override { return features; }
  int RequestTileData() const override { return ++asked, request; }
};

TEST(AmxGrant, ACpuWithoutTilesIsNamedAndTheKernelIsNotAsked) {
  FakeAmx fake;
  fake.tiles = false;
  const AmxGrant g = AskForAmx(fake);
  EXPECT_FALSE(g.granted);
  EXPECT_NE(g.why.find("the CPU has no AMX"), std::string::npos) << g.why;
  EXPECT_EQ(fake.asked, 0);
}

TEST(AmxGrant, AKernelWithoutTileDataIsNamed) {
  FakeAmx fake;
  fake.features = int64_t{1} << 17;
  const AmxGrant g = AskForAmx(fake);
  EXPECT_FALSE(g.granted);
  EXPECT_NE(g.why.find("does not support tile data"), std::string::npos) << g.why;
  EXPECT_EQ(fake.asked, 0);
}

TEST(AmxGrant, AKernelThatRefusesThePermissionIsNamedWithItsError) {
  FakeAmx fake;
  fake.request = -EPERM;
  const AmxGrant g = AskForAmx(fake);
  EXPECT_FALSE(g.granted);
  EXPECT_NE(g.why.find("refused the tile-data permission"), std::string::npos) << g.why;
  EXPECT_NE(g.why.find(std::strerror(EPERM)), std::string::npos) << g.why;
}

TEST(AmxGrant, GrantedWhenTheCpuTheKernelAndThePermissionSayYes) {
  FakeAmx fake;
  const AmxGrant g = AskForAmx(fake);
  EXPECT_TRUE(g.granted) << g.why;
  EXPECT_EQ(fake.asked, 1);
}

// A stand-in for the amx set: ChooseKernels only passes it on.
const MatmulKernels& FakeTileSet() {
  static const MatmulKernels fake{"amx",   nullptr, nullptr, nullptr, nullptr,
                                  nullptr, nullptr, nullptr, nullptr, nullptr,
                                  nullptr, false,   false,   nullptr, nullptr};
  return fake;
}

TEST(KernelChoice, ARefusedAmxFallsToTheNextBestSetAndSaysWhy) {
  const std::string why =
      "the kernel refused the tile-data permission (ARCH_REQ_XCOMP_PERM: Operation not permitted)";
  for (const std::string want : {"", "amx"}) {
    const KernelChoice c = ChooseKernels(want, false, nullptr, why);
    EXPECT_EQ(c.set, ChooseKernels("avx512", false, nullptr, "").set) << want;
    EXPECT_EQ(c.why, "amx: " + why) << want;
    EXPECT_EQ(c.requested, want);
  }
}

TEST(KernelChoice, AGrantedAmxIsTheDefaultAndVtMatmulCanAskForAnother) {
  EXPECT_EQ(ChooseKernels("", false, &FakeTileSet(), "").set, &FakeTileSet());
  EXPECT_EQ(ChooseKernels("amx", true, &FakeTileSet(), "").set, &FakeTileSet());
  const KernelChoice generic = ChooseKernels("generic", false, &FakeTileSet(), "");
  EXPECT_EQ(generic.set, &GenericKernels());
  EXPECT_EQ(generic.why, "");
  // A name in another case or with spaces is the set; an unknown one runs the default, saying so.
  EXPECT_EQ(ChooseKernels(" AMX ", false, &FakeTileSet(), "").set, &FakeTileSet());
  EXPECT_EQ(ChooseKernels("Generic", false, &FakeTileSet(), "").set, &GenericKernels());
  const KernelChoice unknown = ChooseKernels("avx9", false, &FakeTileSet(), "");
  EXPECT_EQ(unknown.set, &FakeTileSet());
  EXPECT_NE(unknown.why.find(
                "avx9: no such set (amx, avx512-bf16, avx512, avx2, generic), so the default"),
            std::string::npos)
      << unknown.why;
  const KernelChoice without = ChooseKernels("avx9", false, nullptr, "the CPU has no AMX");
  EXPECT_EQ(without.set, ChooseKernels("", false, nullptr, "").set);
  EXPECT_NE(without.why.find("so the default; amx: the CPU has no AMX"), std::string::npos)
      << without.why;
}

// vt-serve's choice (vt::KeepBatchInvariantKernels): the default keeps the amx set, for weights
// in tile order, with the tile gemm of weights packed per call off, and says so; VT_MATMUL=amx
// still gets that too.
TEST(KernelChoice, ABatchInvariantDefaultKeepsOnlyTileOrderOnTheTilesAndSaysHowToAskForTheRest) {
  const KernelChoice plain = ChooseKernels("", false, &FakeTileSet(), "", /*tiles_default=*/false);
  EXPECT_EQ(plain.set, &FakeTileSet());
  EXPECT_TRUE(plain.batch_invariant);
  EXPECT_NE(plain.why.find("batch-invariant: only weights in tile order on the tiles"),
            std::string::npos)
      << plain.why;
  EXPECT_NE(plain.why.find("VT_MATMUL=amx: a plain run's tiles instead"), std::string::npos)
      << plain.why;
  const KernelChoice asked = ChooseKernels("amx", false, &FakeTileSet(), "", false);
  EXPECT_EQ(asked.set, &FakeTileSet());
  EXPECT_FALSE(asked.batch_invariant);
  EXPECT_FALSE(ChooseKernels("", false, &FakeTileSet(), "").batch_invariant);
  // Without AMX the choice still keeps each token's attention a decode's (specs/amx.md).
  EXPECT_TRUE(ChooseKernels("", false, nullptr, "the CPU has no AMX", false).batch_invariant);
  EXPECT_FALSE(
      ChooseKernels("avx512", false, nullptr, "the CPU has no AMX", false).batch_invariant);
}

// Rows past 16, a K past the 2048-deep packed block with a tail short of a tile, columns that
// start mid-way, cross the 128-column block and end inside a tile (columns 131..140: the edge
// tile stored through its buffer, and nothing past it written).
TEST(CpuAmx, TheTileGemmIsTheProductOfBf16RoundedOperands) {
  const MatmulKernels* amx = AmxKernels();
  if (amx == nullptr) GTEST_SKIP() << "no amx set here: " << ChosenKernels().why;
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (int64_t M : {17, 32, 45}) {
      for (int64_t K : {40, 2100}) {
        SCOPED_TRACE(std::string(DTypeName(t)) + " M=" + std::to_string(M) +
                     " K=" + std::to_string(K));
        Check(*amx, MakeProblem(M, K, 150, t), 3, 141, Path::kTiles);
      }
    }
  }
}

// The pool's path (tile_activations once, then tile_gemm per column range) over panels gives
// the bits of the same over plain rows: both pack the same bf16 tiles.
TEST(CpuAmx, PanelsAndPlainRowsGiveTheSameBits) {
  const MatmulKernels* amx = AmxKernels();
  if (amx == nullptr) GTEST_SKIP() << "no amx set here: " << ChosenKernels().why;
  for (DType t : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(DTypeName(t));
    const Problem p = MakeProblem(37, 2081, 150, t);
    std::vector<uint8_t> panels(p.w.size());
    Interleave(t, p.w.data(), panels.data(), p.N, p.K);
    std::vector<uint16_t> xb(static_cast<size_t>(TileRowsOf(p.M) * TileDepthOf(p.K)));
    std::vector<float> plain(static_cast<size_t>(p.M * p.N), -1), tiled(plain);
    GemmArgs a{reinterpret_cast<const char*>(p.w.data()),
               t,
               static_cast<size_t>(p.K) * 2,
               p.x.data(),
               static_cast<size_t>(p.K),
               plain.data(),
               static_cast<size_t>(p.N),
               p.M,
               p.N,
               p.K};
    amx->tile_activations(a, 0, 32, xb.data());
    amx->tile_activations(a, 32, TileRowsOf(p.M), xb.data());
    amx->tile_gemm(a, xb.data(), 0, 64);
    amx->tile_gemm(a, xb.data(), 64, p.N);
    a.w = reinterpret_cast<const char*>(panels.data());
    a.wtype = InterleavedOf(t);
    a.out = tiled.data();
    amx->tile_gemm(a, xb.data(), 0, 96);
    amx->tile_gemm(a, xb.data(), 96, p.N);
    for (size_t i = 0; i < plain.size(); ++i)
      ASSERT_EQ(tiled[i], plain[i]) << "out[" << i / p.N << "][" << i % p.N << "]";
    Check(*amx, p, 0, p.N, Path::kTiles);
  }
}

// Block-type weights, plain and interleaved, are packed as their dequantized values: the tile
// gemm of Q8_0, Q4_K, Q6_K, Q4_0x16 and Q4_Kx16 rows equals, bit for bit, the tile gemm of the
// same rows dequantized to f32 (K = 2304: past the 2048-deep block, whole 256-blocks; columns in
// two ranges, the second starting inside the first 128-column block).
TEST(CpuAmx, BlockTypeWeightsAreTheirDequantizedValuesOnTheTiles) {
  const MatmulKernels* amx = AmxKernels();
  if (amx == nullptr) GTEST_SKIP() << "no amx set here: " << ChosenKernels().why;
  const int64_t M = 50, K = 2304, N = 150;
  const Problem p = MakeProblem(M, K, N, DType::kF32);
  std::vector<uint16_t> xb(static_cast<size_t>(TileRowsOf(M) * TileDepthOf(K)));
  GemmArgs a{
      nullptr, DType::kF32, 0, p.x.data(), static_cast<size_t>(K), nullptr, static_cast<size_t>(N),
      M,       N,           K};
  amx->tile_activations(a, 0, TileRowsOf(M), xb.data());
  for (DType t : {DType::kQ8_0, DType::kQ4_K, DType::kQ6_K, DType::kQ4_0x16, DType::kQ4_Kx16}) {
    SCOPED_TRACE(DTypeName(t));
    const DType plain = PlainOf(t);
    const size_t row_bytes = RowBytes(plain, K);
    std::vector<uint8_t> q(row_bytes * N), w(q.size());
    std::vector<float> wf(static_cast<size_t>(N * K));
    for (int64_t n = 0; n < N; ++n) {
      ASSERT_TRUE(QuantizeRow(plain, p.wf.data() + n * K, q.data() + n * row_bytes, K).ok());
      DequantizeRow(plain, q.data() + n * row_bytes, wf.data() + n * K, K);
    }
    if (t == plain)
      w = q;
    else
      Interleave(plain, q.data(), w.data(), N, K);
    std::vector<float> got(static_cast<size_t>(M * N), -1), want(got);
    a.w = reinterpret_cast<const char*>(w.data()), a.wtype = t, a.w_stride = row_bytes,
    a.out = got.data();
    amx->tile_gemm(a, xb.data(), 0, 64);
    amx->tile_gemm(a, xb.data(), 64, N);
    a.w = reinterpret_cast<const char*>(wf.data()), a.wtype = DType::kF32,
    a.w_stride = K * sizeof(float), a.out = want.data();
    amx->tile_gemm(a, xb.data(), 0, N);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << "out[" << i / N << "][" << i % N << "]";
  }
}

// The model's matmuls past kShortGemmRows (48) rows take the tiles where the best set has them:
// through the backend's Matmul on two threads (activations rounded by the pool, columns split
// in blocks of 32), 49 and 100 rows equal the tile gemm on one thread bit for bit; 16 and 48
// rows stay on the AVX-512 set's decode and short-prompt kernels.
TEST(CpuAmx, TheBackendsMatmulPastFortyEightRowsIsTheTileGemm) {
  const MatmulKernels& best = BestKernels();
  if (best.tile_gemm == nullptr)
    GTEST_SKIP() << best.name << " has no tiles: " << ChosenKernels().why;
  for (int64_t M : {16, 48, 49, 100}) {
    SCOPED_TRACE("M=" + std::to_string(M));
    const Problem p = MakeProblem(M, 1100, 300, DType::kF16);
    const std::vector<float> got = BackendMatmul(p, 2);
    std::vector<float> want(got.size());
    GemmArgs a{reinterpret_cast<const char*>(p.w.data()),
               p.wtype,
               static_cast<size_t>(p.K) * 2,
               p.x.data(),
               static_cast<size_t>(p.K),
               want.data(),
               static_cast<size_t>(p.N),
               p.M,
               p.N,
               p.K};
    std::vector<uint16_t> xb(static_cast<size_t>(TileRowsOf(p.M) * TileDepthOf(p.K)));
    std::vector<float> panel;
    if (M > kShortGemmRows) {
      best.tile_activations(a, 0, TileRowsOf(p.M), xb.data());
      best.tile_gemm(a, xb.data(), 0, p.N);
    } else if (M > kGemvMaxRows) {
      best.short_gemm(a, best.pack_short(a, &panel), 0, p.N);
    } else {
      best.gemv(a, 0, p.N);
    }
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << "out[" << i / p.N << "][" << i % p.N << "]";
  }
}

// The backend's Matmul of p's first `rows` rows over its weights as the backend adopts them.
std::vector<float> AdoptedMatmul(const Problem& p, const Tensor& w, int64_t rows, int threads) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor x = NewTensor(cpu, DType::kF32, {p.K, rows, 1, 1}).value(),
         out = NewTensor(cpu, DType::kF32, {p.N, rows, 1, 1}).value();
  std::memcpy(x.data, p.x.data(), static_cast<size_t>(rows * p.K) * sizeof(float));
  ThreadPool pool(threads);
  Matmul(Op{OpKind::kMatmul, {&w, &x}, &out, {}}, pool);
  return {static_cast<const float*>(out.data), static_cast<const float*>(out.data) + rows * p.N};
}

// p's weights as a CPU tensor, and packed in tile order (what HoldsInTileOrder has the backend
// adopt under vt-serve's choice).
Tensor Plain(const Problem& p) {
  Tensor w = NewTensor(*GetBackend(DeviceType::kCPU), p.wtype, {p.K, p.N, 1, 1}).value();
  std::memcpy(w.data, p.w.data(), p.w.size());
  return w;
}

Tensor InTileOrder(const Problem& p) {
  Tensor w = NewTensor(*GetBackend(DeviceType::kCPU), DType::kBF16Tiles, {p.K, p.N, 1, 1}).value();
  PackTiles(p.wtype, p.w.data(), w.data, p.N, p.K);
  return w;
}

// vt-serve's choice holds 2-D f16 and bf16 matrices of whole 16-row groups and 32-value k tiles
// in tile order; the default choice, f32, 150 rows, 3-D experts keep their layouts. Tile order
// puts each value at TileIndex and gives it back as bf16 (f16 rounded, bf16 exact).
TEST(CpuAmx, VtServesChoiceHoldsF16AndBf16MatricesInTileOrder) {
  const MatmulKernels* amx = AmxKernels();
  if (amx == nullptr) GTEST_SKIP() << "no amx set here: " << ChosenKernels().why;
  const KernelChoice serve = ChooseKernels("", false, amx, "", false),
                     plain = ChooseKernels("", false, amx, "");
  for (DType t : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(DTypeName(t));
    const Problem p = MakeProblem(1, 96, 48, t);
    const Tensor w = Plain(p);
    EXPECT_TRUE(HoldsInTileOrder(serve, w));
    EXPECT_FALSE(HoldsInTileOrder(plain, w));
    const Tensor tiles = InTileOrder(p);
    std::vector<uint16_t> rows(static_cast<size_t>(p.N * p.K));
    PlainRowsOf(tiles.dtype, tiles.data, p.N, p.K, 0, p.N, rows.data());
    for (int64_t i = 0; i < p.N * p.K; ++i) {
      ASSERT_EQ(rows[i], F32ToBF16(p.wf[i])) << "w[" << i / p.K << "][" << i % p.K << "]";
      ASSERT_EQ(static_cast<const uint16_t*>(tiles.data)[TileIndex(p.K, i / p.K, i % p.K)],
                rows[i]);
    }
    EXPECT_FALSE(HoldsInTileOrder(serve, Plain(MakeProblem(1, 96, 150, t))));
    const Tensor experts = NewTensor(*GetBackend(DeviceType::kCPU), t, {96, 16, 3, 1})
                               .value();  // three experts' 16 x 96
    EXPECT_FALSE(HoldsInTileOrder(serve, experts));
  }
  EXPECT_FALSE(HoldsInTileOrder(serve, Plain(MakeProblem(1, 96, 48, DType::kF32))));
}

// The tile kernels' rows over weights in tile order (f16 rounded to bf16) against the float64
// product of the bf16-rounded operands, rows [0, rows) of `got`.
void ExpectBf16Product(const Problem& p, const std::vector<float>& got, int64_t rows) {
  for (int64_t m = 0; m < rows; m += 3) {
    for (int64_t n = 0; n < p.N; ++n) {
      double want = 0, mag = 0;
      for (int64_t k = 0; k < p.K; ++k) {
        const double t = double{BF16ToF32(F32ToBF16(p.wf[n * p.K + k]))} *
                         BF16ToF32(F32ToBF16(p.x[m * p.K + k]));
        want += t, mag += std::fabs(t);
      }
      ASSERT_NEAR(got[m * p.N + n], want, 1e-5 * mag + 1e-6) << "out[" << m << "][" << n << "]";
    }
  }
}

// tile_gemm of p's first `rows` rows over w in tile order, columns in two ranges.
std::vector<float> TileKernel(const Problem& p, const Tensor& w, int64_t rows) {
  const MatmulKernels& k = BestKernels();
  std::vector<float> out(static_cast<size_t>(rows * p.N), -1);
  const GemmArgs a{static_cast<const char*>(w.data),
                   w.dtype,
                   0,
                   p.x.data(),
                   static_cast<size_t>(p.K),
                   out.data(),
                   static_cast<size_t>(p.N),
                   rows,
                   p.N,
                   p.K};
  std::vector<uint16_t> xb(static_cast<size_t>(TileRowsOf(rows) * TileDepthOf(p.K)));
  k.tile_activations(a, 0, rows <= kGemvMaxRows ? rows : TileRowsOf(rows), xb.data());
  k.tile_gemm(a, xb.data(), 0, 64);
  k.tile_gemm(a, xb.data(), 64, p.N);
  return out;
}

// Weights in tile order on the tiles: a row's sums are the same bits in a step of 1 row or 100
// (one A tile of the decode's rows, Block32's pairs of them; K past the 2048-deep block), and
// the backend's Matmul and DecodeGroup are those bits, on one thread or two.
TEST(CpuAmx, ATileOrderRowIsTheSameInEveryStepSize) {
  if (BestKernels().tile_gemm == nullptr)
    GTEST_SKIP() << BestKernels().name << " has no tiles: " << ChosenKernels().why;
  const Problem p = MakeProblem(100, 2304, 160, DType::kF16);
  const Tensor w = InTileOrder(p);
  const std::vector<float> all = TileKernel(p, w, p.M);
  ExpectBf16Product(p, all, p.M);
  for (int64_t rows : {1, 2, 5, 16, 17, 48, 49}) {
    const std::vector<float> got = TileKernel(p, w, rows);
    for (int64_t i = 0; i < rows * p.N; ++i)
      ASSERT_EQ(got[i], all[i]) << rows << " rows, out[" << i / p.N << "][" << i % p.N << "]";
    for (int threads : {1, 2}) {
      const std::vector<float> backend = AdoptedMatmul(p, w, rows, threads);
      for (int64_t i = 0; i < rows * p.N; ++i)
        ASSERT_EQ(backend[i], all[i]) << rows << " rows, " << threads << " threads";
    }
  }
  // Two decodes at once, as a layer's q, k and v: DecodeGroup's units of 16 columns.
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor x = NewTensor(cpu, DType::kF32, {p.K, 3, 1, 1}).value(),
         o1 = NewTensor(cpu, DType::kF32, {p.N, 3, 1, 1}).value();
  Tensor o2 = NewTensor(cpu, DType::kF32, {p.N, 3, 1, 1}).value();
  std::memcpy(x.data, p.x.data(), static_cast<size_t>(3 * p.K) * sizeof(float));
  ThreadPool pool(2);
  ASSERT_TRUE(DecodeGroup(
      {Op{OpKind::kMatmul, {&w, &x}, &o1, {}}, Op{OpKind::kMatmul, {&w, &x}, &o2, {}}}, pool));
  for (int64_t i = 0; i < 3 * p.N; ++i) {
    ASSERT_EQ(static_cast<const float*>(o1.data)[i], all[i])
        << "out[" << i / p.N << "][" << i % p.N << "]";
    ASSERT_EQ(static_cast<const float*>(o2.data)[i], all[i])
        << "out[" << i / p.N << "][" << i % p.N << "]";
  }
}

}  // namespace
}  // namespace vt::cpu
