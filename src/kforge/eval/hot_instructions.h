#pragma once
// The hottest machine instructions of a profiled kernel: its shared object disassembled (objdump,
// or llvm-objdump) and the runner's sample offsets charged to instructions. Hot lines say which
// source line costs; when one line (a macro-expanded micro-kernel, an inlined library call) holds
// most samples, this says which of its loads, FMAs or gathers does.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kforge::eval {

// One instruction as the disassembler prints it.
struct Instruction {
  std::uint64_t offset = 0;  // in the shared object, as the runner's sample offsets are
  std::string function;      // demangled; "" where the object has no symbol for it
  std::string text;          // "vfmadd231ps ymm0,ymm1,YMMWORD [rax]": no comments, no " PTR"
};

struct HotInstruction {
  std::uint64_t offset = 0;
  long samples = 0;
  double share = 0;  // of all the profile's samples, as a hot line's share is
  std::string function;
  std::string text;
};

struct HotInstructions {
  std::string why;   // what made them worth showing: "line 12 holds 78% of the kernel's samples"
  std::string tool;  // the disassembler that read the object
  long total_samples = 0;   // all the profile's samples: the base of each share
  long kernel_samples = 0;  // samples in the kernel's object
  long attributed = 0;      // of those, the ones charged to a disassembled instruction
  std::map<std::string, long> by_function;  // attributed samples per function
  std::map<std::string, long> by_mnemonic;  // … per operation ("vfmadd231ps", "vmovups")
  std::vector<HotInstruction> top;          // hottest first, at most kTop
  std::vector<HotInstruction> around;  // the hottest one's neighbours in address order, itself too
  std::string note;  // why there are none (no disassembler, a timeout), or what went uncharged

  static constexpr std::size_t kTop = 12;
  static constexpr std::size_t kAround = 3;  // instructions each side of the hottest

  bool empty() const { return top.empty() && note.empty(); }
  // The profiler's view, at most 1.5 KB: long operands and names are cut, and the top list when
  // it must.
  std::string text() const;
};

// Parses `objdump -d --no-show-raw-insn` output, GNU's or LLVM's, into instructions in the order
// printed (ascending addresses within each section).
std::vector<Instruction> parse_disassembly(std::string_view listing);

// Charges each (offset, samples) to the instruction starting there, or else to the one containing
// it; `total_samples` (all of the profile's samples) is the base of each share.
HotInstructions attribute_samples(const std::vector<Instruction>& code,
                                  const std::vector<std::pair<std::uint64_t, long>>& offsets,
                                  long total_samples);

struct DisassemblerOptions {
  std::vector<std::string> tools = {"objdump", "llvm-objdump"};  // the first found on PATH runs
  std::chrono::milliseconds timeout{15000};
};

// Disassembles `shared_object` and charges the runner's kernel offsets ([[offset, count], …]) to
// its instructions. A disassembler that is missing, fails or times out gives a note, not an error:
// the profile is advice and the evaluation stands without it.
HotInstructions hot_instructions_from_samples(const nlohmann::json& kernel_offsets,
                                              long total_samples, const std::string& shared_object,
                                              const DisassemblerOptions& options = {});

nlohmann::json to_json(const HotInstructions& h);
HotInstructions hot_instructions_from_json(const nlohmann::json& j);

}  // namespace kforge::eval
