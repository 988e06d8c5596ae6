// The fastest-peer record that bench --peers writes and --beat reads: per machine, keyed by task,
// size and threads; an absent entry is "none yet", a malformed file an error naming it.
#include "kforge/eval/fastest_peer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "kforge/core/fs.h"

namespace kforge::eval {

TEST(FastestPeer, RecordsAndReadsPerTaskSizeAndThreads) {
  auto dir = std::filesystem::temp_directory_path() /
             ("kforge-fastest-peer-" + std::to_string(::getpid()));
  auto file = dir / "fastest-peer" / "host.json";
  MachineProfile m;
  m.peak_file = dir / "peaks" / "host.json";
  EXPECT_EQ(fastest_peer_file(m), file);
  EXPECT_FALSE(*cached_fastest_peer(file, "12p_rmsnorm/cpu/2t"));  // nothing measured yet
  ASSERT_TRUE(record_fastest_peer(file, fastest_peer_entry("12p_rmsnorm", "cpu", 2), "xla", 0.8));
  ASSERT_TRUE(record_fastest_peer(file, fastest_peer_entry("8p_gemm", "cpu", 2), "torch", 1.1));
  EXPECT_EQ(**cached_fastest_peer(file, "12p_rmsnorm/cpu/2t"), "xla");
  EXPECT_EQ(**cached_fastest_peer(file, "8p_gemm/cpu/2t"), "torch");
  EXPECT_FALSE(*cached_fastest_peer(file, "12p_rmsnorm/cpu/1t"));  // another thread count
  ASSERT_TRUE(record_fastest_peer(file, "12p_rmsnorm/cpu/2t", "torch-compile", 0.9));
  EXPECT_EQ(**cached_fastest_peer(file, "12p_rmsnorm/cpu/2t"), "torch-compile");
  ASSERT_TRUE(core::write_atomic(file, "not json").ok());
  auto bad = cached_fastest_peer(file, "12p_rmsnorm/cpu/2t");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find(file.string()), std::string::npos);
  EXPECT_TRUE(fastest_peer_file(MachineProfile{}).empty());  // no cached peaks: nowhere to keep it
  std::filesystem::remove_all(dir);
}

}  // namespace kforge::eval
