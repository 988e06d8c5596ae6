#pragma once
// Reads the dynamic linking facts of a shared object: the libraries it needs and the symbols it
// defines and imports. Enough ELF to judge a kernel's link check, without libelf.

#include <filesystem>
#include <string>
#include <vector>

#include "kforge/core/result.h"

namespace kforge::toolchain {

struct ElfSymbol {
  std::string name;
  bool weak = false;
  bool function = false;
};

struct ElfDynamic {
  std::vector<std::string> needed;   // DT_NEEDED sonames
  std::vector<ElfSymbol> defined;    // exported (GLOBAL/WEAK, default or protected visibility)
  std::vector<ElfSymbol> undefined;  // imported
};

Result<ElfDynamic> read_elf_dynamic(const std::filesystem::path& path);

}  // namespace kforge::toolchain
