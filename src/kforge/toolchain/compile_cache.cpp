// The compile cache entry and the wording of compiler output, shared by the cpp and cuda compilers.
#include "kforge/toolchain/compile_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "kforge/core/fs.h"
#include "kforge/core/hash.h"
#include "kforge/core/utf8.h"
#include "kforge/toolchain/compile_scratch.h"
#include "kforge/toolchain/diagnostics.h"

namespace kforge::toolchain {

std::string shell_join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// The compiler names the file as it was written; the user knows it by the display name.
std::string rename_in_output(std::string text, const std::string& written,
                             const std::string& display) {
  if (written == display) return text;
  const std::string from = written + ":", to = display + ":";
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

nlohmann::json result_to_json(const CompileResult& r) {
  nlohmann::json j = {{"ok", r.ok},   {"timed_out", r.timed_out}, {"diagnostics", r.diagnostics},
                      {"log", r.log}, {"command", r.command},     {"seconds", r.seconds}};
  if (!r.resources.empty()) j["resources"] = r.resources;
  return j;
}

// A cached outcome, or false. An entry that exists but is not whole (no result, or a successful
// result without its artifact: a write that failed on a full disk) is removed, so that the
// recompile can take its place.
bool load_cached(const std::filesystem::path& entry, CompileResult& r,
                 const std::string& artifact_name) {
  std::error_code ec;
  if (!std::filesystem::exists(entry, ec)) return false;
  auto discard = [&] {
    std::filesystem::remove_all(entry, ec);
    return false;
  };
  auto text = core::read_text(entry / "result.json");
  if (!text) return discard();
  try {
    auto j = nlohmann::json::parse(*text);
    r.ok = j.at("ok");
    r.timed_out = j.value("timed_out", false);
    r.diagnostics = j.at("diagnostics").get<std::vector<Diagnostic>>();
    r.log = j.value("log", "");
    r.command = j.value("command", "");
    if (auto it = j.find("resources"); it != j.end())
      r.resources = it->get<std::vector<KernelResources>>();
    r.cached = true;
    r.artifact = r.ok ? entry / artifact_name : std::filesystem::path{};
    if (r.ok && !std::filesystem::exists(r.artifact)) return discard();
    return true;
  } catch (const std::exception&) {
    return discard();  // a damaged entry is recompiled
  }
}

// Every file under dir, by relative path and content, in one key: a trusted compile may include
// any of them, so an edited helper header must miss the cache, not serve the old artifact.
void store_outcome(const std::filesystem::path& scratch, const std::string& source_file,
                   const std::filesystem::path& entry, bool storable, CompileResult& result) {
  std::error_code ec;
  if (!storable) {
    std::filesystem::remove_all(scratch, ec);
    return;
  }
  auto stored = core::write_atomic(scratch / "result.json", result_to_json(result).dump());
  std::filesystem::remove(scratch / source_file, ec);
  if (stored) stored = publish_scratch(scratch, entry);
  if (!stored || !load_cached(entry, result)) {
    std::filesystem::remove_all(scratch, ec);
    result.ok = false;
    result.artifact.clear();
    const std::string why =
        "kforge could not store the compiled kernel: " +
        (stored ? std::string("the cache entry could not be read back") : stored.error().message);
    result.log = why + "\n" + result.log;
    result.diagnostics.insert(result.diagnostics.begin(),
                              Diagnostic{"kforge", 0, 0, "error", why, {}});
  }
  result.cached = false;
}

std::string tree_digest(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  core::Hasher h;
  for (const auto& f : files) {
    auto text = core::read_text(f);
    h.add(std::filesystem::relative(f, dir).string())
        .add(text ? *text : "unreadable: " + text.error().message);
  }
  return h.hex();
}

// Puts what the sandbox did first in the log, and as an error the verdict will show.
void explain_sandbox(CompileResult& result, const std::string& raw_output,
                     const SandboxLimits& limits) {
  if (auto hit = sandbox_limit_hit(raw_output, limits); !hit.empty()) {
    result.log = hit + "\n" + result.log;
    result.diagnostics.insert(result.diagnostics.begin(),
                              Diagnostic{"kforge", 0, 0, "error", hit, {}});
  } else if (auto note = sandbox_refusal_note(raw_output); !note.empty()) {
    result.log += note + "\n";
  }
}

std::string read_compiler_run(const core::ProcessResult& run, const std::string& file,
                              const CompileRequest& request, const CompileSandbox& sandbox,
                              const CompilerName& compiler, CompileResult& result) {
  // Compilers echo the source's bytes (and cut lines): the log and diagnostics end up in JSON.
  std::string raw = core::valid_utf8(run.err + run.out);
  result.seconds = run.wall_ms / 1000.0;
  result.timed_out = run.timed_out;
  result.log = rename_in_output(raw, file, request.file_name);
  result.diagnostics =
      parse_diagnostics(raw, {{file, request.source}, {"kforge_task.h", request.task_header}});
  for (auto& d : result.diagnostics)
    if (d.file == file) d.file = request.file_name;
  result.ok = run.success() && std::filesystem::exists(sandbox.scratch / "kernel.so");
  if (run.timed_out)
    result.log = fmt::format("{} did not finish within {} s{}\n", compiler.name,
                             sandbox.timeout.count() / 1000, compiler.timeout_hint) +
                 result.log;
  else if (!result.ok && run.spawn_failed)
    result.log = fmt::format("cannot run {} '{}': {}", compiler.name, compiler.program,
                             core::valid_utf8(run.err));
  else if (!result.ok)
    explain_sandbox(result, raw, sandbox.limits);
  return raw;
}

}  // namespace kforge::toolchain
