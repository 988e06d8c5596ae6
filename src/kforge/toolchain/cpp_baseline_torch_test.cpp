// The cpp target's baseline builds against the torch wheel of the Python environment kforge uses
// (KFORGE_PYENV; a bare GPU machine has one and no dev packages): its compile command names the
// wheel's include folders, links its libtorch with a run path to it, and its process may read the
// wheel. Without any libtorch the compile says what is missing. A stand-in compiler records the
// command (the real compile of a baseline is compile_sandbox_test's and the release test's).
#include <gmock/gmock.h>
#include <stdlib.h>

#include <fstream>
#include <optional>
#include <string>

#include "kforge/core/paths.h"
#include "kforge/core/torch_install.h"
#include "kforge/toolchain/cpp_compiler.h"
#include "kforge/toolchain/toolchain_test_util.h"

namespace kforge::toolchain {
namespace {

using ::testing::HasSubstr;

const char* kHeader = "#pragma once\nextern \"C\" void kernel(const float* x, float* y);\n";

class CppBaselineTorch : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    const char* old = std::getenv("KFORGE_PYENV");
    old_ = old ? std::optional<std::string>(old) : std::nullopt;
    // The build's own environment (scripts/setup makes it beside build/bin, with PyTorch).
    pyenv_ = core::executable_dir().parent_path() / "pyenv";
    // A compiler that precompiles nothing and makes an empty object: the command is the point.
    fake_ = dir_ / "fake-cxx";
    std::ofstream(fake_) << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo fake 1.0; exit 0; fi\n"
                            "case \"$*\" in *c++-header*) : > kforge_torch.h.gch; exit 0;; esac\n"
                            ": > kernel.so\n";
    std::filesystem::permissions(fake_, std::filesystem::perms::owner_all);
  }
  void TearDown() override {
    if (old_)
      ::setenv("KFORGE_PYENV", old_->c_str(), 1);
    else
      ::unsetenv("KFORGE_PYENV");
    ScratchTest::TearDown();
  }
  CompileResult baseline(CppCompiler& c) {
    return c.compile({Role::baseline, "int baseline;", "baseline.cpp", kHeader, {}});
  }
  std::optional<std::string> old_;
  std::filesystem::path pyenv_, fake_;
};

TEST_F(CppBaselineTorch, TheCommandNamesTheWheelOfKforgePyenv) {
  auto wheel = core::wheel_torch(pyenv_);
  if (!std::filesystem::exists(pyenv_)) GTEST_SKIP() << "no " << pyenv_ << " (scripts/setup)";
  ASSERT_TRUE(wheel) << pyenv_ << " has no torch wheel with headers";
  ::setenv("KFORGE_PYENV", pyenv_.c_str(), 1);
  CppCompiler c({.cxx = fake_.string(), .cache_dir = dir_ / "cache"});
  auto r = baseline(c);
  ASSERT_TRUE(r.ok) << r.log;
  const auto env_lib = std::filesystem::canonical(pyenv_) / "lib";  // the wheel is this env's
  EXPECT_THAT(r.command, HasSubstr("-I" + (wheel->root / "include").string() + " "));
  EXPECT_THAT(r.command,
              HasSubstr("-I" + (wheel->root / "include/torch/csrc/api/include").string() + " "));
  EXPECT_THAT(r.command, HasSubstr("-Wl,-rpath," + (wheel->root / "lib").string()));
  EXPECT_THAT(r.command, HasSubstr("-ltorch_cpu -lc10"));
  EXPECT_EQ(wheel->root.string().rfind(env_lib.string(), 0), 0u) << wheel->root;
  // The precompiled header is made with the same headers.
  EXPECT_THAT(r.command, HasSubstr("-include " + (dir_ / "cache" / "pch").string()));
  // The kernel process running it may read the wheel (libtorch_cpu.so and what it loads).
  auto reads = c.runtime_reads(Role::baseline);
  EXPECT_THAT(reads, ::testing::Contains(wheel->root));
  EXPECT_TRUE(c.runtime_reads(Role::candidate).empty());
}

TEST_F(CppBaselineTorch, ANewTorchInTheSameFolderMissesTheCache) {
  auto torch = dir_ / "env" / "lib" / "python3.12" / "site-packages" / "torch";
  for (const char* f : {"include/ATen/ATen.h", "lib/libtorch_cpu.so"}) {
    std::filesystem::create_directories((torch / f).parent_path());
    std::ofstream(torch / f) << "";
  }
  auto with_version = [&](const char* v) {
    std::ofstream(torch / "version.py") << "__version__ = '" << v << "'\n";
    CppCompiler c({.cxx = fake_.string(), .cache_dir = dir_ / "cache", .python_env = dir_ / "env"});
    return baseline(c).key;
  };
  EXPECT_NE(with_version("2.15.0"), with_version("2.16.0"));
}

TEST_F(CppBaselineTorch, NoLibtorchAnywhereIsSaidNotCompiled) {
  std::filesystem::create_directories(dir_ / "bare-env" / "bin");
  CppCompiler c({.cxx = fake_.string(),
                 .cache_dir = dir_ / "cache",
                 .python_env = dir_ / "bare-env",
                 .system_prefix = dir_ / "no-usr"});
  auto r = baseline(c);
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.log, HasSubstr("the baseline needs libtorch"));
  EXPECT_THAT(r.log, HasSubstr((dir_ / "bare-env").string()));
  EXPECT_THAT(r.log, HasSubstr("KFORGE_PYENV"));
  EXPECT_TRUE(r.command.empty()) << "nothing was run: " << r.command;
  // A candidate needs no libtorch.
  auto cand = c.compile({Role::candidate, "int k;", "kernel.cpp", kHeader, {}});
  EXPECT_TRUE(cand.ok) << cand.log;
}

}  // namespace
}  // namespace kforge::toolchain
