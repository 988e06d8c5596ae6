// The microarchitecture from /proc/cpuinfo's numbers: the cores the suite runs on are named, Zen 4
// says it splits 512-bit operations, Skylake-SP and Cascade Lake are told apart by stepping, an
// EPYC in a VM that hides its family is known by its model number, and an unknown CPU is "".
#include "kforge/eval/microarch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kforge/eval/machine.h"

namespace kforge::eval {

using ::testing::HasSubstr;

TEST(Microarchitecture, ZenFourSplitsWideOperations) {
  auto a = microarchitecture("AuthenticAMD", 25, 17, 1, "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(a.name, "Zen 4");
  EXPECT_THAT(a.note, HasSubstr("two 256-bit halves"));
  EXPECT_EQ(microarchitecture("AuthenticAMD", 25, 97, 2, "AMD Ryzen 9 7950X").name, "Zen 4");
  EXPECT_EQ(microarchitecture("AuthenticAMD", 25, 1, 1, "AMD EPYC 7763").name, "Zen 3");
  EXPECT_EQ(microarchitecture("AuthenticAMD", 23, 49, 0, "AMD EPYC 7742").name, "Zen 2");
  EXPECT_EQ(microarchitecture("AuthenticAMD", 26, 2, 0, "AMD EPYC 9755").name, "Zen 5");
}

TEST(Microarchitecture, IntelServerCores) {
  EXPECT_EQ(
      microarchitecture("GenuineIntel", 6, 106, 6, "Intel(R) Xeon(R) Processor @ 2.60GHz").name,
      "Ice Lake-SP");
  EXPECT_EQ(microarchitecture("GenuineIntel", 6, 85, 4, "Intel(R) Xeon(R) Gold 6148").name,
            "Skylake-SP");
  EXPECT_EQ(microarchitecture("GenuineIntel", 6, 85, 7, "Intel(R) Xeon(R) Gold 6248").name,
            "Cascade Lake");
  EXPECT_EQ(microarchitecture("GenuineIntel", 6, 143, 8, "Intel(R) Xeon(R) Platinum 8480+").name,
            "Sapphire Rapids");
  EXPECT_THAT(
      microarchitecture("GenuineIntel", 6, 151, 2, "12th Gen Intel(R) Core(TM) i7-12700").note,
      HasSubstr("no AVX-512"));
}

TEST(Microarchitecture, ModelNameWhenTheNumbersSayNothing) {
  EXPECT_EQ(microarchitecture("AuthenticAMD", 0, 0, 0, "AMD EPYC 9354P 32-Core Processor").name,
            "Zen 4");
  EXPECT_EQ(microarchitecture("AuthenticAMD", 0, 0, 0, "AMD EPYC 4564P").name, "Zen 4");
}

TEST(Microarchitecture, UnknownIsEmpty) {
  auto a = microarchitecture("GenuineIntel", 6, 1, 0, "Pentium Pro");
  EXPECT_EQ(a.name, "");
  EXPECT_EQ(a.note, "");
  EXPECT_EQ(microarchitecture("", 0, 0, 0, "").name, "");
}

// On this machine: the family and model are read, and a clock is found wherever the system keeps
// one.
TEST(Microarchitecture, DescribeCpuReadsFamilyModelAndClock) {
  auto m = describe_cpu();
  if (m.vendor.empty()) GTEST_SKIP() << "no vendor_id in /proc/cpuinfo (not x86)";
  EXPECT_GT(m.cpu_family, 0);
  EXPECT_GT(m.clock_ghz, 0.1);
  EXPECT_FALSE(m.clock_source.empty());
}

// OpenBLAS on generic kernels where the CPU has AVX2 or AVX-512 is said, with the core type to set.
TEST(OpenBlasCore, GenericKernelsOnAVectorCpuAreSaid) {
  MachineProfile m;
  m.isa = {"avx2", "fma", "avx512f"};
  m.openblas_core = "Prescott";
  EXPECT_NE(openblas_core_warning(m).find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos);
  m.isa = {"avx2", "fma"};
  EXPECT_NE(openblas_core_warning(m).find("OPENBLAS_CORETYPE=Haswell"), std::string::npos);
  m.openblas_core = "SkylakeX";
  EXPECT_EQ(openblas_core_warning(m), "");
  m.openblas_core = "Prescott";
  m.isa = {"sse4_2"};
  EXPECT_EQ(openblas_core_warning(m), "");
}

}  // namespace kforge::eval
