// The MoE placement seam: router and experts may run on another device than the engine's
// (llama.cpp's --n-cpu-moe: experts on the CPU, the rest on the GPU). The seam keys on the
// *engine's* device, so a loopback engine exercises it byte for byte without a GPU.
#pragma once

#include "vt/queue.h"
#include "vt/status.h"
#include "vt/tensor.h"

namespace vt {

// Where expert work may go. Only kCPU is a legal target.
class PlacementQueue {
 public:
  static StatusOr<PlacementQueue> Create(Backend& target);
  const Queue& q() const { return q_; }

 private:
  explicit PlacementQueue(Queue q) : q_(q) {}
  Queue q_;
};

// One MoE FFN block's weights, resident on the placement device.
struct MoeWeights {
  const Tensor* router;     // ffn_gate_inp [D, E]
  const Tensor* gate_exps;  // ffn_gate_exps [D, F, E]
  const Tensor* up_exps;    // ffn_up_exps [D, F, E]
  const Tensor* down_exps;  // ffn_down_exps [F, D, E]
  int n_used = 2;           // experts per token
  // gpt-oss's: biases added after the router and each expert's matmuls (null: none) —
  // router_b [E], gate_b and up_b [F, E], down_b [D, E] — and its clamped SwiGLU.
  const Tensor *router_b = nullptr, *gate_b = nullptr, *up_b = nullptr, *down_b = nullptr;
  bool swiglu_oai = false;
};

// y[D,T] = Σ over the top-k experts e of token t: w_e · down_e(silu(gate_e x) * up_e x), with
// w = softmax over all experts' router logits, top-k, renormalised (llama.cpp's llama-arch MoE;
// the same weights as gpt-oss's softmax over the k chosen logits). With biases, each matmul's
// is added after it; with swiglu_oai the activation is OpKind::kSwigluOai.
// With `placement` set, x is copied to the placement device, everything runs there and y is
// copied back; when the placement device is the engine's own, nothing is copied.
struct MoeCopies {
  int count = 0;     // device crossings RunMoe made
  size_t bytes = 0;  // bytes they moved
};
Status RunMoe(Engine& engine, const PlacementQueue* placement, const MoeWeights& w,
              const Tensor& x, Tensor& y, MoeCopies* copies = nullptr);

}  // namespace vt
