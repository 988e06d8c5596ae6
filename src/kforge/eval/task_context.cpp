// Trusted artifacts, input generation and the reference-output cache.
#include "kforge/eval/task_context.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/core/input_fill.h"
#include "kforge/core/task_header.h"
#include "kforge/core/threads.h"
#include "kforge/eval/runner_failure.h"
#include "kforge/eval/runner_process.h"
#include "kforge/runner/job.h"

namespace kforge::eval {
namespace {

int all_cores() { return core::thread_count(); }

// Runs one trusted job in a child and waits for "done"; errors say what the task's code did.
Status run_trusted(const nlohmann::json& job, const std::vector<int>& fds, const std::string& what,
                   std::chrono::seconds timeout, const std::filesystem::path& cwd) {
  auto proc = RunnerProcess::start(all_cores(), cwd);
  if (!proc) return proc.error();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  proc->send(job, fds);
  auto reply = proc->receive(deadline);
  if (!reply) {
    proc->kill();
    auto exit = proc->wait(deadline + std::chrono::seconds(5));
    if (reply.error().message == "timeout")
      return Error{fmt::format("{} did not finish within {} s", what, timeout.count())};
    return Error{
        fmt::format("{} died ({}): {}", what, exit.describe(), proc->output().substr(0, 2000))};
  }
  std::string op = message_op(reply->body);
  if (op == "fault" || op == "error")
    return Error{
        fmt::format("{} failed: {}", what, judge_runner_message(reply->body, what).reason)};
  if (op != "done") return Error{fmt::format("{}: unexpected reply from the runner", what)};
  return ok_status();
}

}  // namespace

Result<TaskContext> TaskContext::create(const core::TaskSpec& spec, const std::string& size,
                                        toolchain::Compiler& compiler,
                                        std::filesystem::path state_dir) {
  auto resolved = core::resolve_task(spec, size);
  if (!resolved) return resolved.error();
  TaskContext c;
  c.spec_ = spec;
  c.task_ = std::move(*resolved);
  c.header_ = core::task_header(c.task_);
  c.compiler_ = &compiler;
  c.state_dir_ = std::move(state_dir);
  return c;
}

Result<toolchain::CompileResult> TaskContext::build(toolchain::Role role,
                                                    const std::filesystem::path& source) const {
  auto text = core::read_text(source);
  if (!text) return text.error();
  toolchain::CompileRequest req{role, *text, source.filename().string(), header_, {}};
  auto result = compiler_->compile(req);
  if (!result.ok) {
    std::string detail = toolchain::format_errors(result.diagnostics);
    if (detail.empty()) detail = result.log.substr(0, 3000);
    return Error{fmt::format("task {}: {} does not compile at size '{}':\n{}", spec_.id,
                             source.filename().string(), task_.size, detail)};
  }
  return result;
}

Result<std::filesystem::path> TaskContext::reference_library() const {
  auto r = build(toolchain::Role::reference, spec_.reference_path());
  if (!r) return r.error();
  return r->artifact;
}

Result<std::filesystem::path> TaskContext::baseline_library() const {
  if (!std::filesystem::exists(spec_.baseline_path()))
    return Error{fmt::format("task {} has no baseline.cpp", spec_.id)};
  auto r = build(toolchain::Role::baseline, spec_.baseline_path());
  if (!r) return r.error();
  return r->artifact;
}

bool TaskContext::baseline_cached() const {
  auto text = core::read_text(spec_.baseline_path());
  if (!text) return false;
  return compiler_->cached(
      {toolchain::Role::baseline, *text, spec_.baseline_path().filename().string(), header_, {}});
}

Result<std::filesystem::path> TaskContext::generator_library() const {
  if (!spec_.has_generator()) return std::filesystem::path{};
  auto r = build(toolchain::Role::generator, spec_.generate_path());
  if (!r) return r.error();
  return r->artifact;
}

Result<SharedSet> TaskContext::make_inputs(std::uint64_t seed) const {
  auto set = generate_inputs(seed);
  if (!set) return set.error();
  if (auto st = set->seal(); !st) return st.error();
  return set;
}

Result<SharedSet> TaskContext::make_timing_inputs(std::uint64_t seed) const {
  auto set = generate_inputs(seed);
  if (!set) return set.error();
  if (auto st = set->seal_future_writes(); !st) return st.error();
  return set;
}

Result<SharedSet> TaskContext::generate_inputs(std::uint64_t seed) const {
  auto set = SharedSet::create(task_.inputs, 1, "kforge-inputs");
  if (!set) return set.error();
  for (std::size_t i = 0; i < task_.inputs.size(); ++i)
    core::fill_input(task_.inputs[i], seed, static_cast<std::uint32_t>(i), set->tensor(i));
  if (spec_.has_generator()) {
    auto gen = generator_library();
    if (!gen) return gen.error();
    auto job = runner::generate_job(gen->string(), seed, runner::tensor_infos(task_.inputs));
    if (auto st = run_trusted(job, {set->fd()}, fmt::format("task {}: generate.cpp", spec_.id),
                              std::chrono::seconds(300), state_dir_);
        !st)
      return st.error();
  }
  return set;
}

Result<std::string> TaskContext::reference_key(std::uint64_t seed) const {
  auto ref = build(toolchain::Role::reference, spec_.reference_path());
  if (!ref) return ref.error();
  core::Hasher h;
  h.add("reference-outputs-v1").add(ref->key).add(header_).add(seed);
  if (spec_.has_generator()) {
    auto gen = build(toolchain::Role::generator, spec_.generate_path());
    if (!gen) return gen.error();
    h.add(gen->key);
  }
  return h.hex();
}

Result<SharedSet> TaskContext::reference_outputs(const SharedSet& inputs,
                                                 std::uint64_t seed) const {
  auto key = reference_key(seed);
  if (!key) return key.error();
  auto out = SharedSet::create(task_.outputs, 1, "kforge-reference");
  if (!out) return out.error();
  auto file = state_dir_ / "cache" / "ref" / (*key + ".bin");
  const std::size_t bytes = out->layout().file_bytes;
  if (std::ifstream in{file, std::ios::binary}) {
    in.read(reinterpret_cast<char*>(out->tensor(0) - out->layout().slots[0].data_offset),
            static_cast<std::streamsize>(bytes));
    if (in.gcount() == static_cast<std::streamsize>(bytes)) return out;
  }
  auto lib = reference_library();
  if (!lib) return lib.error();
  auto job = runner::reference_job(lib->string(), runner::tensor_infos(task_.inputs),
                                   runner::tensor_infos(task_.outputs), all_cores());
  if (auto st = run_trusted(job, {inputs.fd(), out->fd()},
                            fmt::format("task {}: reference.cpp", spec_.id),
                            std::chrono::seconds(900), state_dir_);
      !st)
    return st.error();
  const char* raw =
      reinterpret_cast<const char*>(out->tensor(0) - out->layout().slots[0].data_offset);
  // A cache: the outputs are in hand; failing to keep them costs the next run a recomputation.
  (void)core::write_atomic(file, std::string_view(raw, bytes));
  return out;
}

}  // namespace kforge::eval
