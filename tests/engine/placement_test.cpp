#include "vt/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "parity_support.h"
#include "vt/loopback.h"
#include "vt/quant.h"

namespace vt {
namespace {

constexpr int64_t kD = 48, kF = 40, kE = 6, kT = 5;

// One MoE block's weights on the CPU, and an input x.
class Placement : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937 rng(99);
    router_ = testing::RandomTensor(DType::kF32, {kD, kE, 1, 1}, rng);
    gate_ = testing::RandomTensor(DType::kBF16, {kD, kF, kE, 1}, rng);
    up_ = testing::RandomTensor(DType::kBF16, {kD, kF, kE, 1}, rng);
    down_ = testing::RandomTensor(DType::kBF16, {kF, kD, kE, 1}, rng);
    x_ = testing::RandomTensor(DType::kF32, {kD, kT, 1, 1}, rng);
    weights_ = MoeWeights{&router_, &gate_, &up_, &down_, 2};
  }
  Backend& Cpu() { return *GetBackend(DeviceType::kCPU); }
  Tensor Output(Backend& b) { return NewTensor(b, DType::kF32, {kD, kT, 1, 1}).value(); }
  PlacementQueue CpuPlacement() { return PlacementQueue::Create(Cpu()).value(); }

  Tensor router_, gate_, up_, down_, x_;
  MoeWeights weights_{};
};

TEST_F(Placement, OnlyTheCpuIsALegalPlacementTarget) {
  auto loop = MakeLoopbackBackend();
  auto placed = PlacementQueue::Create(*loop);
  ASSERT_FALSE(placed.ok());
  EXPECT_EQ(placed.status().message(),
            "MoE placement target xpu is not allowed: experts may only be placed on cpu");
  EXPECT_TRUE(PlacementQueue::Create(Cpu()).ok());
}

TEST_F(Placement, ALoopbackEngineMovesExactlyTheActivationsThereAndBack) {
  auto loop = MakeLoopbackBackend();
  Engine engine{MakeQueue(*loop)};
  Tensor x = NewTensor(*loop, DType::kF32, x_.ne).value();
  ASSERT_TRUE(CopyTensor(x_, x).ok());
  Tensor y = Output(*loop);
  ResetLoopbackCounts(*loop);
  PlacementQueue placement = CpuPlacement();
  MoeCopies copies;
  Status s = RunMoe(engine, &placement, weights_, x, y, &copies);
  ASSERT_TRUE(s.ok()) << s.ToString();
  TransferCounts counts = LoopbackCounts(*loop);
  EXPECT_EQ(counts.to_host, 1u);
  EXPECT_EQ(counts.to_host_bytes, static_cast<size_t>(kD * kT * 4));
  EXPECT_EQ(counts.to_device, 1u);
  EXPECT_EQ(counts.to_device_bytes, static_cast<size_t>(kD * kT * 4));
  EXPECT_EQ(counts.within, 0u);
  EXPECT_EQ(copies.count, 2);
}

TEST_F(Placement, WithoutPlacementALoopbackEngineFailsWithNoKernel) {
  auto loop = MakeLoopbackBackend();
  Engine engine{MakeQueue(*loop)};
  Tensor router = NewTensor(*loop, DType::kF32, router_.ne).value();
  Tensor x = NewTensor(*loop, DType::kF32, x_.ne).value();
  Tensor y = Output(*loop);
  MoeWeights on_device = weights_;
  on_device.router = &router;
  Status s = RunMoe(engine, nullptr, on_device, x, y);
  EXPECT_EQ(s.message(), "no kernel for op Matmul on device xpu");
}

TEST_F(Placement, PlacementOnTheEngineDeviceShortCircuitsWithZeroCopies) {
  Engine engine{MakeQueue(Cpu())};
  Tensor y = Output(Cpu());
  PlacementQueue placement = CpuPlacement();
  MoeCopies copies;
  ASSERT_TRUE(RunMoe(engine, &placement, weights_, x_, y, &copies).ok());
  EXPECT_EQ(copies.count, 0);
  EXPECT_EQ(copies.bytes, 0u);
}

// The placed arm through the loopback, the placed arm on CPU and the unplaced arm on CPU
// compute the same bytes: the seam moves data, it never changes results.
TEST_F(Placement, PlacedAndUnplacedArmsAreByteIdentical) {
  Engine cpu{MakeQueue(Cpu())};
  PlacementQueue placement = CpuPlacement();
  Tensor unplaced = Output(Cpu()), placed = Output(Cpu()), via_loopback = Output(Cpu());
  ASSERT_TRUE(RunMoe(cpu, nullptr, weights_, x_, unplaced).ok());
  ASSERT_TRUE(RunMoe(cpu, &placement, weights_, x_, placed).ok());
  auto loop = MakeLoopbackBackend();
  Engine engine{MakeQueue(*loop)};
  Tensor x = NewTensor(*loop, DType::kF32, x_.ne).value();
  Tensor y = Output(*loop);
  ASSERT_TRUE(CopyTensor(x_, x).ok());
  ASSERT_TRUE(RunMoe(engine, &placement, weights_, x, y).ok());
  ASSERT_TRUE(CopyTensor(y, via_loopback).ok());
  EXPECT_EQ(std::memcmp(unplaced.data, placed.data, unplaced.ByteSize()), 0);
  EXPECT_EQ(std::memcmp(unplaced.data, via_loopback.data, unplaced.ByteSize()), 0);
}

// gpt-oss's additions to an MoE block: biases after the router and each expert matmul, and
// the clamped SwiGLU (absent: llama's MoE).
struct OaiExtras {
  const Tensor *router_b, *gate_b, *up_b, *down_b;
};

// An independent oracle in plain double loops: softmax over all experts, top-k, renormalise,
// Σ w_e · down_e(silu(gate_e x) * up_e x) (llama.cpp's llama-arch MoE); with `oai`, gpt-oss's:
// each matmul's bias added, and min(g, 7)·σ(1.702·min(g, 7))·(clamp(u, ±7) + 1) as the gate.
std::vector<float> MoeByHand(const Tensor& router, const Tensor& gate, const Tensor& up,
                             const Tensor& down, const Tensor& x, int k,
                             const OaiExtras* oai = nullptr) {
  auto at = [](const Tensor& t, int64_t i0, int64_t i1, int64_t i2) {
    const char* p = static_cast<const char*>(t.data) + i0 * t.nb[0] + i1 * t.nb[1] + i2 * t.nb[2];
    uint16_t h;
    std::memcpy(&h, p, 2);
    float f;
    std::memcpy(&f, p, 4);
    return t.dtype == DType::kBF16 ? static_cast<double>(BF16ToF32(h)) : static_cast<double>(f);
  };
  std::vector<float> y(kD * kT, 0.0f);
  for (int64_t t = 0; t < kT; ++t) {
    std::vector<double> p(kE);
    double max = -1e300, sum = 0;
    for (int64_t e = 0; e < kE; ++e) {
      for (int64_t d = 0; d < kD; ++d) p[e] += at(router, d, e, 0) * at(x, d, t, 0);
      if (oai) p[e] += at(*oai->router_b, e, 0, 0);
      max = std::max(max, p[e]);
    }
    for (double& v : p) sum += (v = std::exp(v - max));
    for (double& v : p) v /= sum;
    std::vector<int64_t> order(kE);
    for (int64_t e = 0; e < kE; ++e) order[e] = e;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return p[a] > p[b]; });
    double chosen = 0;
    for (int j = 0; j < k; ++j) chosen += p[order[j]];
    for (int j = 0; j < k; ++j) {
      int64_t e = order[j];
      std::vector<double> h(kF);
      for (int64_t f = 0; f < kF; ++f) {
        double g = 0, u = 0;
        for (int64_t d = 0; d < kD; ++d) {
          g += at(gate, d, f, e) * at(x, d, t, 0);
          u += at(up, d, f, e) * at(x, d, t, 0);
        }
        if (!oai) {
          h[f] = g / (1 + std::exp(-g)) * u;
          continue;
        }
        g = std::min(g + at(*oai->gate_b, f, e, 0), 7.0);
        u = std::clamp(u + at(*oai->up_b, f, e, 0), -7.0, 7.0);
        h[f] = g / (1 + std::exp(-1.702 * g)) * (u + 1);
      }
      for (int64_t d = 0; d < kD; ++d) {
        double o = 0;
        for (int64_t f = 0; f < kF; ++f) o += at(down, f, d, e) * h[f];
        if (oai) o += at(*oai->down_b, d, e, 0);
        y[t * kD + d] += static_cast<float>(p[e] / chosen * o);
      }
    }
  }
  return y;
}

// Q8_0 experts (64 wide, so every row is whole blocks): the experts stay on the CPU, so the
// loopback moves the activations alone, their bytes exactly, whatever the experts' type; and
// the result is the unplaced CPU arm's, byte for byte.
TEST_F(Placement, QuantizedExpertsStayOnTheCpuAndOnlyTheActivationsMove) {
  constexpr int64_t kWide = 64, kTokens = 3;
  std::mt19937 rng(7);
  auto quantized = [&](std::array<int64_t, 4> ne) {
    Tensor f = testing::RandomTensor(DType::kF32, ne, rng);
    Tensor q = NewTensor(Cpu(), DType::kQ8_0, ne).value();
    for (int64_t r = 0; r < ne[1] * ne[2]; ++r) {
      EXPECT_TRUE(QuantizeRow(DType::kQ8_0, static_cast<const float*>(f.data) + r * ne[0],
                              q.Row<char>(r), ne[0])
                      .ok());
    }
    return q;
  };
  Tensor router = testing::RandomTensor(DType::kF32, {kWide, kE, 1, 1}, rng);
  Tensor gate = quantized({kWide, kWide, kE, 1}), up = quantized({kWide, kWide, kE, 1}),
         down = quantized({kWide, kWide, kE, 1});
  Tensor x_cpu = testing::RandomTensor(DType::kF32, {kWide, kTokens, 1, 1}, rng);
  MoeWeights w{&router, &gate, &up, &down, 2};
  Engine cpu{MakeQueue(Cpu())};
  Tensor unplaced = NewTensor(Cpu(), DType::kF32, {kWide, kTokens, 1, 1}).value();
  ASSERT_TRUE(RunMoe(cpu, nullptr, w, x_cpu, unplaced).ok());
  auto loop = MakeLoopbackBackend();
  Engine engine{MakeQueue(*loop)};
  Tensor x = NewTensor(*loop, DType::kF32, x_cpu.ne).value(),
         y = NewTensor(*loop, DType::kF32, x_cpu.ne).value();
  ASSERT_TRUE(CopyTensor(x_cpu, x).ok());
  ResetLoopbackCounts(*loop);
  PlacementQueue placement = CpuPlacement();
  Status s = RunMoe(engine, &placement, w, x, y);
  ASSERT_TRUE(s.ok()) << "the placed arm failed: " << s.ToString();
  TransferCounts counts = LoopbackCounts(*loop);
  EXPECT_EQ(counts.to_host_bytes, static_cast<size_t>(kWide * kTokens * 4))
      << "bytes to the host: the activations";
  EXPECT_EQ(counts.to_device_bytes, static_cast<size_t>(kWide * kTokens * 4))
      << "bytes back: the expert outputs";
  Tensor placed = NewTensor(Cpu(), DType::kF32, x_cpu.ne).value();
  ASSERT_TRUE(CopyTensor(y, placed).ok());
  EXPECT_EQ(std::memcmp(unplaced.data, placed.data, unplaced.ByteSize()), 0)
      << "the placed arm changed the numbers";
}

// The CPU backend, counting the Experts ops it runs, and with `experts` false a backend that
// lacks that op (its other ops the CPU's own): MoE there runs the expert loop of single ops
// on the CPU's kernels.
class CpuView final : public Backend {
 public:
  CpuView(Backend& cpu, bool experts) : cpu_(cpu), experts_(experts) {}
  int experts_run = 0;
  std::string name() const override { return experts_ ? "cpu" : "cpu-without-experts"; }
  Device device() const override { return cpu_.device(); }
  StatusOr<void*> Alloc(size_t bytes) override { return cpu_.Alloc(bytes); }
  void Free(void* data) override { cpu_.Free(data); }
  Status CopyIn(void* dst, const void* src, size_t bytes) override {
    return cpu_.CopyIn(dst, src, bytes);
  }
  Status CopyOut(void* dst, const void* src, size_t bytes) override {
    return cpu_.CopyOut(dst, src, bytes);
  }
  Status CopyWithin(void* dst, const void* src, size_t bytes) override {
    return cpu_.CopyWithin(dst, src, bytes);
  }
  bool Supports(const Op& op) const override {
    return (experts_ || op.kind != OpKind::kExperts) && cpu_.Supports(op);
  }
  Status Run(const Op& op) override {
    experts_run += op.kind == OpKind::kExperts;
    return cpu_.Run(op);
  }

 private:
  Backend& cpu_;
  bool experts_;
};

// A decode step's experts as the CPU's one Experts op give every token the bits of the loop
// of single ops, and a token's bits do not depend on the tokens beside it (a batch of 16
// sequences decodes each as it would alone): bf16 experts (the float decode) and Q4_0 ones
// (the integer decode; 64 wide, whole blocks), three per token (with two, the sum's order
// cannot show: a + b is b + a).
TEST_F(Placement, TheExpertsOpGivesTheExpertLoopsBitsOnTheCpu) {
  constexpr int64_t kWide = 64, kTokens = 16;
  std::mt19937 rng(11);
  for (DType type : {DType::kBF16, DType::kQ4_0}) {
    SCOPED_TRACE(std::string(DTypeName(type)));
    auto experts = [&](std::array<int64_t, 4> ne) {
      Tensor f = testing::RandomTensor(type == DType::kQ4_0 ? DType::kF32 : type, ne, rng);
      if (type != DType::kQ4_0) return f;
      Tensor q = NewTensor(Cpu(), type, ne).value();
      for (int64_t r = 0; r < ne[1] * ne[2]; ++r)
        EXPECT_TRUE(QuantizeRow(type, f.Row<const float>(r % ne[1], r / ne[1]),
                                q.Row<char>(r % ne[1], r / ne[1]), ne[0])
                        .ok());
      return q;
    };
    Tensor router = testing::RandomTensor(DType::kF32, {kWide, kE, 1, 1}, rng);
    Tensor gate = experts({kWide, kWide, kE, 1}), up = experts({kWide, kWide, kE, 1}),
           down = experts({kWide, kWide, kE, 1});
    Tensor x = testing::RandomTensor(DType::kF32, {kWide, kTokens, 1, 1}, rng),
           ids = testing::IntTensor(std::vector<int32_t>(3 * kTokens, 0));
    MoeWeights w{&router, &gate, &up, &down, 3};
    Tensor y = NewTensor(Cpu(), DType::kF32, x.ne).value(),
           fused_y = NewTensor(Cpu(), DType::kF32, x.ne).value();
    ids.ne = {3, kTokens, 1, 1};
    ASSERT_TRUE(Cpu().Supports(Op{OpKind::kExperts, {&x, &ids, &ids, &gate, &up, &down}, &y, {}}))
        << "the CPU has the op for 16 tokens";
    CpuView cpu(Cpu(), true), plain(Cpu(), false);
    Engine fused{MakeQueue(cpu)}, loop{MakeQueue(plain)};
    ASSERT_TRUE(RunMoe(fused, nullptr, w, x, fused_y).ok());
    Status s = RunMoe(loop, nullptr, w, x, y);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(cpu.experts_run, 1) << "the CPU did not run the step's experts as one op";
    EXPECT_EQ(plain.experts_run, 0);
    EXPECT_EQ(std::memcmp(y.data, fused_y.data, y.ByteSize()), 0) << "the op and the loop differ";
    for (int64_t t : {0, 9, 15}) {
      Tensor one = NewTensor(Cpu(), DType::kF32, {kWide, 1, 1, 1}).value(),
             alone = NewTensor(Cpu(), DType::kF32, one.ne).value();
      std::memcpy(one.data, x.Row<const float>(t), kWide * 4);
      ASSERT_TRUE(RunMoe(fused, nullptr, w, one, alone).ok());
      EXPECT_EQ(std::memcmp(alone.data, fused_y.Row<const float>(t), kWide * 4), 0)
          << "token " << t << " alone differs";
    }
  }
}

TEST_F(Placement, MoeMatchesAnIndependentFloat64Oracle) {
  Engine cpu{MakeQueue(Cpu())};
  Tensor got = Output(Cpu());
  ASSERT_TRUE(RunMoe(cpu, nullptr, weights_, x_, got).ok());
  std::vector<float> want = MoeByHand(router_, gate_, up_, down_, x_, 2);
  std::vector<float> b(static_cast<const float*>(got.data),
                       static_cast<const float*>(got.data) + kD * kT);
  EXPECT_LT(testing::Nmse(want, b), testing::kTierGeneral);
}

// gpt-oss's MoE (biased router and experts, the clamped SwiGLU; gates wide enough that some
// pass the limit): the placed, unplaced and loopback arms byte-identical, the biases on the
// experts' side of the seam, and the result the plain double loops'.
TEST_F(Placement, GptOssExpertsWithBiasesCrossTheSeamAndMatchTheFloat64Oracle) {
  std::mt19937 rng(12);
  Tensor rb = testing::RandomTensor(DType::kF32, {kE, 1, 1, 1}, rng),
         gb = testing::RandomTensor(DType::kF32, {kF, kE, 1, 1}, rng);
  Tensor ub = testing::RandomTensor(DType::kF32, {kF, kE, 1, 1}, rng),
         db = testing::RandomTensor(DType::kF32, {kD, kE, 1, 1}, rng);
  Tensor wide = testing::RandomTensor(DType::kF32, {kD, kT, 1, 1}, rng, -4, 4);
  MoeWeights w = weights_;
  w.router_b = &rb;
  w.gate_b = &gb;
  w.up_b = &ub;
  w.down_b = &db;
  w.swiglu_oai = true;
  Engine cpu{MakeQueue(Cpu())};
  PlacementQueue placement = CpuPlacement();
  Tensor unplaced = Output(Cpu()), placed = Output(Cpu()), via_loopback = Output(Cpu());
  ASSERT_TRUE(RunMoe(cpu, nullptr, w, wide, unplaced).ok());
  ASSERT_TRUE(RunMoe(cpu, &placement, w, wide, placed).ok());
  auto loop = MakeLoopbackBackend();
  Engine engine{MakeQueue(*loop)};
  Tensor x = NewTensor(*loop, DType::kF32, wide.ne).value(), y = Output(*loop);
  ASSERT_TRUE(CopyTensor(wide, x).ok());
  MoeCopies copies;
  ASSERT_TRUE(RunMoe(engine, &placement, w, x, y, &copies).ok());
  ASSERT_TRUE(CopyTensor(y, via_loopback).ok());
  EXPECT_EQ(copies.count, 2) << "the activations there and back, and nothing else";
  EXPECT_EQ(std::memcmp(unplaced.data, placed.data, unplaced.ByteSize()), 0);
  EXPECT_EQ(std::memcmp(unplaced.data, via_loopback.data, unplaced.ByteSize()), 0);
  OaiExtras extras{&rb, &gb, &ub, &db};
  std::vector<float> want = MoeByHand(router_, gate_, up_, down_, wide, 2, &extras),
                     plain = MoeByHand(router_, gate_, up_, down_, wide, 2);
  std::vector<float> got(static_cast<const float*>(unplaced.data),
                         static_cast<const float*>(unplaced.data) + kD * kT);
  EXPECT_LT(testing::Nmse(want, got), testing::kTierGeneral);
  EXPECT_GT(testing::Nmse(want, plain), 1e-2) << "gpt-oss's additions changed nothing";
}

}  // namespace
}  // namespace vt
