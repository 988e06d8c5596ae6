// Adversarial kernels against the compiler's sandbox. A candidate's source is written by a model
// and compiled on the user's machine: it must not embed or quote the state folder's secrets
// (.incbin, #include, by absolute or relative path), the user's files or the repository, learn
// kforge's environment (API keys, CPATH), fill the disk, or smuggle options in through its file
// name. Each test fails if its defence is removed; controls show the refused thing works when
// allowed, so a refusal is the sandbox's doing and not a typo's.
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "kforge/core/fs.h"
#include "kforge/core/landlock.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_header.h"
#include "kforge/core/task_loader.h"
#include "kforge/toolchain/compile_scratch.h"
#include "kforge/toolchain/cpp_compiler.h"
#include "kforge/toolchain/test_compile_cache.h"
#include "kforge/toolchain/toolchain_test_util.h"

namespace kforge::toolchain {
namespace {

const char* kHeader =
    "#pragma once\nextern \"C\" __attribute__((visibility(\"default\"))) void kernel(const float* "
    "x, float* y);\n";
const char* kKernel =
    "#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* x, float* y) { y[0] = x[0]; "
    "}\n";

// A fake state folder laid out as kforge's (.kforge/cache, .kforge/secrets), with a seed file
// holding a marker that must never come back from a compile.
class CompileSandboxTest : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    if (core::landlock_abi() == 0)
      GTEST_SKIP() << "this kernel has no Landlock: the compiler cannot be confined";
    state_ = dir_ / ".kforge";
    marker_ = fmt::format("KFORGE_SECRET_MARKER_{}_7f3a", ::getpid());
    std::filesystem::create_directories(state_ / "secrets");
    std::ofstream(state_ / "secrets" / "t.seeds") << marker_ << "\n";
  }

  CppCompilerOptions options() {
    return {.cache_dir = state_ / "cache", .scratch_root = dir_ / "scratch"};
  }
  CompileResult compile(const std::string& source, CppCompilerOptions o,
                        Role role = Role::candidate, std::string name = "kernel.cpp") {
    return CppCompiler(std::move(o)).compile({role, source, std::move(name), kHeader, {}});
  }
  CompileResult compile(const std::string& source) { return compile(source, options()); }

  std::filesystem::path secret() const { return state_ / "secrets" / "t.seeds"; }
  static std::string incbin(const std::string& path) {
    return fmt::format("asm(\".incbin \\\"{}\\\"\");\n{}", path, kKernel);
  }
  static std::string include(const std::string& path) {
    return fmt::format("#include \"{}\"\n{}", path, kKernel);
  }

  void expect_nowhere(const CompileResult& r, const std::string& text) {
    EXPECT_EQ(r.log.find(text), std::string::npos) << r.log;
    EXPECT_EQ(r.command.find(text), std::string::npos);
    for (const auto& d : r.diagnostics) {
      EXPECT_EQ(d.message.find(text), std::string::npos) << d.message;
      EXPECT_EQ(d.source_line.find(text), std::string::npos) << d.source_line;
    }
  }

  std::filesystem::path state_;
  std::string marker_;
};

}  // namespace

TEST_F(CompileSandboxTest, IncbinOfASecretByAbsolutePathIsRefused) {
  auto r = compile(incbin(secret().string()));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.artifact.empty());
  expect_nowhere(r, marker_);
  EXPECT_NE(r.log.find("the compiler runs in a sandbox"), std::string::npos) << r.log;
  // Control: .incbin itself works on a file the compiler may read.
  EXPECT_TRUE(compile(incbin("kforge_task.h")).ok);
}

TEST_F(CompileSandboxTest, SecretsAreOutOfReachByRelativePath) {
  // Scratch folders where kforge used to put them (inside the cache, three levels below the
  // state folder) and where it puts them now: a relative path that reaches the secrets from
  // either would work without Landlock.
  for (auto [root, up] : {std::pair{state_ / "cache" / "tmp", "../../../secrets/t.seeds"},
                          std::pair{dir_ / "scratch", "../../.kforge/secrets/t.seeds"}}) {
    auto o = options();
    o.scratch_root = root;
    auto embedded = compile(incbin(up), o);
    EXPECT_FALSE(embedded.ok) << root;
    expect_nowhere(embedded, marker_);
    auto included = compile(include(up), o);  // would quote the marker in an error
    EXPECT_FALSE(included.ok) << root;
    expect_nowhere(included, marker_);
  }
}

TEST_F(CompileSandboxTest, ScratchLiesOutsideTheStateFolder) {
  EXPECT_TRUE(compile(kKernel, {.cache_dir = state_ / "cache"}).ok);  // the default scratch root
  EXPECT_FALSE(std::filesystem::exists(state_ / "cache" / "tmp"));
  auto root = std::filesystem::temp_directory_path() / fmt::format("kforge-build-{}", ::geteuid());
  struct stat st {};
  ASSERT_EQ(::lstat(root.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(st.st_uid, ::geteuid());
}

TEST_F(CompileSandboxTest, UserFilesAndTheRepositoryAreOutOfReach) {
  std::filesystem::create_directories(dir_ / "project");
  std::ofstream(dir_ / "project" / "notes.h") << "#error " << marker_ << "\n";
  auto user = compile(include((dir_ / "project" / "notes.h").string()));
  EXPECT_FALSE(user.ok);
  expect_nowhere(user, marker_);
  EXPECT_NE(user.log.find("Permission denied"), std::string::npos) << user.log;
  // The repository: kforge's own sources, tests and bench.
  auto repo =
      compile(include((core::source_dir() / "src" / "kforge" / "core" / "result.h").string()));
  EXPECT_FALSE(repo.ok);
  EXPECT_NE(repo.log.find("Permission denied"), std::string::npos) << repo.log;
}

TEST_F(CompileSandboxTest, OnlyTrustedRolesReadTheIncludeDir) {
  std::filesystem::create_directories(dir_ / "bench-include" / "kforge");
  std::ofstream(dir_ / "bench-include" / "kforge" / "helper.h")
      << "inline int helper() { return 1; }\n";
  auto o = options();
  o.include_dir = dir_ / "bench-include";
  const std::string by_name = std::string("#include <kforge/helper.h>\n") + kKernel;
  const std::string by_path = include((dir_ / "bench-include" / "kforge" / "helper.h").string());
  EXPECT_TRUE(compile(by_name, o, Role::reference).ok);  // control
  EXPECT_TRUE(compile(by_path, o, Role::expert).ok);
  EXPECT_FALSE(compile(by_name, o, Role::candidate).ok);
  auto candidate = compile(by_path, o, Role::candidate);
  EXPECT_FALSE(candidate.ok);
  EXPECT_NE(candidate.log.find("Permission denied"), std::string::npos) << candidate.log;
}

TEST_F(CompileSandboxTest, SystemHeadersAndTheTaskHeaderStillWork) {
  auto r =
      compile("#include <vector>\n#include <cmath>\n#include <immintrin.h>\n#include <omp.h>\n" +
              std::string(kKernel));
  EXPECT_TRUE(r.ok) << r.log;
  // Experts link oneDNN and OpenBLAS.
  auto expert = compile(
      "#include <cblas.h>\n#include <dnnl.hpp>\n#include \"kforge_task.h\"\n"
      "extern \"C\" void kernel(const float* x, float* y) { y[0] = cblas_sdot(1, x, 1, x, 1); "
      "dnnl::engine e(dnnl::engine::kind::cpu, 0); }\n",
      options(), Role::expert);
  EXPECT_TRUE(expert.ok) << expert.log;
}

TEST_F(CompileSandboxTest, KforgesEnvironmentDoesNotReachTheCompiler) {
  std::filesystem::create_directories(dir_ / "cpath");
  std::ofstream(dir_ / "cpath" / "leak.h") << "#error " << marker_ << "\n";
  const std::string key = "sk-kforge-test-" + marker_;
  setenv("CPATH", (dir_ / "cpath").c_str(), 1);
  setenv("OPENAI_API_KEY", key.c_str(), 1);
  // A fake compiler shows exactly what a compiler would see.
  auto fake = dir_ / "env-cxx";
  std::ofstream(fake) << "#!/bin/sh\nenv\nexit 1\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  auto o = options();
  o.cxx = fake.string();
  auto seen = compile(kKernel, o);
  auto cpath = compile(include("leak.h"));
  auto environ_file = compile(include("/proc/self/environ"));
  unsetenv("CPATH");
  unsetenv("OPENAI_API_KEY");

  EXPECT_NE(seen.log.find("PATH=/usr/bin:/bin\n"), std::string::npos) << seen.log;
  EXPECT_NE(seen.log.find("LANG=C\n"), std::string::npos);
  EXPECT_NE(seen.log.find("TMPDIR=" + (dir_ / "scratch").string()), std::string::npos);
  for (const char* name : {"CPATH", "OPENAI_API_KEY", "KFORGE_TEST_CACHE", "LIBRARY_PATH"})
    EXPECT_EQ(seen.log.find(name), std::string::npos) << name;
  EXPECT_FALSE(cpath.ok);
  expect_nowhere(cpath, marker_);
  EXPECT_EQ(cpath.log.find((dir_ / "cpath").string()), std::string::npos)
      << cpath.log;  // not even searched
  EXPECT_FALSE(environ_file.ok);
  expect_nowhere(environ_file, key);
}

TEST_F(CompileSandboxTest, OversizedOutputIsRefusedWithTheLimitMessage) {
  const std::string big =
      "extern \"C\" __attribute__((visibility(\"default\"))) char big[1 << 27] = {1};\n" +
      std::string(kKernel);
  auto r = compile(big);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.log.rfind("the compiler's output exceeded 64 MiB (RLIMIT_FSIZE): ", 0), 0u) << r.log;
  EXPECT_NE(format_errors(r.diagnostics).find("exceeded 64 MiB (RLIMIT_FSIZE)"), std::string::npos);
  // Control: a 128 MiB object is within a 256 MiB limit.
  auto o = options();
  o.candidate_limits.output_bytes = 256ULL << 20;
  auto allowed = compile(big, o);
  EXPECT_TRUE(allowed.ok) << allowed.log;
}

TEST_F(CompileSandboxTest, AddressSpaceLimitIsNamed) {
  auto o = options();
  o.candidate_limits.address_space = 64ULL << 20;
  const std::string heavy =
      "#include <algorithm>\n#include <immintrin.h>\n#include <iostream>\n#include <vector>\n" +
      std::string(kKernel);
  auto r = compile(heavy, o);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("the compiler ran out of its 64 MiB of address space (RLIMIT_AS)"),
            std::string::npos)
      << r.log;
  EXPECT_TRUE(compile(heavy).ok);  // control: the default limit
}

TEST_F(CompileSandboxTest, FileNamesAreNeverOptionsOrPaths) {
  for (std::string name : {"-fplugin=./evil.so", "-o", "--help", "../escape.cpp", "/tmp/abs.cpp",
                           "a b.cpp", ".hidden.cpp", "kernel.h"}) {
    auto r = compile(kKernel, options(), Role::candidate, name);
    EXPECT_TRUE(r.ok) << name << ": " << r.log;
    EXPECT_NE(r.command.find(" -shared kernel.cpp -o kernel.so"), std::string::npos) << r.command;
    EXPECT_EQ(r.command.find("-fplugin"), std::string::npos);
    EXPECT_EQ(r.command.find("--help"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "scratch" / "escape.cpp"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "escape.cpp"));
  // Diagnostics name the file as its author knows it.
  auto broken = compile("int main( {\n", options(), Role::candidate, "-o");
  ASSERT_FALSE(broken.ok);
  ASSERT_FALSE(broken.diagnostics.empty());
  EXPECT_EQ(broken.diagnostics[0].file, "-o");
  EXPECT_NE(broken.log.find("-o:1:"), std::string::npos) << broken.log;
}

TEST(ScratchFileName, KeepsPlainNamesOnly) {
  EXPECT_EQ(scratch_file_name("kernel.cpp"), "kernel.cpp");
  EXPECT_EQ(scratch_file_name("baseline.cc"), "baseline.cc");
  EXPECT_EQ(scratch_file_name("cand_7-v2.cxx"), "cand_7-v2.cxx");
  for (const char* bad : {"", "-o", "-fplugin=x.cpp", ".x.cpp", "../a.cpp", "a/b.cpp", "a b.cpp",
                          "k.h", "k.o", "k.c", "k.cpp;rm", "é.cpp"})
    EXPECT_EQ(scratch_file_name(bad), "kernel.cpp") << bad;
}

TEST_F(CompileSandboxTest, VectorizationReportIsSandboxedToo) {
  CppCompiler c(options());
  auto out = c.vectorization_output(
      {Role::candidate, include(secret().string()), "kernel.cpp", kHeader, {}});
  EXPECT_EQ(out.find(marker_), std::string::npos) << out;
  EXPECT_NE(out.find("Permission denied"), std::string::npos) << out;
  // Control: remarks name the file by its display name even when it was renamed.
  auto loop =
      "#include \"kforge_task.h\"\nvoid f(float* __restrict a, const float* __restrict b) { for "
      "(int i = 0; i < 1024; ++i) a[i] += b[i]; }\n";
  auto remarks = c.vectorization_output({Role::candidate, loop, "my kernel.cpp", kHeader, {}});
  EXPECT_NE(remarks.find("my kernel.cpp:2:"), std::string::npos) << remarks;
}

TEST(PrivateScratchRoot, RefusesASymlinkAndTightensItsMode) {
  auto dir =
      std::filesystem::temp_directory_path() / fmt::format("kforge-scratch-root-{}", ::getpid());
  std::filesystem::create_directories(dir / "elsewhere");
  std::filesystem::create_directory_symlink(dir / "elsewhere", dir / "link");
  auto linked = private_scratch_root(dir / "link");
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.error().message.find("not a directory"), std::string::npos);
  std::filesystem::create_directories(dir / "open");
  std::filesystem::permissions(dir / "open", std::filesystem::perms::all);
  ASSERT_TRUE(private_scratch_root(dir / "open").ok());
  EXPECT_EQ(std::filesystem::status(dir / "open").permissions(), std::filesystem::perms::owner_all);
  std::filesystem::remove_all(dir);
}

// The baseline role still compiles under the sandbox: ATen from /usr/include, bench/include, the
// precompiled header built (sandboxed) into this test's own cache, libtorch linked.
// The baseline compiles in its sandbox with the precompiled ATen header read from the cache. The
// header itself comes from the build tree's shared test cache (built there, in the same sandbox, by
// the first test that needs it: 12-18 s of CPU here that every run of this test used to repeat),
// seen through this state folder's cache; the object cache stays this test's own, so the compile
// runs.
TEST_F(CompileSandboxTest, BaselineCompilesWithTheAtenPch) {
  std::filesystem::create_directories(test_compile_cache() / "pch");
  std::filesystem::create_directories(state_ / "cache");
  std::filesystem::create_directory_symlink(test_compile_cache() / "pch", state_ / "cache" / "pch");
  auto task_dir = core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm";
  auto spec = core::load_task(task_dir);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto resolved = core::resolve_task(*spec, "ci");
  ASSERT_TRUE(resolved.ok()) << resolved.error().message;
  auto source = core::read_text(task_dir / "baseline.cpp");
  ASSERT_TRUE(source.ok());
  auto o = options();
  o.include_dir = core::source_dir() / "bench" / "include";
  CppCompiler c(o);
  auto r = c.compile({Role::baseline, *source, "baseline.cpp", core::task_header(*resolved), {}});
  EXPECT_TRUE(r.ok) << r.log;
  EXPECT_NE(r.command.find("-include " + (state_ / "cache" / "pch").string()), std::string::npos)
      << r.command;
}

}  // namespace kforge::toolchain
