// Bad input on the command line gets a clear usage error (exit 2) and nothing is written: an
// unknown task id or size for `bench` (with the closest known one suggested), an id that is not
// found for `show`, a folder or a binary given as the kernel to `eval`. A kernel whose name
// starts with '-' is a file, not an option, after `--` or as ./-x.cpp. A mistyped command or
// option, for every command, is named with the closest real one.
#include <gmock/gmock.h>

#include <sstream>

#include "kforge/modes/cli_test_util.h"

namespace kforge::modes {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class BadInputTest : public CliScenario {
 protected:
  // A usage error: exit status 2, the message on stderr, no state folder created.
  void expect_usage_error(const core::ProcessResult& r, const std::string& fragment) {
    EXPECT_TRUE(r.exited && r.exit_code == 2) << r.describe() << "\n" << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(fragment));
    EXPECT_FALSE(std::filesystem::exists(dir_ / "state")) << "something was written";
  }
};

// The commands `kforge --help` lists, read from its "Subcommands:" section.
std::vector<std::string> listed_commands(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream in(help.substr(help.find("Subcommands:")));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line) && line.rfind("  ", 0) == 0)
    out.push_back(line.substr(2, line.find(' ', 2) - 2));
  return out;
}

}  // namespace

TEST_F(BadInputTest, MistypedCommandsSuggestTheClosest) {
  expect_usage_error(run({"evl", "12p_rmsnorm", "k.cpp"}),
                     "kforge: unknown command 'evl' (did you mean 'eval'?)");
  expect_usage_error(run({"llm", "pnig"}),
                     "kforge llm: unknown command 'pnig' (did you mean 'ping'?)");
  expect_usage_error(run({"frobnicate"}),
                     "kforge: unknown command 'frobnicate' (see `kforge --help`)");
  // Every command, each with one letter dropped.
  auto help = run({"--help"});
  const auto commands = listed_commands(help.out);
  ASSERT_GE(commands.size(), 13u) << help.out;
  for (const auto& name : commands) {
    std::string typo = name;
    typo.erase(typo.size() >= 3 ? typo.size() - 2 : 0, 1);
    expect_usage_error(run({typo}),
                       "kforge: unknown command '" + typo + "' (did you mean '" + name + "'?)");
  }
}

TEST_F(BadInputTest, MistypedOptionsSuggestTheClosest) {
  expect_usage_error(run({"eval", "--jsn", "x"}),
                     "kforge eval: unknown option '--jsn' (did you mean '--json'?)");
  expect_usage_error(run({"eval", "12p_rmsnorm", "k.cpp", "--sise=ci"}),
                     "kforge eval: unknown option '--sise' (did you mean '--size'?)");
  expect_usage_error(run({"llm", "ping", "--jsno"}),
                     "kforge llm ping: unknown option '--jsno' (did you mean '--json'?)");
  expect_usage_error(run({"list", "--quite"}),
                     "kforge list: unknown option '--quite' (did you mean '--quiet'?)");
  // Every command that takes --json, with it misspelt.
  for (const auto& name : listed_commands(run({"--help"}).out)) {
    if (run({name, "--help"}).out.find("--json") == std::string::npos) continue;
    expect_usage_error(run({name, "--jsn"}),
                       "kforge " + name + ": unknown option '--jsn' (did you mean '--json'?)");
  }
}

TEST_F(BadInputTest, BenchRefusesUnknownTasksAndSizes) {
  expect_usage_error(run({"bench", "--tasks", "12p_rmsnorm,foo", "--quiet"}),
                     "--tasks: no task 'foo'");
  expect_usage_error(run({"bench", "--tasks", "12p_rmsnrm", "--quiet"}),
                     "did you mean '12p_rmsnorm'?");
  expect_usage_error(run({"bench", "--size", "small", "--quiet"}),
                     "--size: no selected task has a size 'small' (they have: ci, cpu, full)");
  expect_usage_error(run({"bench", "--tasks", "12p_rmsnorm", "--size", "cpuu", "--quiet"}),
                     "did you mean 'cpu'?");
}

TEST_F(BadInputTest, UnknownTaskIdSuggestsTheClosest) {
  expect_usage_error(run({"show", "rmsnorm"}), "did you mean '12p_rmsnorm'?");
  expect_usage_error(run({"eval", "rmsnorm", "k.cpp"}), "did you mean '12p_rmsnorm'?");
}

TEST_F(BadInputTest, EvalRefusesAFolderOrABinaryAsTheKernel) {
  std::filesystem::create_directories(dir_ / "kernels");
  expect_usage_error(run({"eval", "12p_rmsnorm", "kernels"}),
                     "kernels: is a folder, not a source file");
  std::ofstream(dir_ / "kernel.o", std::ios::binary) << std::string(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\xff\xfe",
      12);
  expect_usage_error(run({"eval", "12p_rmsnorm", "kernel.o"}), "kernel.o: a binary file");
  expect_usage_error(run({"eval", "12p_rmsnorm", "missing.cpp"}), "missing.cpp: no such file");
  expect_usage_error(run({"eval", "12p_rmsnorm", "kernel.o", "--against", "kernels"}),
                     "binary file");
}

TEST_F(BadInputTest, AKernelNamedWithALeadingDashIsAFile) {
  std::ofstream(dir_ / "-x.cpp") << "#include \"kforge_task.h\"\n#include <cmath>\n" << rms::kFast;
  auto dotted = run({"eval", "12p_rmsnorm", "./-x.cpp", "--size", "ci", "--no-time"});
  EXPECT_EQ(dotted.exit_code, 0) << dotted.out << dotted.err;
  EXPECT_THAT(dotted.out, HasSubstr("correct"));
  auto dashed = run({"eval", "12p_rmsnorm", "--size", "ci", "--no-time", "--", "-x.cpp"});
  EXPECT_EQ(dashed.exit_code, 0) << dashed.out << dashed.err;
}

}  // namespace kforge::modes

namespace kforge::modes {
namespace {

// A peer partners a kernel only where its target can pair it: the cpp target on the CPU, the cuda
// and pallas targets on the GPU (and the pallas target beside its interpreter on a CPU); a partner
// the target cannot pair (the C++ reference with a CUDA kernel) is refused before anything is
// built.
TEST_F(BadInputTest, APartnerTheTargetCannotPairIsRefused) {
  const auto kernel = core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / "expert.cu";
  expect_usage_error(
      run({"eval", "12p_rmsnorm", kernel.string(), "--target", "cuda", "--partner", "reference"}),
      "--partner reference is the cpp target's");
}

// The pallas target pairs its kernels with the peers: here, on a CPU, the torch peer beside the
// kernel in interpret mode (its check holds; its times are an interpreter's, quoted as such).
TEST_F(BadInputTest, PeersPairPallasKernels) {
  const auto pallas =
      core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / "expert_pallas.py";
  auto r = run({"eval", "12p_rmsnorm", pallas.string(), "--target", "pallas", "--role", "expert",
                "--partner", "torch", "--size", "ci", "--budget", "0.3"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("correct"));
  EXPECT_THAT(r.out + r.err, HasSubstr("torch"));
  EXPECT_THAT(r.err, Not(HasSubstr("cpp target's")));
}

TEST_F(BadInputTest, PeersPairCudaKernelsOnTheGpu) {
  const auto kernel = core::source_dir() / "bench" / "jaxbench" / "12p_rmsnorm" / "expert.cu";
  for (auto args :
       {std::vector<std::string>{"eval", "12p_rmsnorm", kernel.string(), "--target", "cuda",
                                 "--role", "expert", "--partner", "xla", "--size", "ci"},
        std::vector<std::string>{"bench", "--tasks", "12p_rmsnorm", "--target", "cuda", "--impl",
                                 "expert", "--size", "ci", "--peers", "--peer-set",
                                 "torch-compile"}}) {
    auto r = run(args);
    EXPECT_FALSE(r.exited && r.exit_code == 2) << r.out << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("cpp target's")));
    // Judged by the cuda judge: here, without a GPU, a no_device verdict.
    if (!std::filesystem::exists("/dev/nvidiactl")) {
      EXPECT_THAT(r.out + r.err, HasSubstr("no_device"));
    }
  }
}

}  // namespace
}  // namespace kforge::modes
