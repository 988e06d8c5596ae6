// The Python ports of every task under bench/jaxbench agree with the C++ reference on the judge's
// secret inputs at the ci size: workload.py under jax.jit ("xla"), baseline.py's op-by-op
// PyTorch port ("eager") and, where it defines one, its library call ("library"). kforge makes
// the inputs (the same generator and per-task secret seed pool an evaluation uses), writes them
// as .npy with the generated kforge_task.py, runs one Python process for the framework over the
// whole suite (JAX and PyTorch each take seconds to import), and compares the outputs itself with
// the task's tolerance. One test per framework, so that ctest runs the two side by side. No Python
// environment is a failure that names scripts/setup, never a skip. A suite of one task with wrong
// ports (a wrong result, a wrong shape, a port that raises) shows that each of those is caught and
// named.
// KFORGE_SUITE_DIR selects another suite; KFORGE_SUITE_TASKS=a,b limits the tasks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include <nlohmann/json.hpp>

#include "kforge/core/compare.h"
#include "kforge/core/fs.h"
#include "kforge/core/npy.h"
#include "kforge/core/paths.h"
#include "kforge/core/python_env.h"
#include "kforge/core/subprocess.h"
#include "kforge/core/task_loader.h"
#include "kforge/core/task_python.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/python_kernel.h"
#include "kforge/eval/secret_seeds.h"
#include "kforge/eval/task_context.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::eval {
namespace {

constexpr int kCheckSets = 3;  // as many as an evaluation checks

std::filesystem::path default_suite() {
  if (const char* d = std::getenv("KFORGE_SUITE_DIR"); d && *d) return d;
  return core::source_dir() / "bench" / "jaxbench";
}

std::string task_filter() {
  return std::getenv("KFORGE_SUITE_TASKS") ? std::getenv("KFORGE_SUITE_TASKS") : "";
}

// One task's inputs written for Python, and the reference outputs kept for the comparison.
struct Prepared {
  std::unique_ptr<core::TaskSpec> spec;
  std::unique_ptr<TaskContext> ctx;
  std::vector<SharedSet> references;
};

// Runs every task of a suite through the Python ports; each problem is one line naming the task,
// the entry and what is wrong.
class PortCheck {
 public:
  // framework: "jax" (workload.py) or "torch" (baseline.py); only: "a,b" checks those tasks, ""
  // all of them.
  PortCheck(std::string framework, std::filesystem::path suite, std::filesystem::path state,
            std::string only)
      : framework_(std::move(framework)),
        suite_(std::move(suite)),
        state_(std::move(state)),
        only_(std::move(only)) {
    compiler_ = std::make_unique<toolchain::CppCompiler>(
        toolchain::CppCompilerOptions{.cache_dir = test_compile_cache(),
                                      .include_dir = core::source_dir() / "bench" / "include"});
  }

  std::vector<std::string> run() {
    for (const auto& dir : core::list_task_dirs(suite_)) {
      if (!only_.empty() &&
          ("," + only_ + ",").find("," + dir.filename().string() + ",") == std::string::npos)
        continue;
      auto p = prepare(dir);
      if (!p)
        problems_.push_back(dir.filename().string() + ": " + p.error().message);
      else
        tasks_.emplace(dir.filename().string(), std::move(*p));
    }
    if (tasks_.empty()) problems_.push_back("no task selected under " + suite_.string());
    check_framework(framework_);
    return problems_;
  }

 private:
  Result<Prepared> prepare(const std::filesystem::path& dir) {
    Prepared p;
    auto spec = core::load_task(dir);
    if (!spec) return spec.error();
    p.spec = std::make_unique<core::TaskSpec>(std::move(*spec));
    auto ctx = TaskContext::create(*p.spec, "ci", *compiler_, state_);
    if (!ctx) return ctx.error();
    p.ctx = std::make_unique<TaskContext>(std::move(*ctx));
    const auto& task = p.ctx->task();
    auto out = work() / p.spec->id;
    if (auto st = core::write_atomic(out / "kforge_task.py", core::task_python_module(task)); !st)
      return st.error();
    auto seeds = secret_seeds(state_, p.spec->id, kCheckSets);
    if (!seeds) return seeds.error();
    for (std::size_t k = 0; k < seeds->size(); ++k) {
      auto in = p.ctx->make_inputs((*seeds)[k]);
      if (!in) return in.error();
      auto ref = p.ctx->reference_outputs(*in, (*seeds)[k]);
      if (!ref) return ref.error();
      for (std::size_t i = 0; i < task.inputs.size(); ++i) {
        const auto& t = task.inputs[i];
        auto path = out / fmt::format("set{}", k + 1) / "inputs" / (t.name + ".npy");
        if (auto st = core::write_npy(path, t.dtype, t.shape, in->tensor(i)); !st)
          return st.error();
      }
      p.references.push_back(std::move(*ref));
    }
    return p;
  }

  std::filesystem::path work() const { return state_ / "work"; }

  // Runs bench/python/run_ports.py for one framework, then compares what every entry wrote.
  void check_framework(const std::string& framework) {
    core::ProcessOptions po;
    po.timeout = std::chrono::minutes(10);
    // No __pycache__ in bench/. XLA's compiles are kept in the tests' shared cache, as an
    // evaluation keeps them (python_kernel.cpp): a port that changed is a new key.
    po.extra_env = xla_compile_cache_env(test_user_cache() / "python" / "jax");
    po.extra_env.insert(po.extra_env.end(),
                        {"PYTHONDONTWRITEBYTECODE=1", "TF_CPP_MIN_LOG_LEVEL=3"});
    auto r =
        core::run_process({core::python_executable().string(),
                           (core::source_dir() / "bench" / "python" / "run_ports.py").string(),
                           "--framework", framework, "--suite", suite_.string(), work().string()},
                          po);
    if (!r.success())
      problems_.push_back("run_ports.py --framework " + framework + ": " + r.describe() + "\n" +
                          r.err);
    auto text = core::read_text(work() / (framework + "-report.json"));
    auto report = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (!report.is_object()) return problems_.push_back(framework + ": no readable report");
    for (const auto& [id, p] : tasks_) {
      auto entries = report.value(id, nlohmann::json::object());
      // The library call is optional: PyTorch has one for some tasks only.
      const std::string required = framework == "jax" ? "xla" : "eager";
      if (!entries.contains(required)) problems_.push_back(id + " " + required + ": not run");
      for (const auto& [entry, status] : entries.items()) {
        if (status == "ok")
          compare_entry(p, entry);
        else
          problems_.push_back(id + " " + entry + ": " + status.get<std::string>());
      }
    }
  }

  // Every output of every set that one entry wrote, against the reference.
  void compare_entry(const Prepared& p, const std::string& entry) {
    const auto& task = p.ctx->task();
    for (std::size_t k = 0; k < p.references.size(); ++k)
      for (std::size_t i = 0; i < task.outputs.size(); ++i) {
        const auto& t = task.outputs[i];
        std::string what =
            fmt::format("{} {}: set {} output '{}'", p.spec->id, entry, k + 1, t.name);
        auto got = core::read_npy(work() / p.spec->id / entry / fmt::format("set{}", k + 1) /
                                  (t.name + ".npy"));
        if (!got) {
          problems_.push_back(what + ": " + got.error().message);
          continue;
        }
        if (got->dtype != t.dtype || got->shape != t.shape) {
          problems_.push_back(fmt::format("{}: {} [{}] where the task says {} [{}]", what,
                                          core::dtype_name(got->dtype), fmt::join(got->shape, ", "),
                                          core::dtype_name(t.dtype), fmt::join(t.shape, ", ")));
          continue;
        }
        auto s = core::compare_buffers(t.dtype, got->data.data(), p.references[k].tensor(i),
                                       t.numel, task.rtol, task.atol);
        if (!s.ok())
          problems_.push_back(
              fmt::format("{}: {} of {} elements outside |got - ref| <= {:g} + {:g}·|ref|; worst "
                          "at {}: {:g} vs {:g}",
                          what, s.bad, s.numel, task.atol, task.rtol, s.worst, s.worst_actual,
                          s.worst_expected));
      }
  }

  std::string framework_;
  std::filesystem::path suite_, state_;
  std::string only_;
  std::unique_ptr<toolchain::CppCompiler> compiler_;
  std::map<std::string, Prepared> tasks_;
  std::vector<std::string> problems_;
};

class PythonPorts : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(core::python_executable()))
        << "no Python environment at " << core::python_env_dir()
        << ": run scripts/setup (it makes build/pyenv with JAX, NumPy and PyTorch)";
    state_ = test_state_dir("python-ports");
  }
  void TearDown() override {
    if (!HasFailure())
      std::filesystem::remove_all(state_);  // kept on failure: the inputs and outputs to look at
  }
  std::filesystem::path state_;
};

// workload.py under jax.jit ("xla") for every task.
TEST_F(PythonPorts, EveryJaxPortAgreesWithTheReference) {
  auto problems = PortCheck("jax", default_suite(), state_, task_filter()).run();
  for (const auto& p : problems) ADD_FAILURE() << p;
  if (!problems.empty()) ADD_FAILURE() << "inputs and outputs kept in " << state_ / "work";
}

// baseline.py op by op ("eager") and its library call ("library") for every task.
TEST_F(PythonPorts, EveryTorchPortAgreesWithTheReference) {
  auto problems = PortCheck("torch", default_suite(), state_, task_filter()).run();
  for (const auto& p : problems) ADD_FAILURE() << p;
  if (!problems.empty()) ADD_FAILURE() << "inputs and outputs kept in " << state_ / "work";
}

// A copy of 12p_rmsnorm whose ports are wrong in three ways; each is reported, with its entry.
class WrongPorts : public PythonPorts {
 protected:
  void SetUp() override {
    PythonPorts::SetUp();
    suite_ = state_ / "suite";
    auto task = suite_ / "12p_rmsnorm";
    std::filesystem::create_directories(task);
    for (const char* f : {"task.toml", "reference.cpp", "baseline.cpp"})
      std::filesystem::copy_file(core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / f,
                                 task / f);
    ASSERT_TRUE(core::write_atomic(
                    task / "workload.py",
                    "import kforge_task as task\ndef workload(x, scale):\n    return x * scale\n")
                    .ok());
    ASSERT_TRUE(
        core::write_atomic(task / "baseline.py",
                           "def baseline(x, scale):\n    return x[0]\n"
                           "def library(x, scale):\n    raise RuntimeError('no such kernel')\n")
            .ok());
  }
  std::string problems_of(const std::string& framework, std::size_t& count) {
    auto problems = PortCheck(framework, suite_, state_ / "state", "").run();
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    count = problems.size();
    return all;
  }
  std::filesystem::path suite_;
};

// A wrong result: one line per check set, with the elements outside the tolerance.
TEST_F(WrongPorts, AWrongJaxResultIsNamedForEverySet) {
  std::size_t count = 0;
  auto all = problems_of("jax", count);
  EXPECT_NE(all.find("12p_rmsnorm xla: set 1 output 'y': "), std::string::npos) << all;
  EXPECT_NE(all.find("elements outside"), std::string::npos) << all;
  EXPECT_EQ(count, 3u) << all;  // one line per check set
}

// A wrong shape and a port that raises: one line each, with the entry and the error.
TEST_F(WrongPorts, AWrongTorchShapeAndARaisingLibraryCallAreNamed) {
  std::size_t count = 0;
  auto all = problems_of("torch", count);
  EXPECT_NE(all.find("12p_rmsnorm eager: ValueError: output 'y' has shape (8, 256); the task says "
                     "(2, 8, 256)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("12p_rmsnorm library: "), std::string::npos) << all;
  EXPECT_NE(all.find("RuntimeError: no such kernel"), std::string::npos) << all;
  EXPECT_EQ(count, 2u) << all;
}

}  // namespace
}  // namespace kforge::eval
