// Runs the task's own code on buffers the parent shares.
#include "kforge/runner/trusted_jobs.h"

#include <fmt/format.h>
#include <omp.h>
#include <sys/mman.h>

#include "kforge/runner/fault_report.h"
#include "kforge/runner/guarded_buffers.h"
#include "kforge/runner/job.h"
#include "kforge/runner/kernel_library.h"
#include "kforge/runner/run_state.h"

namespace kforge::runner {
namespace {

Result<std::vector<void*>> map_set(int fd, const std::vector<TensorInfo>& tensors, int prot,
                                   RegionKind kind) {
  auto set = map_tensor_set(fd, tensors, prot, kind);
  if (!set) return set.error();
  std::vector<void*> ptrs;
  for (const auto& b : *set) ptrs.push_back(b.data);
  return ptrs;
}

Result<double> run(Message& m) {
  const std::string op = m.body.at("op");
  auto inputs = tensors_from_json(m.body.at("inputs"));
  if (!inputs) return inputs.error();
  const bool generate = op == "generate";
  if (m.fds.size() != (generate ? 1u : 2u)) return Error{"wrong number of descriptors"};
  auto lib = KernelLibrary::open(m.body.at("library"), generate ? "generate" : "kernel");
  if (!lib) return lib.error();
  auto in =
      map_set(m.fds[0], *inputs, generate ? PROT_READ | PROT_WRITE : PROT_READ, RegionKind::input);
  if (!in) return in.error();
  std::vector<void*> args = *in;
  if (!generate) {
    auto outputs = tensors_from_json(m.body.at("outputs"));
    if (!outputs) return outputs.error();
    auto out = map_set(m.fds[1], *outputs, PROT_READ | PROT_WRITE, RegionKind::output);
    if (!out) return out.error();
    args.insert(args.end(), out->begin(), out->end());
    omp_set_num_threads(m.body.value("threads", 1));
  }
  set_fault_phase(generate ? "generate.cpp" : "reference.cpp");
  double t0 = now_seconds();
  if (generate)
    lib->call_generator(m.body.at("seed"), args);
  else
    lib->call(args);
  return (now_seconds() - t0) * 1e3;
}

}  // namespace

int run_trusted_job(Message& m) {
  install_fault_handlers(kChannelFd, nullptr);
  prepare_thread_for_faults();
  Result<double> ms = Error{"not run"};
  try {
    ms = run(m);
  } catch (const std::exception& e) {
    ms = Error{fmt::format("bad job: {}", e.what())};
  }
  if (!ms) {
    write_message(kChannelFd, {{"op", "error"}, {"message", ms.error().message}});
    return 3;
  }
  write_message(kChannelFd, {{"op", "done"}, {"ms", *ms}});
  return 0;
}

}  // namespace kforge::runner
