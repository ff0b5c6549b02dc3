#include "parity_support.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "vt/quant.h"

namespace vt::testing {
namespace {

constexpr size_t kGuard = 256;
constexpr unsigned char kSentinel = 0xAB;

Backend& Cpu() { return *GetBackend(DeviceType::kCPU); }

// Output with sentinel bytes on both sides, so an out-of-bounds write is caught.
struct Guarded {
  Backend* backend;
  void* base = nullptr;
  size_t bytes = 0;
  Tensor t;
  ~Guarded() {
    if (base) backend->Free(base);
  }
};

Status MakeGuarded(Backend& b, const Tensor& spec, Guarded& g) {
  g.backend = &b;
  g.bytes = spec.ByteSize() + 2 * kGuard;
  auto base = b.Alloc(g.bytes);
  if (!base.ok()) return base.status();
  g.base = base.value();
  std::vector<unsigned char> fill(g.bytes, kSentinel);
  VT_RETURN_IF_ERROR(b.CopyIn(g.base, fill.data(), g.bytes));
  g.t = spec;
  g.t.device = b.device();
  g.t.data = static_cast<char*>(g.base) + kGuard;
  return Status();
}

StatusOr<Tensor> OnBackend(Backend& b, const Tensor& host) {
  auto t = NewTensor(b, host.dtype, host.ne);
  if (!t.ok()) return t.status();
  VT_RETURN_IF_ERROR(b.CopyIn(t->data, host.data, host.ByteSize()));
  return t;
}

std::vector<float> AsFloats(const Tensor& t, const std::vector<unsigned char>& bytes) {
  std::vector<float> out(static_cast<size_t>(t.NumElements()));
  size_t size = BlockBytes(t.dtype);
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned char* p = bytes.data() + kGuard + size * i;
    int32_t v;
    uint16_t h;
    switch (t.dtype) {
      case DType::kI32:
        std::memcpy(&v, p, 4);
        out[i] = static_cast<float>(v);
        break;
      case DType::kF16:
        std::memcpy(&h, p, 2);
        out[i] = F16ToF32(h);
        break;
      case DType::kBF16:
        std::memcpy(&h, p, 2);
        out[i] = BF16ToF32(h);
        break;
      default:
        std::memcpy(&out[i], p, 4);
        break;
    }
  }
  return out;
}

// Runs the op on `b`; returns the whole guarded region's bytes.
StatusOr<std::vector<unsigned char>> RunOn(Backend& b, OpKind kind,
                                           const std::vector<Tensor>& inputs,
                                           const OpParams& params, const Tensor& spec) {
  std::vector<Tensor> on;
  std::vector<const Tensor*> src;
  for (const Tensor& h : inputs) {
    auto t = OnBackend(b, h);
    if (!t.ok()) return t.status();
    on.push_back(std::move(t).value());
  }
  for (const Tensor& t : on) src.push_back(&t);
  Guarded out;
  VT_RETURN_IF_ERROR(MakeGuarded(b, spec, out));
  VT_RETURN_IF_ERROR(RunOp(b, Op{kind, src, &out.t, params}));
  std::vector<unsigned char> bytes(out.bytes);
  VT_RETURN_IF_ERROR(b.CopyOut(bytes.data(), out.base, out.bytes));
  return bytes;
}

std::string GuardDamage(const std::vector<unsigned char>& bytes) {
  for (size_t i = 0; i < kGuard; ++i) {
    if (bytes[i] != kSentinel)
      return "wrote " + std::to_string(kGuard - i) + " bytes before the output";
    if (bytes[bytes.size() - 1 - i] != kSentinel) return "wrote past the end of the output";
  }
  return "";
}

}  // namespace

std::vector<Backend*> KernelBackends() {
  std::vector<Backend*> out{&Cpu()};
  for (DeviceType t : {DeviceType::kCUDA, DeviceType::kVulkan}) {
    if (Backend* b = GetBackend(t)) out.push_back(b);
  }
  return out;
}

Tensor RandomTensor(DType dtype, std::array<int64_t, 4> ne, std::mt19937& rng, float lo, float hi) {
  Tensor t = NewTensor(Cpu(), dtype, ne).value();
  std::uniform_real_distribution<float> dist(lo, hi);
  if (IsQuantized(dtype)) {  // random rows rounded to the type's blocks (a q8_0 KV cache)
    std::vector<float> row(static_cast<size_t>(ne[0]));
    for (int64_t r = 0; r < t.NumElements() / ne[0]; ++r) {
      for (float& v : row) v = dist(rng);
      EXPECT_TRUE(QuantizeRow(dtype, row.data(),
                              static_cast<char*>(t.data) + r * RowBytes(dtype, ne[0]), ne[0])
                      .ok());
    }
    return t;
  }
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    float v = dist(rng);
    char* p = static_cast<char*>(t.data) + i * BlockBytes(dtype);
    if (dtype == DType::kF32)
      std::memcpy(p, &v, 4);
    else if (dtype == DType::kF16) {
      uint16_t h = F32ToF16(v);
      std::memcpy(p, &h, 2);
    } else if (dtype == DType::kBF16) {
      uint16_t h = F32ToBF16(v);
      std::memcpy(p, &h, 2);
    }
  }
  return t;
}

Tensor IntTensor(const std::vector<int32_t>& values) {
  Tensor t = NewTensor(Cpu(), DType::kI32, {static_cast<int64_t>(values.size()), 1, 1, 1}).value();
  std::memcpy(t.data, values.data(), values.size() * 4);
  return t;
}

std::vector<float> ReferenceOutput(OpKind kind, std::vector<const Tensor*> src,
                                   const OpParams& params) {
  std::mt19937 rng(1);
  Tensor out = RandomTensor(DType::kF32, src[0]->ne, rng);
  Status s = RunOp(ReferenceBackend(), Op{kind, std::move(src), &out, params});
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return {};
  const float* o = static_cast<const float*>(out.data);
  return std::vector<float>(o, o + out.NumElements());
}

double Nmse(const std::vector<float>& ref, const std::vector<float>& out) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num += (static_cast<double>(ref[i]) - out[i]) * (static_cast<double>(ref[i]) - out[i]);
    den += static_cast<double>(ref[i]) * ref[i];
  }
  return den == 0 ? num : num / den;
}

namespace {

// The output spec and the reference's guarded output bytes for an op, shared by both checks.
struct Truth {
  Tensor spec;
  std::vector<unsigned char> bytes;
};

StatusOr<Truth> Reference(OpKind kind, const std::vector<Tensor>& inputs, const OpParams& params) {
  std::vector<const Tensor*> src;
  for (const Tensor& t : inputs) src.push_back(&t);
  auto spec = OutputSpec(kind, src, params);
  if (!spec.ok()) return spec.status();
  auto bytes = RunOn(ReferenceBackend(), kind, inputs, params, spec.value());
  if (!bytes.ok()) return Status(bytes.status().code(), "reference: " + bytes.status().message());
  return Truth{spec.value(), std::move(bytes).value()};
}

}  // namespace

::testing::AssertionResult Parity(Backend& backend, OpKind kind, const std::vector<Tensor>& inputs,
                                  const OpParams& params, double tier) {
  auto truth = Reference(kind, inputs, params);
  if (!truth.ok()) return ::testing::AssertionFailure() << truth.status().ToString();
  const Tensor& spec = truth->spec;
  auto got = RunOn(backend, kind, inputs, params, spec);
  if (!got.ok())
    return ::testing::AssertionFailure() << backend.name() << ": " << got.status().ToString();
  std::string damage = GuardDamage(got.value());
  if (!damage.empty()) return ::testing::AssertionFailure() << backend.name() << " " << damage;
  std::vector<float> r = AsFloats(spec, truth->bytes), g = AsFloats(spec, got.value());
  for (size_t i = 0; i < g.size(); ++i) {
    if (!std::isfinite(g[i])) return ::testing::AssertionFailure() << "non-finite output at " << i;
  }
  double nmse = Nmse(r, g);
  if (tier == 0 ? nmse != 0 : nmse > tier) {
    return ::testing::AssertionFailure() << backend.name() << " " << OpName(kind) << " "
                                         << Describe(spec) << ": NMSE " << nmse << " > " << tier;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult ParityInPlace(Backend& backend, OpKind kind,
                                         const std::vector<Tensor>& inputs, const OpParams& params,
                                         double tier) {
  auto truth = Reference(kind, inputs, params);
  if (!truth.ok()) return ::testing::AssertionFailure() << truth.status().ToString();
  std::vector<Tensor> on;
  for (const Tensor& h : inputs) on.push_back(OnBackend(backend, h).value());
  std::vector<const Tensor*> on_src;
  for (const Tensor& t : on) on_src.push_back(&t);
  Status s = RunOp(backend, Op{kind, on_src, &on[0], params});
  if (!s.ok()) return ::testing::AssertionFailure() << s.ToString();
  std::vector<float> got(static_cast<size_t>(on[0].NumElements()));
  if (!backend.CopyOut(got.data(), on[0].data, on[0].ByteSize()).ok())
    return ::testing::AssertionFailure() << "copy out";
  double nmse = Nmse(AsFloats(truth->spec, truth->bytes), got);
  if (nmse > tier)
    return ::testing::AssertionFailure()
           << backend.name() << " in-place " << OpName(kind) << ": NMSE " << nmse;
  return ::testing::AssertionSuccess();
}

}  // namespace vt::testing
