// One file per task: a seed per line, in hex.
#include "kforge/eval/secret_seeds.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <random>
#include <sstream>

#include "kforge/core/fs.h"
#include "kforge/core/task_spec.h"

namespace kforge::eval {

Result<std::vector<std::uint64_t>> secret_seeds(const std::filesystem::path& state_dir,
                                                const std::string& task_id, int count) {
  // The loader refuses such ids; a TaskSpec built elsewhere must not write outside secrets/ either.
  if (!core::is_safe_task_id(task_id))
    return Error{fmt::format("task id '{}': not a plain name, no secret seeds written", task_id)};
  auto dir = state_dir / "secrets";
  if (auto st = core::ensure_dir(dir); !st) return st.error();
  ::chmod(dir.c_str(), 0700);
  auto file = dir / (task_id + ".seeds");
  std::vector<std::uint64_t> seeds;
  if (auto text = core::read_text(file)) {
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) seeds.push_back(std::stoull(line, nullptr, 16));
  }
  if (static_cast<int>(seeds.size()) >= count) {
    seeds.resize(static_cast<std::size_t>(count));
    return seeds;
  }
  std::random_device rd;
  while (static_cast<int>(seeds.size()) < count)
    seeds.push_back((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
  std::string text;
  for (auto s : seeds) text += fmt::format("{:016x}\n", s);
  if (auto st = core::write_atomic(file, text); !st) return st.error();
  ::chmod(file.c_str(), 0600);
  return seeds;
}

}  // namespace kforge::eval
