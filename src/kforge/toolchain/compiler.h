#pragma once
// The toolchain's face: turn one kernel source plus the task header into a loadable artifact.
// An interface so the agents' tests can use a fake and the real one can be swapped (g++, clang,
// later nvcc) without the layers above knowing.

#include <filesystem>
#include <string>
#include <vector>

#include "kforge/toolchain/diagnostics.h"
#include "kforge/toolchain/ptxas_report.h"

namespace kforge::toolchain {

// Who wrote the code decides the flags and the libraries it may link.
enum class Role { candidate, reference, baseline, expert, generator };
std::string_view role_name(Role role);

struct CompileRequest {
  Role role = Role::candidate;
  std::string source;
  std::string file_name = "kernel.cpp";  // as diagnostics will name it
  std::string task_header;               // the text of kforge_task.h
  std::vector<std::string> extra_flags;  // e.g. -DTILE=8 from the tuner
};

struct CompileResult {
  bool ok = false;
  bool timed_out = false;
  bool cached = false;
  std::filesystem::path artifact;  // the shared object, when ok
  std::vector<Diagnostic> diagnostics;
  std::string log;      // raw compiler output, capped
  std::string command;  // the command line, for humans
  double seconds = 0;   // compile time (0 when served from the cache)
  std::string key;      // content hash of everything that shapes the artifact
  // Per GPU kernel: registers, spills, shared memory (ptxas -v); empty for host targets.
  std::vector<KernelResources> resources;
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  virtual CompileResult compile(const CompileRequest& request) = 0;
  // Whether compile(request) would be served from the cache, without compiling: so that a
  // progress line can say "cached" instead of warning of a minute's build. False when it cannot
  // tell.
  virtual bool cached(const CompileRequest& request) { return false; }
  // The compiler's report on which loops it vectorized (raw text); empty if it cannot say.
  virtual std::string vectorization_output(const CompileRequest& request) { return {}; }
  // Which compiler and version ("g++ (Debian 12.2.0-14) 12.2.0"): what the agents write for.
  virtual std::string version() { return {}; }
  // The flags code of `role` is compiled with: what the agents are told they write for.
  virtual std::vector<std::string> flags_for(Role role) const = 0;
  // Folders an artifact of `role` reads when it runs, beyond the system's libraries (the torch
  // wheel a baseline loads libtorch from): its kernel process's file walls let it read them.
  virtual std::vector<std::filesystem::path> runtime_reads(Role) const { return {}; }
};

}  // namespace kforge::toolchain
