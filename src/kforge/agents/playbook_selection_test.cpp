// Which playbook sections the planner's request carries, for real suite tasks and the shipped
// knowledge/: proves that a section written for other vectors (an AVX2 fallback on an AVX-512
// machine, AVX-512 code on an AVX2 one) or for the other bound (streaming stores for a
// compute-bound task, register tiles for a memory-bound one) is not shown, that the bound is the
// task's at its size on this machine, that no section comes twice in a request, and that a
// section the planner was sent by an earlier request of the loop is named in a line, not repeated.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include "kforge/agents/agents.h"
#include "kforge/agents/requests_test_util.h"
#include "kforge/core/paths.h"
#include "kforge/core/task_loader.h"
#include "kforge/toolchain/fake_compiler.h"

namespace kforge::agents {
namespace {

using fakes::count;

// Two cores of an AVX-512 server: balance 384 / 20 = 19.2 FLOP/byte.
eval::MachineProfile avx512_server() {
  eval::MachineProfile m;
  m.cpu_model = "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz";
  m.isa = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl"};
  m.logical_cpus = 2;
  m.physical_cores = 1;
  m.fma_gflops_1 = m.fma_gflops_all = 384;
  m.triad_gbps_1 = m.triad_gbps_all = 20;
  return m;
}

// An AVX2 desktop: balance 150 / 20 = 7.5 FLOP/byte.
eval::MachineProfile avx2_desktop() {
  eval::MachineProfile m = avx512_server();
  m.cpu_model = "AMD Ryzen 7 5800X 8-Core Processor";
  m.isa = {"sse4_2", "avx", "avx2", "fma"};
  m.fma_gflops_1 = m.fma_gflops_all = 150;
  return m;
}

const char* kVectorize =
    "Vectorize with AVX2 and AVX-512 intrinsics: fmadd, masked loads for the tail, horizontal "
    "sums once per row";
const char* kMemory =
    "Memory bandwidth: minimise passes over memory, streaming stores, threads saturate DRAM";
const char* kBlocking = "Register tile, packing of A and B, cache blocks for L1 and L2";

// Whether `request` carries the section named `name` ("title — heading") in full.
bool has_section(const std::string& request, const std::string& name) {
  return count(request, "### " + name + "\n") > 0;
}

class PlaybookSelection : public ::testing::Test {
 protected:
  void SetUp() override {
    auto playbook = KnowledgeIndex::open(core::source_dir() / "knowledge");
    ASSERT_TRUE(playbook) << playbook.error().message;
    playbook_ = std::make_unique<KnowledgeIndex>(std::move(*playbook));
    auto session = fakes::recording_session(
        [seen = seen_] { return std::make_unique<fakes::RecordingClient>(seen, "", "memory"); });
    ASSERT_TRUE(session) << session.error().message;
    session_ = std::move(*session);
    env_ = AgentEnv{session_.get(), &prompts_, playbook_.get()};
  }

  // A loop on `id` at `size` on `machine`, its task kept alive by the fixture.
  LoopState loop(const std::string& id, const std::string& size,
                 const eval::MachineProfile& machine) {
    auto spec = core::load_task(core::source_dir() / "bench" / "jaxbench" / id);
    EXPECT_TRUE(spec) << spec.error().message;
    specs_.push_back(std::make_unique<core::TaskSpec>(std::move(*spec)));
    auto ctx = eval::TaskContext::create(*specs_.back(), size, compiler_,
                                         std::filesystem::temp_directory_path());
    EXPECT_TRUE(ctx) << ctx.error().message;
    contexts_.push_back(std::make_unique<eval::TaskContext>(std::move(*ctx)));
    machines_.push_back(std::make_unique<eval::MachineProfile>(machine));
    LoopState s;
    s.task = contexts_.back().get();
    s.machine = machines_.back().get();
    s.threads = 2;
    return s;
  }

  // The planner's request for `s` with `strategy`.
  std::string planner_request(const LoopState& s, const std::string& strategy) {
    seen_->clear();
    EXPECT_TRUE(plan(env_, s, strategy));
    return fakes::first_request(*seen_, "planner");
  }

  // The shipped sections with `bound`, by name.
  std::vector<std::string> sections_bound(const std::string& bound) const {
    std::vector<std::string> out;
    for (const auto& sec : playbook_->sections())
      if (sec.bound == bound) out.push_back(sec.name());
    return out;
  }

  toolchain::FakeCompiler compiler_{"g++ (test) 13.1.0", {"-O3"}};
  std::unique_ptr<KnowledgeIndex> playbook_;
  std::vector<std::unique_ptr<core::TaskSpec>> specs_;
  std::vector<std::unique_ptr<eval::TaskContext>> contexts_;
  std::vector<std::unique_ptr<eval::MachineProfile>> machines_;
  PromptLibrary prompts_;
  fakes::Requests seen_ = std::make_shared<std::vector<llm::ChatRequest>>();
  std::unique_ptr<llm::LlmSession> session_;
  AgentEnv env_;
};

const char* kAvx2 =
    "Vectorization with AVX2 and AVX-512 — AVX2 + FMA intrinsics (8 floats per register, 16 "
    "registers)";
const char* kAvx512 =
    "Vectorization with AVX2 and AVX-512 — AVX-512 (16 floats per register, 32 registers, mask "
    "registers)";

TEST_F(PlaybookSelection, TheFitIsTheTasksBoundAtItsSizeAndTheMachinesWidestVectors) {
  auto gemm = playbook_fit(loop("8p_gemm", "cpu", avx512_server()));
  EXPECT_EQ(gemm.bound, "compute");  // 224 FLOP/byte against 19.2
  EXPECT_EQ(gemm.isa, "avx512");
  // The same GEMM at the ci size (11 FLOP/byte) is memory-bound here, compute-bound at 7.5.
  EXPECT_EQ(playbook_fit(loop("8p_gemm", "ci", avx512_server())).bound, "memory");
  EXPECT_EQ(playbook_fit(loop("8p_gemm", "ci", avx2_desktop())).bound, "compute");
  auto norm = playbook_fit(loop("12p_rmsnorm", "cpu", avx2_desktop()));
  EXPECT_EQ(norm.bound, "memory");  // 0.6 FLOP/byte
  EXPECT_EQ(norm.isa, "avx2");
  // No peaks, no bound; no flags read, no ISA: nothing is filtered on either.
  eval::MachineProfile unknown = avx2_desktop();
  unknown.fma_gflops_1 = unknown.fma_gflops_all = 0;
  unknown.isa.clear();
  auto none = playbook_fit(loop("12p_rmsnorm", "cpu", unknown));
  EXPECT_EQ(none.bound, "");
  EXPECT_EQ(none.isa, "");
}

TEST_F(PlaybookSelection, EachMachineGetsTheSectionForItsOwnVectorsOnly) {
  // Without a known ISA both vector sections are what the query ranks first.
  eval::MachineProfile unknown = avx512_server();
  unknown.isa.clear();
  const auto both = planner_request(loop("13p_cross_entropy", "cpu", unknown), kVectorize);
  ASSERT_TRUE(has_section(both, kAvx2));
  ASSERT_TRUE(has_section(both, kAvx512));
  for (const char* id : {"13p_cross_entropy", "12p_rmsnorm", "8p_gemm"}) {
    SCOPED_TRACE(id);
    const auto wide = planner_request(loop(id, "cpu", avx512_server()), kVectorize);
    EXPECT_FALSE(has_section(wide, kAvx2));
    EXPECT_TRUE(has_section(wide, kAvx512));
    const auto narrow = planner_request(loop(id, "cpu", avx2_desktop()), kVectorize);
    EXPECT_FALSE(has_section(narrow, kAvx512));
    EXPECT_TRUE(has_section(narrow, kAvx2));
  }
}

TEST_F(PlaybookSelection, AComputeBoundTaskGetsNoMemoryBoundSection) {
  const auto memory = sections_bound("memory");
  ASSERT_GE(memory.size(), 4u);
  // A cross-entropy (a GEMM with a softmax: 64 FLOP/byte at the cpu size) shares the norm and
  // softmax tags of the memory-bound sections; with no peaks they are shown.
  eval::MachineProfile no_peaks = avx512_server();
  no_peaks.fma_gflops_1 = no_peaks.fma_gflops_all = 0;
  const auto unbound = planner_request(loop("13p_cross_entropy", "cpu", no_peaks), kMemory);
  int shown = 0;
  for (const auto& h : memory) shown += has_section(unbound, h);
  ASSERT_GT(shown, 0);
  for (const char* id : {"13p_cross_entropy", "29k_matmul_swish_sum_groupnorm", "8p_gemm"}) {
    SCOPED_TRACE(id);
    const auto request = planner_request(loop(id, "cpu", avx512_server()), kMemory);
    for (const auto& h : memory) EXPECT_FALSE(has_section(request, h)) << h;
  }
}

TEST_F(PlaybookSelection, AMemoryBoundTaskGetsNoComputeBoundSection) {
  const auto compute = sections_bound("compute");
  ASSERT_GE(compute.size(), 3u);
  auto shown = [&](const std::string& request) {
    int n = 0;
    for (const auto& h : compute) n += has_section(request, h);
    return n;
  };
  // The GEMM at the cpu size is compute-bound: the blocking sections are its own.
  ASSERT_GT(shown(planner_request(loop("8p_gemm", "cpu", avx512_server()), kBlocking)), 0);
  // At the ci size on this machine it is memory-bound: none of them.
  EXPECT_EQ(shown(planner_request(loop("8p_gemm", "ci", avx512_server()), kBlocking)), 0);
  EXPECT_EQ(shown(planner_request(loop("12p_rmsnorm", "cpu", avx512_server()), kBlocking)), 0);
}

TEST_F(PlaybookSelection, NoSectionComesTwiceInARequest) {
  // A heading repeated under one title (a file edited twice) is one section.
  const auto dir = std::filesystem::temp_directory_path() / "kforge-playbook-twice";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "gemm.md") << "# GEMM\n\n## Packing\n<!-- tags: gemm -->\nPack A.\n\n"
                                    "## Packing\n<!-- tags: gemm -->\nPack A and B.\n";
  auto twice = KnowledgeIndex::open(dir);
  ASSERT_TRUE(twice) << twice.error().message;
  ASSERT_EQ(twice->size(), 2u);
  EXPECT_EQ(twice->select({"gemm"}, "packing", 3).size(), 1u);
  std::filesystem::remove_all(dir);
  // And the shipped playbook's requests name each section once, whatever the strategy.
  for (const char* strategy : {kVectorize, kMemory, kBlocking}) {
    const auto request =
        planner_request(loop("13p_cross_entropy", "cpu", avx2_desktop()), strategy);
    for (const auto& sec : playbook_->sections())
      EXPECT_LE(count(request, "### " + sec.name() + "\n"), 1u) << sec.name();
  }
}

// Each request stands alone: a section is in full every time it is chosen, never a reference to
// text an earlier request carried.
TEST_F(PlaybookSelection, EveryRequestCarriesItsSectionsInFull) {
  const LoopState s = loop("8p_gemm", "cpu", avx512_server());
  const auto first = planner_request(s, kBlocking);
  const auto second = planner_request(s, kBlocking);
  std::size_t shown = 0;
  for (const auto& sec : playbook_->sections()) {
    const auto heading = "### " + sec.name() + "\n";
    EXPECT_EQ(count(first, heading), count(second, heading)) << sec.name();
    shown += count(second, heading);
  }
  EXPECT_EQ(shown, 3u);
}

TEST(PlaybookAnnotations, AMisspeltBoundOrIsaIsAnErrorNamingTheSection) {
  const auto dir = std::filesystem::temp_directory_path() / "kforge-playbook-misspelt";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.md") << "# A\n\n## Streams\n<!-- tags: any -->\n<!-- bound: mem -->\nx\n";
  auto bad = KnowledgeIndex::open(dir);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("a.md: ## Streams: bound: 'mem'"), std::string::npos)
      << bad.error().message;
  std::ofstream(dir / "a.md") << "# A\n\n## Streams\n<!-- isa: avx-512 -->\nx\n";
  auto misspelt = KnowledgeIndex::open(dir);
  ASSERT_FALSE(misspelt);
  EXPECT_NE(misspelt.error().message.find("isa: 'avx-512'"), std::string::npos)
      << misspelt.error().message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kforge::agents
