// `kforge hw`: the peaks live in the per-user cache, not in the working directory's state folder,
// so a second folder reads them without measuring; --remeasure measures again and prints every run
// and how far apart they were. The Python environment is reported as its interpreter describes
// it (JAX, its backends and default, Pallas) with what it lacks of kforge's needs, its absence is
// a line of the report that says to name one (KFORGE_PYENV, --pyenv) or run scripts/setup, not a
// failure, and a probe that hangs is cut off.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "kforge/core/python_env.h"
#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;

class HwCli : public CliScenario {
 protected:
  // By default a cache of this test's own (the shared test cache may already hold this machine's
  // peaks); the tests that are not about peaks take the shared one, where they are measured once.
  core::ProcessResult hw(std::vector<std::string> args, const std::filesystem::path& cwd,
                         const std::string& pyenv = "", bool own_cache = true) {
    args.insert(args.begin(), {kforge(), "hw"});
    auto e = env();
    if (!pyenv.empty()) e.push_back("KFORGE_PYENV=" + pyenv);
    if (own_cache) e.push_back("KFORGE_CACHE_DIR=" + (dir_ / "cache").string());
    std::erase_if(e, [](const std::string& v) { return v.rfind("KFORGE_DIR=", 0) == 0; });
    std::filesystem::create_directories(cwd);
    return core::run_process(args,
                             {.timeout = std::chrono::seconds(120), .cwd = cwd, .extra_env = e});
  }
};

TEST_F(HwCli, PeaksAreMeasuredOnceForEveryFolderAndRemeasuredOnRequest) {
  // The two measuring calls skip the Python probe (importing JAX and PyTorch takes seconds); the
  // second call probes the project's venv for real.
  const std::string no_venv = (dir_ / "no-venv").string();
  auto first = hw({"--remeasure", "--budget", "2", "--json"}, dir_ / "project-a", no_venv);
  ASSERT_TRUE(first.success()) << first.err;
  auto a = nlohmann::json::parse(first.out);
  EXPECT_GT(a["peaks"]["fma_gflops_1"].get<double>(), 0);
  EXPECT_THAT(a["peaks"]["file"].get<std::string>(),
              HasSubstr((dir_ / "cache" / "peaks").string()));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "project-a" / ".kforge" / "hw.json"));

  auto second = hw({"--json"}, dir_ / "project-b");
  ASSERT_TRUE(second.success()) << second.err;
  auto b = nlohmann::json::parse(second.out);
  EXPECT_EQ(b["peaks"]["measured_at"], a["peaks"]["measured_at"])
      << "a second folder measured again";
  EXPECT_EQ(b["peaks"]["fma_gflops_all"], a["peaks"]["fma_gflops_all"]);
  if (std::filesystem::exists(core::python_executable())) {
    EXPECT_TRUE(b["python"]["found"].get<bool>()) << b["python"].dump();
    EXPECT_FALSE(b["python"]["torch"].get<std::string>().empty()) << b["python"].dump();
  }

  auto again = hw({"--remeasure", "--budget", "2"}, dir_ / "project-b", no_venv);
  ASSERT_TRUE(again.success()) << again.err;
  EXPECT_THAT(again.out, HasSubstr("run 1: FMA"));
  EXPECT_THAT(again.out, HasSubstr("spread (max−min)/max"));
  EXPECT_THAT(again.out, HasSubstr("kept in"));
}

TEST_F(HwCli, ReportsThePythonEnvironmentOrItsAbsence) {
  auto none = hw({"--budget", "2", "--json"}, dir_ / "project", (dir_ / "no-venv").string(),
                 /*own_cache=*/false);
  ASSERT_TRUE(none.success()) << none.err;
  auto a = nlohmann::json::parse(none.out)["python"];
  EXPECT_FALSE(a["found"].get<bool>());
  EXPECT_THAT(a["problem"].get<std::string>(), HasSubstr("scripts/setup"));

  // A stand-in interpreter that answers the probe the way a venv with JAX on a GPU host would.
  auto venv = dir_ / "venv";
  std::filesystem::create_directories(venv / "bin");
  {
    std::ofstream py(venv / "bin" / "python");
    py << "#!/bin/sh\necho '{\"python\": \"3.11.2\", \"numpy\": \"2.4.6\", \"jax\": \"0.10.2\", "
          "\"jaxlib\": \"0.10.2\", \"jax_backends\": [\"cpu (1 device)\", \"gpu (2 devices)\"], "
          "\"jax_default_backend\": \"gpu\", \"pallas\": true, \"torch_error\": "
          "\"ModuleNotFoundError\"}'\n";
  }
  std::filesystem::permissions(venv / "bin" / "python", std::filesystem::perms::owner_all);
  auto found = hw({"--json"}, dir_ / "project", venv.string(), /*own_cache=*/false);
  ASSERT_TRUE(found.success()) << found.err;
  auto b = nlohmann::json::parse(found.out)["python"];
  EXPECT_TRUE(b["found"].get<bool>());
  EXPECT_EQ(b["jax"], "0.10.2");
  EXPECT_EQ(b["jax_backends"], nlohmann::json({"cpu (1 device)", "gpu (2 devices)"}));
  EXPECT_EQ(b["torch"], "");
  EXPECT_EQ(b["torch_error"], "ModuleNotFoundError");

  auto table = hw({}, dir_ / "project", venv.string(), /*own_cache=*/false);
  ASSERT_TRUE(table.success()) << table.err;
  EXPECT_THAT(table.out, HasSubstr("0.10.2, backends: cpu (1 device), gpu (2 devices); default "
                                   "gpu; jaxlib 0.10.2"));
  EXPECT_THAT(table.out, HasSubstr("kernels compile for the default backend, gpu"));
  EXPECT_THAT(table.out, HasSubstr("not importable: ModuleNotFoundError"));
  EXPECT_EQ(b["pallas"], true);
  EXPECT_EQ(b["jax_default_backend"], "gpu");
  // What it lacks of kforge's needs, with the pip line that mends each (core/python_needs.h).
  ASSERT_EQ(b["shortfalls"].size(), 2u) << b.dump(2);
  EXPECT_THAT(b["shortfalls"][0].get<std::string>(), HasSubstr("ml_dtypes is missing"));
  EXPECT_THAT(b["shortfalls"][1].get<std::string>(),
              HasSubstr("torch is missing (ModuleNotFoundError), needed by the torch peers"));
  EXPECT_THAT(table.out, HasSubstr("python needs"));
  EXPECT_THAT(table.out,
              HasSubstr((venv / "bin" / "python").string() + " -m pip install 'torch>=2.11'"));

  auto absent = hw({}, dir_ / "project", (dir_ / "no-venv").string());
  ASSERT_TRUE(absent.success()) << absent.err;
  EXPECT_THAT(absent.out, HasSubstr("no Python environment at " + (dir_ / "no-venv").string() +
                                    ": point KFORGE_PYENV (or kforge --pyenv) at one"));
}

// `kforge --pyenv DIR` names the environment as KFORGE_PYENV does, and wins over it; a relative
// DIR is taken from the working folder.
TEST_F(HwCli, ThePyenvOptionNamesTheEnvironment) {
  auto venv = dir_ / "project" / "mine";
  std::filesystem::create_directories(venv / "bin");
  {
    std::ofstream py(venv / "bin" / "python");
    py << "#!/bin/sh\necho '{\"python\": \"3.12.3\", \"numpy\": \"2.3.4\", \"ml_dtypes\": "
          "\"0.5.3\", \"jax\": \"0.11.2\", \"torch\": \"2.11.0+cu130\"}'\n";
  }
  std::filesystem::permissions(venv / "bin" / "python", std::filesystem::perms::owner_all);
  auto e = env();
  e.push_back("KFORGE_PYENV=" + (dir_ / "no-venv").string());
  auto r = core::run_process(
      {kforge(), "--pyenv", "mine", "hw", "--json"},
      {.timeout = std::chrono::seconds(120), .cwd = dir_ / "project", .extra_env = e});
  ASSERT_TRUE(r.success()) << r.err;
  auto p = nlohmann::json::parse(r.out)["python"];
  EXPECT_EQ(p["dir"], venv.string());
  EXPECT_TRUE(p["found"].get<bool>()) << p.dump(2);
  EXPECT_EQ(p["torch"], "2.11.0+cu130");
  EXPECT_TRUE(p["shortfalls"].empty()) << p.dump(2);
}

// A probe that hangs (an import stuck on a lock, a plugin waiting for a device) is cut off by
// its time limit and reported, not waited for.
TEST_F(HwCli, AHangingProbeIsCutOff) {
  auto venv = dir_ / "hanging";
  std::filesystem::create_directories(venv / "bin");
  {
    std::ofstream py(venv / "bin" / "python");
    py << "#!/bin/sh\nexec sleep 600\n";
  }
  std::filesystem::permissions(venv / "bin" / "python", std::filesystem::perms::owner_all);
  auto started = std::chrono::steady_clock::now();
  auto info = core::probe_python_env(std::chrono::milliseconds(500), venv);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_FALSE(info.found);
  EXPECT_THAT(info.problem, HasSubstr((venv / "bin" / "python").string()));
}

// The project's own venv (scripts/setup), as the kforge binary beside it finds it: the real
// interpreter's answer, with JAX, its CPU backend and Pallas, and its torch wheel as the libtorch
// the baselines build against. No venv is a failure naming scripts/setup, never a skip.
TEST_F(HwCli, TheProjectsVenvHasJaxAndPallas) {
  auto venv = std::filesystem::path(kforge()).parent_path().parent_path() / "pyenv";
  ASSERT_TRUE(std::filesystem::exists(venv / "bin" / "python"))
      << "no Python environment at " << venv << ": run scripts/setup";
  // The shared cache: its peaks were measured once for the tests; this one is about the venv.
  auto r = hw({"--budget", "2", "--json"}, dir_ / "project", venv.string(), /*own_cache=*/false);
  ASSERT_TRUE(r.success()) << r.err;
  auto p = nlohmann::json::parse(r.out)["python"];
  ASSERT_TRUE(p["found"].get<bool>()) << p.dump();
  EXPECT_THAT(p["jax"].get<std::string>(), ::testing::MatchesRegex(R"([0-9]+\.[0-9]+\.[0-9]+.*)"));
  EXPECT_FALSE(p["jaxlib"].get<std::string>().empty());
  EXPECT_TRUE(p["pallas"].get<bool>()) << p.dump();
  bool cpu = false;
  for (const auto& b : p["jax_backends"]) cpu = cpu || b.get<std::string>().rfind("cpu (", 0) == 0;
  EXPECT_TRUE(cpu) << p.dump();
  EXPECT_FALSE(p["jax_default_backend"].get<std::string>().empty());
  const auto& torch = p["libtorch"];
  ASSERT_TRUE(torch["found"].get<bool>()) << torch.dump();
  EXPECT_TRUE(torch["wheel"].get<bool>()) << torch.dump();
  EXPECT_THAT(torch["root"].get<std::string>(),
              HasSubstr(std::filesystem::canonical(venv).string() + "/lib/python3"));
  EXPECT_THAT(torch["include_dirs"][0].get<std::string>(),
              HasSubstr("/site-packages/torch/include"));
}

}  // namespace
}  // namespace kforge::modes
