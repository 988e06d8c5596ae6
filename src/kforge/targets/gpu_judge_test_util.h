#pragma once
// For the GPU judge's tests (gpu_judge_test on the fake device, cuda_process_device_test on the
// real device process): a task z = x + y over n floats and host sets built from float vectors.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "kforge/core/task_resolve.h"
#include "kforge/targets/gpu_judge.h"

namespace kforge::eval {

inline core::ResolvedTask add_task(std::int64_t n) {
  core::ResolvedTask t;
  t.size = "ci";
  for (const char* name : {"x", "y"})
    t.inputs.push_back(core::ResolvedTensor{
        name, core::DType::f32, {n}, n, static_cast<std::size_t>(n) * 4, {}, true});
  t.outputs.push_back(core::ResolvedTensor{
      "z", core::DType::f32, {n}, n, static_cast<std::size_t>(n) * 4, {}, false});
  t.rtol = 1e-5;
  t.atol = 1e-6;
  return t;
}

// One host set: each vector a tensor's bytes.
inline HostSet floats(const std::vector<std::vector<float>>& tensors) {
  HostSet s;
  for (const auto& v : tensors) {
    std::vector<std::byte> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    s.tensors.push_back(std::move(b));
  }
  return s;
}

}  // namespace kforge::eval
