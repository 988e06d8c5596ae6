// Multi-scale retention as PyTorch eager runs it: the ops of JAXBench's workload, one by one
// (the decay matrix is rebuilt on every call, as the workload does).
#include <ATen/ATen.h>
#include <kforge/torch_view.h>

#include "kforge_task.h"

extern "C" void kernel(const float* query, const float* key, const float* value, float* output) {
  using namespace task;
  auto Q = kforge_torch::view(query, {B, H, S, D});
  auto K = kforge_torch::view(key, {B, H, S, D});
  auto V = kforge_torch::view(value, {B, H, S, D});
  auto Out = kforge_torch::view(output, {B, H, S, D});
  const auto f32 = at::TensorOptions().dtype(at::kFloat);

  auto gammas = 1.0 - at::exp2(-5.0 - at::arange(H, f32));
  auto positions = at::arange(S, f32);
  auto distance = positions.unsqueeze(1) - positions.unsqueeze(0);
  auto causal_mask = distance.ge(0).to(at::kFloat);
  auto log_gamma = at::log(gammas);
  auto decay = at::exp(log_gamma.view({H, 1, 1}) * at::clamp_min(distance, 0.0).unsqueeze(0));
  decay = decay * causal_mask.unsqueeze(0);

  auto qk = at::matmul(Q, K.transpose(-2, -1));
  qk = qk * decay.unsqueeze(0);
  auto retention_sum = at::clamp_min(qk.abs().sum(-1, /*keepdim=*/true), 1.0);
  qk = qk / retention_sum;
  at::matmul_out(Out, qk, V);
}
