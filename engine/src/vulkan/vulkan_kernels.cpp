// Op → kernel: each function below fills the push constants its shader declares (same field
// order; offsets and strides count elements of the tensor's dtype) and queues one dispatch.
#include "vulkan/vulkan_kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace vt::vulkan {
namespace {

constexpr int64_t kLimit = int64_t{1} << 31;  // shaders index with 32-bit unsigned integers

bool IsFloat(DType t) { return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16; }
// weights.glsl's codes: 0 f32, 1 f16, 2 bf16, then the block types from 3.
uint32_t TypeCode(DType t) {
  switch (t) {
    case DType::kF32: return 0;
    case DType::kF16: return 1;
    case DType::kQ8_0: return 3;
    case DType::kQ4_0: return 4;
    case DType::kQ4_1: return 5;
    case DType::kQ5_0: return 6;
    case DType::kQ5_1: return 7;
    case DType::kQ2_K: return 8;
    case DType::kQ3_K: return 9;
    case DType::kQ4_K: return 10;
    case DType::kQ5_K: return 11;
    case DType::kQ6_K: return 12;
    case DType::kMXFP4: return 13;
    default: return 2;
  }
}
uint32_t U(int64_t v) { return static_cast<uint32_t>(v); }

// Contiguous rows of a float or i32 dtype, every index within 32 bits; block types (a matmul's
// weights) are addressed in bytes.
bool Fits(const Tensor* t) {
  if (t && IsQuantized(t->dtype)) return static_cast<int64_t>(t->ByteSize()) < kLimit / 2;
  if (!t || !(IsFloat(t->dtype) || t->dtype == DType::kI32) || t->nb[0] != BlockBytes(t->dtype)) return false;
  int64_t reach = 0;
  for (int d = 0; d < 4; ++d) reach += (t->ne[d] - 1) * static_cast<int64_t>(t->nb[d] / t->nb[0]);
  return reach < kLimit / 2 && t->NumElements() < kLimit;
}

uint32_t Groups(int64_t items, int64_t per_group) {
  return U(std::clamp<int64_t>((items + per_group - 1) / per_group, 1, kMaxGroups));
}

// A tensor's buffer, with its first element and row strides (in elements) for the push block.
struct Placed {
  const void* buffer = nullptr;
  uint32_t at[4] = {0, 0, 0, 0};  // offset, nb1, nb2, nb3
};

StatusOr<Placed> Place(Device& device, const Tensor& t, const Op& op) {
  size_t unit = IsQuantized(t.dtype) ? 1 : BlockBytes(t.dtype);
  auto slot = device.Locate(t.data, unit);
  if (!slot) {
    return Status(StatusCode::kInvalidArgument, "vulkan: " + std::string(OpName(op.kind)) + ": " + Describe(t) +
                                                    " is not in " + device.name() + "'s memory");
  }
  Placed p{slot->buffer, {slot->element, U(t.nb[1] / unit), U(t.nb[2] / unit), U(t.nb[3] / unit)}};
  return p;
}

#define VT_PLACE(name, tensor)                      \
  auto name##_or = Place(device, (tensor), op);     \
  if (!name##_or.ok()) return name##_or.status();   \
  const Placed& name = name##_or.value()

template <typename P>
Status Queue(Device& device, Kernel k, std::initializer_list<const void*> buffers, const P& push, uint32_t groups,
             const Op& op) {
  static_assert(sizeof(P) <= kMaxPushBytes, "push constants exceed the portable 128 bytes");
  return device.Record(k, buffers, &push, sizeof push, groups, OpName(op.kind));
}

void Copy4(uint32_t (&dst)[4], const uint32_t (&src)[4]) { std::copy(src, src + 4, dst); }

struct ElementwiseParams {
  uint32_t ne[4], a[4], b[4], o[4], bne[4];
  uint32_t op;
  float scale, alpha, limit;
};

uint32_t ElementwiseCode(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd: return 0;
    case OpKind::kMul: return 1;
    case OpKind::kScale: return 2;
    case OpKind::kSilu: return 3;
    case OpKind::kGeglu: return 5;
    case OpKind::kSwigluOai: return 6;
    default: return 4;  // Swiglu
  }
}

Status Elementwise(Device& device, const Op& op) {
  const Tensor& a = *op.src[0];
  const Tensor& b = op.src.size() > 1 ? *op.src[1] : a;
  VT_PLACE(pa, a);
  VT_PLACE(pb, b);
  VT_PLACE(po, *op.out);
  ElementwiseParams p{};
  for (int d = 0; d < 4; ++d) {
    p.ne[d] = U(op.out->ne[d]);
    p.bne[d] = U(b.ne[d]);
  }
  Copy4(p.a, pa.at);
  Copy4(p.b, pb.at);
  Copy4(p.o, po.at);
  p.op = ElementwiseCode(op.kind);
  p.scale = op.params.scale;
  p.alpha = op.params.alpha;
  p.limit = op.params.limit;
  return Queue(device, Kernel::kElementwise, {pa.buffer, pb.buffer, po.buffer}, p, Groups(op.out->NumElements(), 256), op);
}

struct MatmulParams {
  uint32_t K, N, M, ne2, ne3, r2, r3, wtype;
  uint32_t w[4], x[4], o[4];
};

Status Matmul(Device& device, const Op& op) {
  const Tensor &w = *op.src[0], &x = *op.src[1];
  VT_PLACE(pw, w);
  VT_PLACE(px, x);
  VT_PLACE(po, *op.out);
  MatmulParams p{U(w.ne[0]), U(w.ne[1]), U(x.ne[1]), U(x.ne[2]), U(x.ne[3]), U(x.ne[2] / w.ne[2]), U(x.ne[3] / w.ne[3]),
                 TypeCode(w.dtype), {}, {}, {}};
  Copy4(p.w, pw.at);
  Copy4(p.x, px.at);
  Copy4(p.o, po.at);
  int64_t batches = x.ne[2] * x.ne[3];
  // Decode-sized M: a workgroup per output row; else 64×64 tiles (matmul_*.comp).
  if (x.ne[1] <= 8) return Queue(device, Kernel::kMatmulVec, {pw.buffer, px.buffer, po.buffer}, p, Groups(w.ne[1] * batches, 1), op);
  int64_t tiles = (w.ne[1] + 63) / 64 * ((x.ne[1] + 63) / 64) * batches;
  return Queue(device, Kernel::kMatmulTiled, {pw.buffer, px.buffer, po.buffer}, p, Groups(tiles, 1), op);
}

// rms_norm.comp's and softmax.comp's common head: shape, rows, input and output placement.
struct RowParams {
  uint32_t ne0, ne1, ne2, rows;
  uint32_t a[4], o[4];
};

RowParams Rows(const Tensor& a, const Placed& pa, const Placed& po) {
  RowParams r{U(a.ne[0]), U(a.ne[1]), U(a.ne[2]), U(a.Rows()), {}, {}};
  Copy4(r.a, pa.at);
  Copy4(r.o, po.at);
  return r;
}

struct RmsNormParams {
  RowParams rows;
  float eps;
};

Status RmsNorm(Device& device, const Op& op) {
  const Tensor& a = *op.src[0];
  VT_PLACE(pa, a);
  VT_PLACE(po, *op.out);
  RmsNormParams p{Rows(a, pa, po), op.params.eps};
  return Queue(device, Kernel::kRmsNorm, {pa.buffer, po.buffer}, p, Groups(a.Rows(), 1), op);
}

struct SoftmaxParams {
  RowParams rows;
  uint32_t m_off, m1, has_mask;
  float scale;
};

Status Softmax(Device& device, const Op& op) {
  const Tensor& a = *op.src[0];
  const Tensor& mask = op.src.size() > 1 ? *op.src[1] : a;
  VT_PLACE(pa, a);
  VT_PLACE(pm, mask);
  VT_PLACE(po, *op.out);
  SoftmaxParams p{Rows(a, pa, po), pm.at[0], pm.at[1], op.src.size() > 1 ? 1u : 0u, op.params.scale};
  return Queue(device, Kernel::kSoftmax, {pa.buffer, pm.buffer, po.buffer}, p, Groups(a.Rows(), 1), op);
}

struct RopeParams {
  uint32_t ne[4], a[4], o[4];
  uint32_t pos_off, freq_off, n_dims, neox;
  float mscale;
};

// The rotation frequencies go to the device as a small buffer, computed here in double (see
// rope.comp); it is freed once the queued kernels have run.
Status Rope(Device& device, const Op& op) {
  const Tensor &a = *op.src[0], &pos = *op.src[1];
  int64_t n_dims = op.params.n_dims ? op.params.n_dims : a.ne[0];
  std::vector<float> freq(static_cast<size_t>(std::max<int64_t>(n_dims / 2, 1)));
  for (size_t j = 0; j < freq.size(); ++j) {
    freq[j] = static_cast<float>(RopeFrequency(op.params, n_dims, static_cast<int64_t>(j)));
  }
  VT_PLACE(pa, a);
  VT_PLACE(pp, pos);
  VT_PLACE(po, *op.out);
  auto table = device.Alloc(freq.size() * sizeof(float));
  if (!table.ok()) return table.status();
  Status filled = device.Upload(table.value(), freq.data(), freq.size() * sizeof(float));
  if (!filled.ok()) {
    device.Free(table.value());
    return filled;
  }
  RopeParams p{};
  for (int d = 0; d < 4; ++d) p.ne[d] = U(a.ne[d]);
  Copy4(p.a, pa.at);
  Copy4(p.o, po.at);
  p.pos_off = pp.at[0];
  p.n_dims = U(n_dims);
  p.neox = op.params.rope_neox ? 1u : 0u;
  p.mscale = static_cast<float>(RopeMagnitude(op.params));
  Status s = Queue(device, Kernel::kRope, {pa.buffer, pp.buffer, table.value(), po.buffer}, p,
                   Groups(a.NumElements() / 2, 256), op);
  device.Free(table.value());
  return s;
}

struct GetRowsParams {
  uint32_t K, n, ttype, t_off, t1, id_off, o_off, o1;
};

Status GetRows(Device& device, const Op& op) {
  const Tensor &table = *op.src[0], &ids = *op.src[1];
  VT_PLACE(pt, table);
  VT_PLACE(pi, ids);
  VT_PLACE(po, *op.out);
  GetRowsParams p{U(table.ne[0]), U(ids.ne[0]), TypeCode(table.dtype), pt.at[0], pt.at[1], pi.at[0], po.at[0], po.at[1]};
  return Queue(device, Kernel::kGetRows, {pt.buffer, pi.buffer, po.buffer}, p, Groups(op.out->NumElements(), 256), op);
}

struct TopKParams {
  uint32_t ne0, ne1, ne2, rows, k;
  uint32_t a[4], o[4];
};

Status TopK(Device& device, const Op& op) {
  const Tensor& a = *op.src[0];
  VT_PLACE(pa, a);
  VT_PLACE(po, *op.out);
  TopKParams p{U(a.ne[0]), U(a.ne[1]), U(a.ne[2]), U(a.Rows()), U(op.params.k), {}, {}};
  Copy4(p.a, pa.at);
  Copy4(p.o, po.at);
  return Queue(device, Kernel::kTopK, {pa.buffer, po.buffer}, p, Groups(a.Rows(), 1), op);
}

struct AttentionParams {
  uint32_t hd, heads, kv_heads, tokens, n_past, kv_type;
  float scale;
  uint32_t q[3], k[3], v[3], o[3];
  uint32_t window;
  uint32_t has_sinks, sink_off;
  uint32_t has_rows, rows_off;
};

Status Attention(Device& device, const Op& op) {
  const Tensor &q = *op.src[0], &k = *op.src[1], &v = *op.src[2];
  VT_PLACE(pq, q);
  VT_PLACE(pk, k);
  VT_PLACE(pv, v);
  VT_PLACE(po, *op.out);
  const AttentionExtras extras = AttentionExtrasOf(op.src);
  VT_PLACE(ps, extras.sinks ? *extras.sinks : q);  // absent: q stands in for the unread binding
  VT_PLACE(pr, extras.rows ? *extras.rows : q);
  float scale = op.params.scale != 0 ? op.params.scale : static_cast<float>(1 / std::sqrt(static_cast<double>(q.ne[0])));
  AttentionParams p{U(q.ne[0]), U(q.ne[1]), U(k.ne[1]), U(q.ne[2]), U(op.params.n_past), TypeCode(k.dtype), scale,
                    {}, {}, {}, {}, U(op.params.window), extras.sinks ? 1u : 0u, ps.at[0], extras.rows ? 1u : 0u, pr.at[0]};
  std::copy(pq.at, pq.at + 3, p.q);
  std::copy(pk.at, pk.at + 3, p.k);
  std::copy(pv.at, pv.at + 3, p.v);
  std::copy(po.at, po.at + 3, p.o);
  return Queue(device, Kernel::kAttention, {pq.buffer, pk.buffer, pv.buffer, po.buffer, ps.buffer, pr.buffer}, p, Groups(q.ne[1] * q.ne[2], 1), op);
}

struct CopyParams {
  uint32_t ne0, ne1, ne2, n;
  uint32_t a[4];
  uint32_t o_off, in_type, out_type;
};

Status Copy(Device& device, const Op& op) {
  const Tensor& a = *op.src[0];
  VT_PLACE(pa, a);
  VT_PLACE(po, *op.out);
  CopyParams p{U(a.ne[0]), U(a.ne[1]), U(a.ne[2]), U(a.NumElements()), {}, po.at[0], TypeCode(a.dtype), TypeCode(op.out->dtype)};
  Copy4(p.a, pa.at);
  int64_t items = op.out->dtype == DType::kF32 ? a.NumElements() : a.NumElements() / 2 + 2;  // words touched
  return Queue(device, Kernel::kCopy, {pa.buffer, po.buffer}, p, Groups(items, 256), op);
}

}  // namespace

bool HasKernel(const Op& op) {
  if (!Fits(op.out) || !std::all_of(op.src.begin(), op.src.end(), Fits)) return false;
  // Block types only as a matmul's weights or a GetRows table (weights.glsl's WeightAt).
  for (size_t i = 0; i < op.src.size(); ++i) {
    bool reads_blocks = i == 0 && (op.kind == OpKind::kMatmul || op.kind == OpKind::kGetRows);
    if (IsQuantized(op.src[i]->dtype) && !reads_blocks) return false;
    if (IsInterleaved(op.src[i]->dtype)) return false;  // the CPU's own order (vt/quant.h)
  }
  if (IsQuantized(op.out->dtype)) return false;
  switch (op.kind) {
    case OpKind::kAttention: return op.src.size() >= 3 && op.src[0]->ne[0] <= 512;
    case OpKind::kRope: return op.src.size() == 2 && op.src[0]->ne[0] % 2 == 0;
    case OpKind::kExperts: return false;  // the expert loop of single ops runs it
    default: return true;  // dtypes and shapes beyond these: ValidateOp's job
  }
}

Status RunKernel(Device& device, const Op& op) {
  if (op.out->NumElements() == 0) return Status();
  switch (op.kind) {
    case OpKind::kMatmul: return Matmul(device, op);
    case OpKind::kAdd: case OpKind::kMul: case OpKind::kScale: case OpKind::kSilu: case OpKind::kSwiglu:
    case OpKind::kGeglu: case OpKind::kSwigluOai:
      return Elementwise(device, op);
    case OpKind::kRmsNorm: return RmsNorm(device, op);
    case OpKind::kSoftmax: return Softmax(device, op);
    case OpKind::kRope: return Rope(device, op);
    case OpKind::kGetRows: return GetRows(device, op);
    case OpKind::kTopK: return TopK(device, op);
    case OpKind::kAttention: return Attention(device, op);
    case OpKind::kCopy: return Copy(device, op);
    case OpKind::kExperts: break;
  }
  return Status(StatusCode::kInternal, "vulkan: unknown op");
}

}  // namespace vt::vulkan
