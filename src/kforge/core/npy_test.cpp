// .npy files: what write_npy writes reads back with its dtype, shape and bytes (1-d and 0-d
// shapes included); a file kforge cannot take as it is (Fortran order, a dtype it does not know,
// a short data section, not .npy at all) is refused with the file named and the reason.
#include "kforge/core/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "kforge/core/fs.h"

namespace kforge::core {
namespace {

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kforge-npy-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A version 1.0 file with this header dict and these data bytes.
  std::filesystem::path handmade(const std::string& dict, const std::string& data) {
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    out += static_cast<char>(dict.size());
    out += '\0';
    out += dict + data;
    auto p = dir_ / "handmade.npy";
    EXPECT_TRUE(write_atomic(p, out).ok());
    return p;
  }
  void expect_refused(const std::filesystem::path& p, const std::string& why) {
    auto r = read_npy(p);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(p.string()), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
  }
  std::filesystem::path dir_;
};

TEST_F(NpyTest, RoundTripsEveryShapeKind) {
  float m[6] = {1, 2, 3, 4, 5, 6};
  std::int32_t v[3] = {7, -8, 9};
  double s = 2.5;
  ASSERT_TRUE(write_npy(dir_ / "m.npy", DType::f32, {2, 3}, m).ok());
  ASSERT_TRUE(write_npy(dir_ / "v.npy", DType::i32, {3}, v).ok());
  ASSERT_TRUE(write_npy(dir_ / "s.npy", DType::f64, {}, &s).ok());
  auto a = read_npy(dir_ / "m.npy");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->dtype, DType::f32);
  EXPECT_EQ(a->shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(std::memcmp(a->data.data(), m, sizeof m), 0);
  auto b = read_npy(dir_ / "v.npy");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->dtype, DType::i32);
  EXPECT_EQ(b->shape, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(std::memcmp(b->data.data(), v, sizeof v), 0);
  auto c = read_npy(dir_ / "s.npy");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->shape.empty());
  EXPECT_EQ(c->data.size(), sizeof s);
}

TEST_F(NpyTest, RefusesWhatItCannotTakeAsItIs) {
  std::string four(16, '\0');
  expect_refused(handmade("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n", four),
                 "Fortran order");
  expect_refused(handmade("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }\n", four),
                 "dtype '<f2'");
  expect_refused(handmade("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", four),
                 "16 data bytes where the shape needs 24");
  EXPECT_TRUE(write_atomic(dir_ / "text.npy", "hello").ok());
  expect_refused(dir_ / "text.npy", "not a .npy file");
  expect_refused(dir_ / "missing.npy", "cannot read");
}

}  // namespace
}  // namespace kforge::core
