// Source files named on the command line: a folder, a binary, a non-UTF-8 file or a missing path
// is refused with the path and the reason before anything is compiled; C++ text is read as is.
#include "kforge/core/fs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace kforge::core {
namespace {

class ReadSource : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kforge-fs-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  static std::string error_of(const std::filesystem::path& p) {
    auto r = read_source(p);
    return r ? std::string("(no error)") : r.error().message;
  }

  std::filesystem::path dir_;
};

TEST_F(ReadSource, ReadsCppText) {
  auto p = write("k.cpp", "// caf\xC3\xA9\nextern \"C\" void kernel() {}\n");
  auto r = read_source(p);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "// caf\xC3\xA9\nextern \"C\" void kernel() {}\n");
  EXPECT_TRUE(read_source(write("-x.cpp", "int x;\n")));  // a leading dash is only a name
}

TEST_F(ReadSource, RefusesWhatIsNotASourceFile) {
  std::filesystem::create_directories(dir_ / "kernels");
  std::string folder = error_of(dir_ / "kernels");
  EXPECT_NE(folder.find("kernels: is a folder"), std::string::npos) << folder;
  std::string binary = error_of(write("k.so", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10)));
  EXPECT_NE(binary.find("k.so: a binary file (a NUL byte at offset 7)"), std::string::npos) << binary;
  std::string latin1 = error_of(write("l.cpp", "// caf\xE9\n"));
  EXPECT_NE(latin1.find("l.cpp: not UTF-8 text (an invalid byte at offset 6)"), std::string::npos) << latin1;
  std::string missing = error_of(dir_ / "nope.cpp");
  EXPECT_NE(missing.find("nope.cpp: no such file"), std::string::npos) << missing;
}

}  // namespace
}  // namespace kforge::core
