// Parses ELF64 section headers for .dynsym/.dynstr and .dynamic.
#include "kforge/toolchain/elf_symbols.h"

#include <elf.h>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace kforge::toolchain {

Result<ElfDynamic> read_elf_dynamic(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("{}: cannot open", path.string())};
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bad = [&](const char* why) {
    return Error{fmt::format("{}: not a valid ELF64 shared object ({})", path.string(), why)};
  };
  if (bytes.size() < sizeof(Elf64_Ehdr)) return bad("too short");
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
    return bad("bad magic");
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shoff + eh.e_shnum * sizeof(Elf64_Shdr) > bytes.size())
    return bad("bad section table");
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  std::memcpy(sections.data(), bytes.data() + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
  auto in_bounds = [&](const Elf64_Shdr& s) { return s.sh_offset + s.sh_size <= bytes.size(); };
  auto string_at = [&](const Elf64_Shdr& strtab, std::size_t off) -> std::string {
    if (off >= strtab.sh_size) return {};
    const char* p = bytes.data() + strtab.sh_offset + off;
    return std::string(p, strnlen(p, strtab.sh_size - off));
  };

  ElfDynamic out;
  for (const auto& s : sections) {
    if (!in_bounds(s) || s.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strtab = sections[s.sh_link];
    if (!in_bounds(strtab)) continue;
    if (s.sh_type == SHT_DYNSYM) {
      std::size_t count = s.sh_size / sizeof(Elf64_Sym);
      for (std::size_t i = 1; i < count; ++i) {
        Elf64_Sym sym;
        std::memcpy(&sym, bytes.data() + s.sh_offset + i * sizeof(Elf64_Sym), sizeof sym);
        int bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
        if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
        int vis = ELF64_ST_VISIBILITY(sym.st_other);
        ElfSymbol e{string_at(strtab, sym.st_name), bind == STB_WEAK,
                    type == STT_FUNC || type == STT_GNU_IFUNC};
        if (e.name.empty()) continue;
        if (sym.st_shndx == SHN_UNDEF)
          out.undefined.push_back(std::move(e));
        else if (vis == STV_DEFAULT || vis == STV_PROTECTED)
          out.defined.push_back(std::move(e));
      }
    } else if (s.sh_type == SHT_DYNAMIC) {
      std::size_t count = s.sh_size / sizeof(Elf64_Dyn);
      for (std::size_t i = 0; i < count; ++i) {
        Elf64_Dyn d;
        std::memcpy(&d, bytes.data() + s.sh_offset + i * sizeof(Elf64_Dyn), sizeof d);
        if (d.d_tag == DT_NULL) break;
        if (d.d_tag == DT_NEEDED) out.needed.push_back(string_at(strtab, d.d_un.d_val));
      }
    }
  }
  return out;
}

}  // namespace kforge::toolchain
