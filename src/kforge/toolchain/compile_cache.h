#pragma once
// What every compiler of kforge shares around the compiler run itself: the outcome cache entry
// (result.json beside the artifact, keyed by content hash), digests of folders a trusted compile
// may read, and how a compiler's output is told to humans (the file by its display name, the
// sandbox limit it hit).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kforge/toolchain/compile_sandbox.h"
#include "kforge/toolchain/compiler.h"

namespace kforge::toolchain {

std::string shell_join(const std::vector<std::string>& argv);

// The compiler names the file as it was written; the user knows it by the display name.
std::string rename_in_output(std::string text, const std::string& written,
                             const std::string& display);

nlohmann::json result_to_json(const CompileResult& r);

// A cached outcome, or false. An entry that exists but is not whole (no result, or a successful
// result without its artifact: a write that failed on a full disk) is removed, so that the
// recompile can take its place.
// `artifact_name`: the artifact's file in the entry ("kernel.py" for a Pallas module).
bool load_cached(const std::filesystem::path& entry, CompileResult& r,
                 const std::string& artifact_name = "kernel.so");

// The end of every compile: a finished outcome is stored as the cache entry (the scratch folder,
// less the source file, becomes the entry) and read back, so the result names the cached
// artifact. An outcome that is not `storable` (a timeout or a compiler that could not start: it
// may pass on a quieter machine) is not kept and its scratch folder is removed. A store or
// read-back that fails makes the result a failed compile saying why, in the log and as its first
// diagnostic.
void store_outcome(const std::filesystem::path& scratch, const std::string& source_file,
                   const std::filesystem::path& entry, bool storable, CompileResult& result);

// Every file under dir, by relative path and content, in one key: a trusted compile may include
// any of them, so an edited helper header must miss the cache, not serve the old artifact.
std::string tree_digest(const std::filesystem::path& dir);

// Puts what the sandbox did first in the log, and as an error the verdict will show.
void explain_sandbox(CompileResult& result, const std::string& raw_output,
                     const SandboxLimits& limits);

// How the log names a compiler that did not finish or could not start.
struct CompilerName {
  std::string name;          // "the compiler", "nvcc"
  std::string program;       // what was started
  std::string timeout_hint;  // after "did not finish within N s", may be empty
};

// A finished compiler run read into `result`: its seconds, log (the file by its display name,
// after what the sandbox did), diagnostics, and ok when it exited 0 and wrote kernel.so in the
// sandbox's scratch folder. Returns the raw output (valid UTF-8) for parsers of further reports.
std::string read_compiler_run(const core::ProcessResult& run, const std::string& file,
                              const CompileRequest& request, const CompileSandbox& sandbox,
                              const CompilerName& compiler, CompileResult& result);

}  // namespace kforge::toolchain
