// The real compiler behind the Compiler interface: artifacts, the content-hash cache (failures
// included), diagnostics with the offending source line, and the compile timeout.
#include "kforge/toolchain/cpp_compiler.h"

#include <fmt/format.h>
#include <gmock/gmock.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "kforge/core/fs.h"
#include "kforge/core/utf8.h"
#include "kforge/toolchain/toolchain_test_util.h"

namespace kforge::toolchain {
namespace {

const char* kHeader =
    "#pragma once\n#include <cstdint>\nnamespace task { inline constexpr std::int64_t N = 8; }\n"
    "extern \"C\" __attribute__((visibility(\"default\"))) void kernel(const float* x, float* "
    "y);\n";

class CppCompilerTest : public ScratchTest {
 protected:
  CompileResult compile(const std::string& source, std::vector<std::string> flags = {}) {
    CppCompiler c({.cache_dir = dir_ / "cache"});
    return c.compile({Role::candidate, source, "kernel.cpp", kHeader, std::move(flags)});
  }
};

}  // namespace

TEST_F(CppCompilerTest, CompilesAndCachesByContent) {
  const std::string src =
      "#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* x, float* y) { for (int i "
      "= 0; i < task::N; ++i) y[i] = x[i]; }\n";
  auto first = compile(src);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.cached);
  EXPECT_TRUE(std::filesystem::exists(first.artifact));
  auto second = compile(src);
  EXPECT_TRUE(second.ok);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(first.key, second.key);
  EXPECT_EQ(first.artifact, second.artifact);
  auto flagged = compile(src, {"-DTILE=4"});
  EXPECT_NE(flagged.key, first.key);
  EXPECT_FALSE(flagged.cached);
}

// cached() answers without compiling, as compile() would be served: so that a progress line can
// say "cached" rather than warn of a minute's build.
TEST_F(CppCompilerTest, CachedAnswersWithoutCompiling) {
  const std::string src =
      "#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* x, float* y) { for (int i "
      "= 0; i < task::N; ++i) y[i] = 2 * x[i]; }\n";
  CppCompiler c({.cache_dir = dir_ / "cache"});
  const CompileRequest request{Role::candidate, src, "kernel.cpp", kHeader, {}};
  EXPECT_FALSE(c.cached(request));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "cache" / "obj")) << "cached() compiled";
  ASSERT_TRUE(c.compile(request).ok);
  EXPECT_TRUE(c.cached(request));
  EXPECT_FALSE(c.cached({Role::candidate, src, "kernel.cpp", kHeader, {"-DTILE=4"}}));
  EXPECT_FALSE(c.cached({Role::expert, src, "kernel.cpp", kHeader, {}}));
}

// A compile whose outcome cannot be stored in the cache (here every obj/<prefix> folder is a file)
// is a failed compile saying why, in the log and as its first diagnostic, with no artifact: never
// a kernel loaded from a scratch folder that is about to go.
TEST_F(CppCompilerTest, AnOutcomeThatCannotBeStoredIsAFailedCompileSayingWhy) {
  std::filesystem::create_directories(dir_ / "cache" / "obj");
  for (int i = 0; i < 256; ++i)
    std::ofstream(dir_ / "cache" / "obj" / fmt::format("{:02x}", i)) << "not a folder\n";
  auto r = compile(
      "#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* x, float* y) { y[0] = "
      "x[0]; }\n");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.artifact.empty());
  EXPECT_THAT(r.log, ::testing::StartsWith("kforge could not store the compiled kernel: "));
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].file, "kforge");
  EXPECT_THAT(r.diagnostics[0].message, ::testing::HasSubstr("cannot store the compile"));
}

// The version the agents are told: the first line of `--version`, with a version number in it.
TEST_F(CppCompilerTest, VersionIsTheFirstLineOfVersionOutput) {
  CppCompiler c({.cache_dir = dir_ / "cache"});
  std::string v = c.version();
  EXPECT_EQ(v.find('\n'), std::string::npos);
  EXPECT_TRUE(std::regex_search(v, std::regex(R"(\d+\.\d+)"))) << v;
}

// A cache entry that is not whole (a full disk once left one holding only a temporary file) is
// recompiled and replaced, not served as "compile_error: 0 compile errors" for ever.
TEST_F(CppCompilerTest, AHalfWrittenCacheEntryIsRecompiled) {
  const std::string src =
      "#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* x, float* y) { y[0] = "
      "x[0]; }\n";
  auto first = compile(src);
  ASSERT_TRUE(first.ok) << first.log;
  const auto entry = first.artifact.parent_path();
  std::filesystem::remove_all(entry);
  std::filesystem::create_directories(entry);
  std::ofstream(entry / "result.json.tmp123.456") << "{\"ok\": tr";
  auto again = compile(src);
  ASSERT_TRUE(again.ok) << again.log;
  EXPECT_FALSE(again.cached);
  EXPECT_TRUE(std::filesystem::exists(entry / "result.json"));
  // A successful result whose artifact vanished is not served either.
  std::filesystem::remove(entry / "kernel.so");
  auto third = compile(src);
  ASSERT_TRUE(third.ok) << third.log;
  EXPECT_TRUE(std::filesystem::exists(third.artifact));
}

// Trusted roles include bench/include's helpers: editing one must rebuild what includes it, not
// serve the artifact built against the old text. A candidate, which cannot read them, keeps its
// key.
TEST_F(CppCompilerTest, EditingAnIncludedHelperMissesTheCache) {
  const auto inc = dir_ / "include";
  std::filesystem::create_directories(inc / "kforge");
  std::ofstream(inc / "kforge" / "helper.h")
      << "#pragma once\ninline float helper() { return 1.0f; }\n";
  const std::string src =
      "#include \"kforge_task.h\"\n#include \"kforge/helper.h\"\n"
      "extern \"C\" void kernel(const float* x, float* y) { y[0] = x[0] * helper(); }\n";
  const std::string plain =
      "#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* x, float* y) { y[0] = "
      "x[0]; }\n";
  auto compile_as = [&](Role role, const std::string& source) {
    CppCompiler c(
        {.cache_dir = dir_ / "cache", .include_dir = inc});  // a new compiler, as a new kforge run
    return c.compile({role, source, "kernel.cpp", kHeader, {}});
  };
  auto first = compile_as(Role::reference, src);
  ASSERT_TRUE(first.ok) << first.log;
  auto candidate = compile_as(Role::candidate, plain);
  ASSERT_TRUE(candidate.ok) << candidate.log;
  EXPECT_TRUE(compile_as(Role::reference, src).cached);

  std::ofstream(inc / "kforge" / "helper.h")
      << "#pragma once\ninline float helper() { return 2.0f; }\n";
  auto edited = compile_as(Role::reference, src);
  ASSERT_TRUE(edited.ok) << edited.log;
  EXPECT_FALSE(edited.cached);
  EXPECT_NE(edited.key, first.key);
  EXPECT_EQ(compile_as(Role::candidate, plain).key, candidate.key);  // helper.h is not public
}

// A candidate may include the public kforge/simd_math.h (the experts' vetted vector math, copied
// into its compile folder), and nothing else of bench/include; the header's text is in its key.
TEST_F(CppCompilerTest, CandidatesIncludeThePublicMathHeaderAndNothingElse) {
  const auto inc = dir_ / "include";
  std::filesystem::create_directories(inc / "kforge");
  std::ofstream(inc / "kforge" / "simd_math.h")
      << "#pragma once\ninline float twice(float v) { return 2 * v; }\n";
  std::ofstream(inc / "kforge" / "guard_probe.h")
      << "#pragma once\ninline float private_helper() { return 1; }\n";
  auto compile_as = [&](const std::string& source) {
    CppCompiler c({.cache_dir = dir_ / "cache", .include_dir = inc});
    return c.compile({Role::candidate, source, "kernel.cpp", kHeader, {}});
  };
  const std::string uses_math =
      "#include \"kforge_task.h\"\n#include \"kforge/simd_math.h\"\n"
      "extern \"C\" void kernel(const float* x, float* y) { y[0] = twice(x[0]); }\n";
  auto first = compile_as(uses_math);
  ASSERT_TRUE(first.ok) << first.log;
  auto other = compile_as(
      "#include \"kforge_task.h\"\n#include \"kforge/guard_probe.h\"\n"
      "extern \"C\" void kernel(const float* x, float* y) { y[0] = private_helper(); }\n");
  EXPECT_FALSE(other.ok);
  std::ofstream(inc / "kforge" / "simd_math.h")
      << "#pragma once\ninline float twice(float v) { return v + v; }\n";
  auto edited = compile_as(uses_math);
  ASSERT_TRUE(edited.ok) << edited.log;
  EXPECT_NE(edited.key, first.key);
  EXPECT_FALSE(edited.cached);
}

TEST_F(CppCompilerTest, DiagnosticsCarryFileLineColumnAndSource) {
  const std::string src =
      "#include \"kforge_task.h\"\n\nextern \"C\" void kernel(const float* x, float* y) {\n  y[0] "
      "= undeclared_thing * x[0];\n}\n";
  auto r = compile(src);
  ASSERT_FALSE(r.ok);
  ASSERT_GE(count_errors(r.diagnostics), 1);
  const Diagnostic* d = nullptr;
  for (const auto& x : r.diagnostics)
    if (x.severity == "error") d = d ? d : &x;
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->file, "kernel.cpp");
  EXPECT_EQ(d->line, 4);
  EXPECT_EQ(d->column, 10);
  EXPECT_NE(d->message.find("undeclared_thing"), std::string::npos);
  EXPECT_EQ(d->source_line, "  y[0] = undeclared_thing * x[0];");
  EXPECT_NE(format_errors(r.diagnostics).find("kernel.cpp:4:10: error:"), std::string::npos);
  // The failure is cached too.
  EXPECT_TRUE(compile(src).cached);
}

TEST_F(CppCompilerTest, BytesThatAreNotUtf8StayOutOfLogsAndDiagnostics) {
  // The compiler echoes the offending line, bytes and all; the result is cached as JSON, which
  // must be UTF-8 (nlohmann::json::dump threw, leaving the scratch folder behind).
  const std::string src =
      "#include \"kforge_task.h\"\nextern \"C\" void kernel(const float* x, float* y) { y[0] = "
      "nope_\xff\xfe; }\n";
  auto r = compile(src);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(core::first_invalid_utf8(r.log), std::string::npos) << r.log;
  ASSERT_GE(count_errors(r.diagnostics), 1);
  for (const auto& d : r.diagnostics) {
    EXPECT_EQ(core::first_invalid_utf8(d.message), std::string::npos) << d.message;
    EXPECT_EQ(core::first_invalid_utf8(d.source_line), std::string::npos) << d.source_line;
  }
  EXPECT_NO_THROW((void)nlohmann::json(r.diagnostics).dump());
  EXPECT_TRUE(
      compile(src).cached);  // the failure was published to the cache, its scratch folder with it
}

TEST_F(CppCompilerTest, WrongSignatureFailsAgainstTheHeader) {
  auto r = compile(
      "#include \"kforge_task.h\"\nextern \"C\" void kernel(const double* x, float* y) {}\n");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("kernel"), std::string::npos);
}

TEST_F(CppCompilerTest, TimeoutIsReportedNotCached) {
  auto fake = dir_ / "slow-cxx";
  std::ofstream(fake)
      << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo slow 1.0; exit 0; fi\nsleep 30\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  CppCompiler c(
      {.cxx = fake.string(), .cache_dir = dir_ / "cache", .timeout = std::chrono::seconds(1)});
  auto r = c.compile({Role::candidate, "int x;", "kernel.cpp", kHeader, {}});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.timed_out);
  EXPECT_NE(r.log.find("did not finish within 1 s"), std::string::npos);
  EXPECT_FALSE(c.compile({Role::candidate, "int x;", "kernel.cpp", kHeader, {}}).cached);
}

// Ctrl-C during a compile (the CLI's interrupt flag): the compiler is killed within a poll, not
// after its 60 s, and the outcome is not cached (it said nothing of the source).
TEST_F(CppCompilerTest, ACancelledCompileEndsAtOnceAndIsNotCached) {
  auto fake = dir_ / "slow-cxx";
  std::ofstream(fake)
      << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo slow 1.0; exit 0; fi\nsleep 30\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  std::atomic<bool> cancel{false};
  CppCompiler c({.cxx = fake.string(), .cache_dir = dir_ / "cache", .cancel = &cancel});
  std::thread ctrl_c([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  auto r = c.compile({Role::candidate, "int x;", "kernel.cpp", kHeader, {}});
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ctrl_c.join();
  EXPECT_FALSE(r.ok);
  EXPECT_LT(took, 2.0);
  EXPECT_FALSE(c.cached({Role::candidate, "int x;", "kernel.cpp", kHeader, {}}));
}

// A file under /proc/PID, "" once the process has gone. Not through std::istreambuf_iterator: a
// read of a process that exits meanwhile fails (ESRCH), and the iterator throws that as an
// exception ("basic_filebuf::underflow error reading the file: No such process", seen in a
// suite run); core::read_text ends the read instead.
std::string proc_file(const std::filesystem::path& path) {
  auto text = core::read_text(path);
  return text ? *text : "";
}

// The parent of process `pid`, from /proc/PID/stat (0 once it has gone).
pid_t parent_of(pid_t pid) {
  const std::string stat = proc_file("/proc/" + std::to_string(pid) + "/stat");
  auto after_name = stat.rfind(')');  // the name may hold spaces and parentheses
  if (after_name == std::string::npos) return 0;
  char state = 0;
  int ppid = 0;
  return std::sscanf(stat.c_str() + after_name + 1, " %c %d", &state, &ppid) == 2 ? ppid : 0;
}

// The processes running `cxx` with `arg` among its arguments now (read from /proc). A shell
// running `cxx` forks before it execs a command (the fake's `sleep`): for that instant the child
// shows the same arguments, so a process whose parent is also listed is not another compiler.
std::set<pid_t> processes_with(const std::string& cxx, const std::string& arg) {
  std::set<pid_t> out;
  // Processes come and go while /proc is read: the error_code forms never throw.
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
       it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = proc_file(it->path() / "cmdline");
    if (cmdline.find(cxx) != std::string::npos && cmdline.find(arg) != std::string::npos)
      out.insert(static_cast<pid_t>(std::stol(name)));
  }
  const std::set<pid_t> listed = out;
  std::erase_if(out, [&](pid_t pid) { return listed.contains(parent_of(pid)); });
  return out;
}

// Two baselines compiled at once (two evaluations, a search's jobs) need the precompiled ATen
// header: one compiler makes it, the other waits and uses it (precompiling takes a minute of
// CPU). A fake compiler takes a second to "precompile"; the header is precompiled by one process.
TEST_F(CppCompilerTest, ThePrecompiledHeaderIsMadeOnceForCompilesAtOnce) {
  auto fake = dir_ / "pch-cxx";
  std::ofstream(fake) << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo pch 1.0; exit 0; fi\n"
                         "case \"$*\" in *c++-header*) sleep 1; echo pch > kforge_torch.h.gch; "
                         "exit 0;; esac\necho \"compiled with $*\"; exit 1\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  std::set<pid_t> precompilers;
  std::atomic<int> done = 0;
  std::vector<CompileResult> results(2);
  std::vector<std::jthread> compiles;  // joined on every way out, a failed assertion's too
  for (int i = 0; i < 2; ++i)
    compiles.emplace_back([&, i] {
      CppCompiler c({.cxx = fake.string(), .cache_dir = dir_ / "cache"});
      results[i] = c.compile(
          {Role::baseline, "int x" + std::to_string(i) + ";", "baseline.cpp", kHeader, {}});
      ++done;
    });
  while (done < 2) {
    auto now = processes_with(fake.string(), "c++-header");
    precompilers.insert(now.begin(), now.end());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& t : compiles) t.join();
  EXPECT_EQ(precompilers.size(), 1u) << "the header was precompiled by more than one process";
  for (const auto& r : results)
    EXPECT_NE(r.log.find("-include " + (dir_ / "cache" / "pch").string()), std::string::npos)
        << r.log;
}

TEST(Diagnostics, ParsesClangStyleOutput) {
  std::string out =
      "kernel.cpp:3:5: error: use of undeclared identifier 'q'\n    q = 1;\n    ^\n1 error "
      "generated.\n";
  auto d = parse_diagnostics(out, {{"kernel.cpp", "a\nb\n    q = 1;\n"}});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].line, 3);
  EXPECT_EQ(d[0].severity, "error");
  EXPECT_EQ(d[0].source_line, "    q = 1;");
}

}  // namespace kforge::toolchain
