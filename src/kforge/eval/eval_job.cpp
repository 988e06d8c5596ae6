// The job folder's files (eval_job.h): the spec, the sealed seeds, the result.
#include "kforge/eval/eval_job.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/eval/evaluation.h"

namespace kforge::eval {
namespace {

toolchain::Role role_from(const std::string& name) {
  for (auto r : {toolchain::Role::candidate, toolchain::Role::reference, toolchain::Role::baseline,
                 toolchain::Role::expert})
    if (toolchain::role_name(r) == name) return r;
  return toolchain::Role::candidate;
}

}  // namespace

nlohmann::json EvalJobSpec::to_json() const {
  return {{"task", task_id},
          {"size", size},
          {"source", source},
          {"file_name", file_name},
          {"options", options}};
}

Result<EvalJobSpec> EvalJobSpec::from_json(const nlohmann::json& j) {
  EvalJobSpec s;
  try {
    s.task_id = j.at("task").get<std::string>();
    s.size = j.at("size").get<std::string>();
    s.source = j.at("source").get<std::string>();
    s.file_name = j.at("file_name").get<std::string>();
    s.options = j.at("options");
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("spec.json: {}", e.what())};
  }
  return s;
}

std::string EvalJobSpec::key() const { return core::Hasher().add(to_json().dump()).hex(); }

nlohmann::json options_to_json(const EvalOptions& o) {
  return {{"threads", o.threads},
          {"time", o.time},
          {"partner", o.partner == EvalOptions::Partner::baseline ? "baseline" : "reference"},
          {"against_source", o.against_source},
          {"against_name", o.against_name},
          {"against_role", toolchain::role_name(o.against_role)},
          {"role", toolchain::role_name(o.role)},
          {"allow_libs", o.allow_libs},
          {"extra_flags", o.extra_flags},
          {"check_sets", o.check_sets},
          {"time_budget_s", o.time_budget_s},
          {"warmup_s", o.warmup_s},
          {"min_pairs", o.min_pairs},
          {"max_pairs", o.max_pairs},
          {"call_timeout_s", o.call_timeout_s},
          {"perturb", o.perturb},
          {"memory_bytes", o.memory_bytes},
          {"profile_seconds", o.profile_seconds}};
}

EvalOptions options_from_json(const nlohmann::json& j) {
  EvalOptions o;
  o.threads = j.value("threads", o.threads);
  o.time = j.value("time", o.time);
  o.partner = j.value("partner", std::string("baseline")) == "reference"
                  ? EvalOptions::Partner::reference
                  : EvalOptions::Partner::baseline;
  o.against_source = j.value("against_source", std::string());
  o.against_name = j.value("against_name", std::string());
  o.against_role = role_from(j.value("against_role", std::string("candidate")));
  o.role = role_from(j.value("role", std::string("candidate")));
  o.allow_libs = j.value("allow_libs", std::vector<std::string>{});
  o.extra_flags = j.value("extra_flags", std::vector<std::string>{});
  o.check_sets = j.value("check_sets", o.check_sets);
  o.time_budget_s = j.value("time_budget_s", o.time_budget_s);
  o.warmup_s = j.value("warmup_s", o.warmup_s);
  o.min_pairs = j.value("min_pairs", o.min_pairs);
  o.max_pairs = j.value("max_pairs", o.max_pairs);
  o.call_timeout_s = j.value("call_timeout_s", o.call_timeout_s);
  o.perturb = j.value("perturb", o.perturb);
  o.memory_bytes = j.value("memory_bytes", o.memory_bytes);
  o.profile_seconds = j.value("profile_seconds", o.profile_seconds);
  return o;
}

Status write_private(const std::filesystem::path& path, const std::string& content) {
  auto tmp = path;
  tmp += fmt::format(".tmp{:08x}", std::random_device{}());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Error{fmt::format("{}: {}", tmp.string(), std::strerror(errno))};
  std::size_t done = 0;
  while (done < content.size()) {
    auto n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return Error{fmt::format("{}: write failed", tmp.string())};
    }
    done += static_cast<std::size_t>(n);
  }
  bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return Error{fmt::format("{}: could not be written", path.string())};
  }
  return ok_status();
}

Status write_seeds(const std::filesystem::path& path, const std::vector<std::uint64_t>& seeds) {
  return write_private(path, nlohmann::json(seeds).dump());
}

Result<std::vector<std::uint64_t>> take_seeds(const std::filesystem::path& path) {
  auto text = core::read_text(path);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (!text) return Error{fmt::format("the sealed seeds are gone ({})", text.error().message)};
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_array() || j.empty())
    return Error{fmt::format("{}: not a list of seeds", path.string())};
  std::vector<std::uint64_t> seeds;
  for (const auto& s : j)
    if (s.is_number_unsigned()) seeds.push_back(s.get<std::uint64_t>());
  if (seeds.size() != j.size()) return Error{fmt::format("{}: not a list of seeds", path.string())};
  return seeds;
}

Status write_job_result(const std::filesystem::path& job_dir, const Evaluation& e) {
  return write_private(result_path(job_dir), to_json(e).dump());
}

}  // namespace kforge::eval
