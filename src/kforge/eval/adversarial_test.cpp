// The adversarial corpus (tests/adversarial/*.cpp): hostile kernels against the 12p_rmsnorm task
// at the ci size. Each test names the defence that catches its kernel; remove the defence and the
// test fails. A correct kernel through the same fixture is the control.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "kforge/core/fs.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/eval/ci_task_fixture.h"
#include "kforge/eval/eval_test_util.h"
#include "kforge/eval/evaluate.h"
#include "kforge/toolchain/cpp_compiler.h"

namespace kforge::eval {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

class Adversarial : public CiTaskTest {
 protected:
  static void SetUpTestSuite() { open_task("adversarial", "12p_rmsnorm"); }
  static void TearDownTestSuite() { close_task(); }

  // Check only, with short limits.
  static EvalOptions checked() {
    EvalOptions o;
    o.time = false;
    o.call_timeout_s = 2;
    return o;
  }
  // Checked, then timed against the reference (no libtorch needed).
  static EvalOptions timed() {
    EvalOptions o;
    o.partner = EvalOptions::Partner::reference;
    o.time_budget_s = 0.3;
    o.call_timeout_s = 5;
    return o;
  }

  Evaluation run(const std::string& name, const EvalOptions& options) {
    auto dir = core::source_dir() / "tests" / "adversarial";
    auto prelude = core::read_text(dir / "prelude.h");
    auto body = core::read_text(dir / name);
    EXPECT_TRUE(prelude.ok() && body.ok()) << name;
    return evaluate(*ctx_, *prelude + *body, name, options);
  }

  static std::string correct_kernel() {
    auto prelude = core::read_text(core::source_dir() / "tests" / "adversarial" / "prelude.h");
    return *prelude +
           "extern \"C\" void kernel(const float* x, const float* s, float* y) { "
           "rmsnorm_correct(x, s, y); }\n";
  }

  // The pids of `parent`'s children, from /proc/<parent>/task/*/children.
  static std::vector<int> children_of(int parent) {
    std::vector<int> pids;
    std::error_code ec;
    for (const auto& t :
         std::filesystem::directory_iterator(fmt::format("/proc/{}/task", parent), ec)) {
      auto text = core::read_text(t.path() / "children");
      if (!text) continue;
      std::istringstream in(*text);
      for (int pid; in >> pid;) pids.push_back(pid);
    }
    return pids;
  }

  // Sets an environment variable for a scope, and puts back what was there.
  struct ScopedEnv {
    std::string name;
    std::optional<std::string> old;
    ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
      if (const char* v = std::getenv(name.c_str())) old = v;
      setenv(name.c_str(), value, 1);
    }
    ~ScopedEnv() {
      if (old)
        setenv(name.c_str(), old->c_str(), 1);
      else
        unsetenv(name.c_str());
    }
  };

  static std::string marker(const char* what) {
    return std::string("/tmp/kforge-adversarial-") + what + "-marker";
  }
};

// --- The corpus: each kernel in tests/adversarial/ states what it must get in its first lines,
// as LLVM's lit reads `// RUN:` and `// CHECK:`. One directive a line, `// NAME: VALUE`:
//   expect: VERDICT [| VERDICT]     the verdict (one of them) (required)
//   mode: checked | timed           check only (default), or checked then timed against the
//                                   reference
//   reason: TEXT [| TEXT]           the reason contains one of them (every `reason:` line must
//                                   hold)
//   reason-lacks: TEXT              the reason does not contain it
//   output-has / output-lacks: TEXT what the kernel printed
//   no-file: PATH                   removed before, must not exist after (a second later)
//   timeout: S                      the call timeout
//   min-pairs: N / warmup: S        the timing's pairs and warm-up (at least 2 pairs)
//   audit-every: N / sample-lines: N  one pair in N compared in full, N random lines of the
//                                   others (see output_sample.h)
//   max-seconds: S                  the whole evaluation took at most S seconds
//   min-kernel-ms: MS / max-speedup: X  the timed figures
//   explicit: WHY                   run by a test of its own below (it needs a set-up)

struct CorpusKernel {
  std::string file;
  std::multimap<std::string, std::string> directives;
  std::vector<std::string> all(const std::string& key) const {
    std::vector<std::string> v;
    for (auto [it, end] = directives.equal_range(key); it != end; ++it) v.push_back(it->second);
    return v;
  }
  std::optional<std::string> one(const std::string& key) const {
    auto v = all(key);
    return v.empty() ? std::nullopt : std::optional(v.front());
  }
};

std::vector<std::string> alternatives(const std::string& value) {
  std::vector<std::string> out;
  std::istringstream in(value);
  for (std::string part; std::getline(in, part, '|');) {
    const auto b = part.find_first_not_of(' '), e = part.find_last_not_of(' ');
    if (b != std::string::npos) out.push_back(part.substr(b, e - b + 1));
  }
  return out;
}

// Every kernel of the folder with its directives (the leading `// NAME: VALUE` lines).
std::vector<CorpusKernel> corpus() {
  std::vector<CorpusKernel> kernels;
  static const std::regex directive(R"(^// ([a-z-]+): (.*)$)");
  for (const auto& entry :
       std::filesystem::directory_iterator(core::source_dir() / "tests" / "adversarial")) {
    if (entry.path().extension() != ".cpp") continue;
    CorpusKernel k{entry.path().filename().string(), {}};
    std::ifstream in(entry.path());
    std::smatch m;
    for (std::string line; std::getline(in, line) && std::regex_match(line, m, directive);)
      k.directives.emplace(m[1], m[2]);
    // A kernel that needs a set-up of its own (`explicit:`) is run by its own test below.
    if (!k.directives.empty() && !k.directives.count("explicit")) kernels.push_back(std::move(k));
  }
  std::sort(kernels.begin(), kernels.end(), [](auto& a, auto& b) { return a.file < b.file; });
  return kernels;
}

class Corpus : public Adversarial, public ::testing::WithParamInterface<CorpusKernel> {};

TEST_P(Corpus, GetsTheVerdictItStates) {
  const CorpusKernel& k = GetParam();
  const auto expect = k.one("expect");
  ASSERT_TRUE(expect) << k.file << ": no `// expect:` line";
  auto o = k.one("mode") == "timed" ? timed() : checked();
  if (auto t = k.one("timeout")) o.call_timeout_s = std::stod(*t);
  if (auto n = k.one("min-pairs")) o.min_pairs = std::stoi(*n);
  if (auto w = k.one("warmup")) o.warmup_s = std::stod(*w);
  if (auto n = k.one("audit-every")) o.audit_every = std::stoi(*n);
  if (auto n = k.one("sample-lines")) o.sample_lines = std::stoul(*n);
  for (const auto& f : k.all("no-file")) std::filesystem::remove(f);
  auto e = run(k.file, o);
  const auto verdicts = alternatives(*expect);
  EXPECT_THAT(verdicts, ::testing::Contains(std::string(verdict_name(e.verdict))))
      << k.file << ": " << e.reason;
  auto contains_one = [](const std::string& text, const std::string& alts) {
    for (const auto& a : alternatives(alts))
      if (text.find(a) != std::string::npos) return true;
    return false;
  };
  for (const auto& r : k.all("reason")) {
    EXPECT_TRUE(contains_one(e.reason, r)) << r << "\n" << e.reason;
  }
  for (const auto& r : k.all("reason-lacks")) {
    EXPECT_THAT(e.reason, Not(HasSubstr(r)));
  }
  for (const auto& t : k.all("output-has")) {
    EXPECT_THAT(e.kernel_output, HasSubstr(t));
  }
  for (const auto& t : k.all("output-lacks")) {
    EXPECT_THAT(e.kernel_output, Not(HasSubstr(t)));
  }
  if (auto s = k.one("max-seconds")) {
    EXPECT_LT(e.phases.total_s, std::stod(*s));
  }
  if (auto ms = k.one("min-kernel-ms")) {
    ASSERT_TRUE(e.candidate) << e.reason;
    EXPECT_GE(e.candidate->median_ms, std::stod(*ms));
  }
  if (auto x = k.one("max-speedup")) {
    EXPECT_FALSE(e.speedup && e.speedup->median > std::stod(*x)) << "a forged figure was believed";
  }
  if (!k.all("no-file").empty()) sleep(1);  // a child that escaped would write after a moment
  for (const auto& f : k.all("no-file")) {
    EXPECT_FALSE(std::filesystem::exists(f)) << f;
  }
}

INSTANTIATE_TEST_SUITE_P(Adversarial, Corpus, ::testing::ValuesIn(corpus()), [](const auto& info) {
  std::string name = info.param.file.substr(0, info.param.file.find('.'));
  std::erase_if(name, [](char c) { return !std::isalnum(c); });
  return name;
});

// A kernel of the folder without directives would be silently skipped.
TEST(AdversarialCorpus, EveryKernelStatesItsVerdict) {
  for (const auto& entry :
       std::filesystem::directory_iterator(core::source_dir() / "tests" / "adversarial")) {
    const auto name = entry.path().filename().string();
    if (entry.path().extension() != ".cpp" || name == "checks_state.cpp") continue;
    std::ifstream in(entry.path());
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first.rfind("// expect: ", 0), 0u) << name << " starts: " << first;
  }
}

TEST_F(Adversarial, ControlCorrectKernelPassesAndIsTimed) {
  auto dir = core::source_dir() / "tests" / "adversarial";
  auto prelude = core::read_text(dir / "prelude.h");
  auto e = evaluate(*ctx_,
                    *prelude +
                        "extern \"C\" void kernel(const float* x, const float* s, float* y) { "
                        "rmsnorm_correct(x, s, y); }\n",
                    "control.cpp", timed());
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_TRUE(e.candidate && e.speedup);
  EXPECT_GE(e.candidate->samples, 10);
  EXPECT_EQ(e.check_ms.size(), 3u);
  EXPECT_GT(e.landlock_abi, 0)
      << "Landlock is not active: the filesystem defences are missing on this machine";
}

// --- The judge holds nothing the kernel can reach (each hole an older runner had) ---

TEST_F(Adversarial, NoDescriptorOfKforgeIsInherited) {
  // A descriptor kforge's process holds without close-on-exec, as a library might leave one.
  auto secret = *state_ / "inherited.txt";
  ASSERT_TRUE(core::write_atomic(secret, "KFORGE-INHERITED-MARKER").ok());
  int fd = ::open(secret.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto e = run("reads_inherited_fds.cpp", checked());
  ::close(fd);
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.kernel_output, HasSubstr("inherited_fds=0"));
  EXPECT_THAT(e.kernel_output, Not(HasSubstr("KFORGE-INHERITED-MARKER")));
}

TEST_F(Adversarial, StateLeftBehindReachesNoOtherCall) {
  auto dir = core::source_dir() / "tests" / "adversarial";
  auto prelude = core::read_text(dir / "prelude.h");
  auto partner = core::read_text(dir / "checks_state.cpp");
  ASSERT_TRUE(prelude.ok() && partner.ok());
  auto o = timed();
  o.against_source = *prelude + *partner;
  o.against_name = "checks_state.cpp";
  o.against_role = toolchain::Role::expert;  // trusted: loaded like a baseline, in its own process
  auto e = run("leaves_state.cpp", o);
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_TRUE(e.speedup);
}

TEST_F(Adversarial, ConstructorCannotReadSecretsOrCache) {
  // Make sure the secrets and the reference cache exist before the kernel looks for them.
  (void)run("nothing_written.cpp", checked());
  ASSERT_TRUE(std::filesystem::exists(*state_ / "secrets" / "12p_rmsnorm.seeds"));
  auto e = run("constructor_reads_secrets.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.kernel_output, HasSubstr("secrets_opened=0 cache_opened=0"));
}

TEST_F(Adversarial, OutputThatIsNotUtf8IsRepairedNotFatal) {
  // Bytes that are not UTF-8, then a euro sign cut after its second byte: every JSON writer threw.
  auto dir = core::source_dir() / "tests" / "adversarial";
  auto prelude = core::read_text(dir / "prelude.h");
  ASSERT_TRUE(prelude.ok());
  auto e = evaluate(*ctx_,
                    *prelude +
                        "#include <cstdio>\nextern \"C\" void kernel(const float* x, const float* "
                        "s, float* y) {\n"
                        "  std::fputs(\"bytes \\xff\\xfe cut \\xe2\\x82\", stdout);\n  "
                        "std::fflush(stdout);\n  rmsnorm_correct(x, s, y);\n}\n",
                    "prints_bytes.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.kernel_output, HasSubstr("bytes \xEF\xBF\xBD\xEF\xBF\xBD cut \xEF\xBF\xBD"));
  std::string json;
  EXPECT_NO_THROW(json = to_json(e).dump());
  EXPECT_THAT(json, HasSubstr("bytes \xEF\xBF\xBD\xEF\xBF\xBD cut"));
}

// --- Second round: nothing outside the timed call counts, nothing reaches another process ---

// Each process maps only its own output sets: read from outside, while both are alive.
TEST_F(Adversarial, OutputPagesAreNeverShared) {
  auto o = timed();
  std::vector<std::set<std::string>> seen;  // per child process: its kforge-outputs inodes
  o.progress = [&](std::string_view m) {
    if (m.rfind("timing", 0) != 0) return;
    for (int child : children_of(::getpid())) {
      auto maps = core::read_text(fmt::format("/proc/{}/maps", child));
      if (!maps) continue;
      std::set<std::string> inodes;
      std::istringstream in(*maps);
      for (std::string line; std::getline(in, line);)
        if (line.find("kforge-outputs") != std::string::npos) {
          std::istringstream fields(line);
          std::string range, perms, offset, dev, inode;
          fields >> range >> perms >> offset >> dev >> inode;
          inodes.insert(inode);
        }
      if (!inodes.empty()) seen.push_back(inodes);
    }
  };
  auto e = evaluate(*ctx_, correct_kernel(), "control.cpp", o);
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  ASSERT_EQ(seen.size(), 2u) << "the kernel's process and its partner's";
  EXPECT_EQ(seen[0].size(), 2u);
  EXPECT_EQ(seen[1].size(), 2u);
  for (const auto& inode : seen[0]) EXPECT_FALSE(seen[1].count(inode)) << inode;
}

// One call that names a process, per case: each rule of the filter removed alone fails one case.
class TouchesAnotherProcess : public Adversarial,
                              public ::testing::WithParamInterface<const char*> {};

TEST_P(TouchesAnotherProcess, IsRefusedAndNamed) {
  static const std::vector<std::string> calls = {"sched_setaffinity",
                                                 "sched_getaffinity",
                                                 "sched_getparam",
                                                 "sched_getscheduler",
                                                 "prlimit64",
                                                 "tgkill",
                                                 "kill",
                                                 "setpriority",
                                                 "sched_setscheduler",
                                                 "pidfd_open",
                                                 "ptrace",
                                                 "process_vm_readv",
                                                 "prlimit64"};
  const std::string call = GetParam();
  const auto index = std::string(call) == "prlimit64 (set its own)"
                         ? 12
                         : std::find(calls.begin(), calls.end(), call) - calls.begin();
  auto dir = core::source_dir() / "tests" / "adversarial";
  auto prelude = core::read_text(dir / "prelude.h");
  auto body = core::read_text(dir / "touches_other_process.cpp");
  ASSERT_TRUE(prelude.ok() && body.ok());
  auto e = evaluate(*ctx_, fmt::format("#define TOUCH {}\n", index) + *prelude + *body,
                    "touches_other_process.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::sandbox_violation) << call << ": " << e.reason;
  EXPECT_THAT(e.reason, HasSubstr(call.substr(0, call.find(' ')))) << call;
  EXPECT_THAT(e.kernel_output, Not(HasSubstr("touched="))) << call;
}

INSTANTIATE_TEST_SUITE_P(EachCall, TouchesAnotherProcess,
                         ::testing::Values("sched_setaffinity", "sched_getaffinity",
                                           "sched_getparam", "sched_getscheduler", "prlimit64",
                                           "tgkill", "kill", "setpriority", "sched_setscheduler",
                                           "pidfd_open", "ptrace", "process_vm_readv",
                                           "prlimit64 (set its own)"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase_if(name, [](char c) { return !std::isalnum(c); });
                           return name;
                         });

// Without Landlock nothing untrusted is compiled or run, unless the user asks; then every verdict
// says the file wall was missing.
TEST_F(Adversarial, NoLandlockRefusesUntrustedCodeUnlessAsked) {
  ScopedEnv no_landlock("KFORGE_LANDLOCK_ABI", "0");
  {
    auto e = evaluate(*ctx_, correct_kernel(), "control.cpp", checked());
    EXPECT_EQ(e.verdict, Verdict::runtime_error);
    EXPECT_THAT(e.reason, HasSubstr("no Landlock"));
    EXPECT_THAT(e.reason, HasSubstr("KFORGE_ALLOW_NO_LANDLOCK=1"));
    EXPECT_FALSE(e.compile.ok) << "nothing was compiled";
  }
  ScopedEnv allowed("KFORGE_ALLOW_NO_LANDLOCK", "1");
  auto e = evaluate(*ctx_, correct_kernel(), "control.cpp", checked());
  EXPECT_EQ(e.verdict, Verdict::correct) << e.reason;
  EXPECT_THAT(e.walls, HasSubstr("NO Landlock"));
  EXPECT_THAT(to_json(e)["sandbox"]["walls"].get<std::string>(), HasSubstr("NO Landlock"));
}

}  // namespace
}  // namespace kforge::eval
