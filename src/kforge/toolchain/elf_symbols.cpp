// Parses ELF64 section headers for .dynsym/.dynstr and .dynamic.
#include "kforge/toolchain/elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <span>

namespace kforge::toolchain {
namespace {

// The file mapped read-only: the link check reads a few tables of libraries such as cuDNN and
// cuBLAS (hundreds of MB each), so only the pages it touches are read, not the whole file.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    opened_ = ::fstat(fd, &st) == 0;
    if (opened_ && st.st_size > 0) {
      void* p =
          ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED)
        bytes_ = {static_cast<const char*>(p), static_cast<std::size_t>(st.st_size)};
      else
        opened_ = false;
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (!bytes_.empty()) ::munmap(const_cast<char*>(bytes_.data()), bytes_.size());
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  bool opened() const { return opened_; }
  std::span<const char> bytes() const { return bytes_; }

 private:
  bool opened_ = false;
  std::span<const char> bytes_;
};

}  // namespace

Result<ElfDynamic> read_elf_dynamic(const std::filesystem::path& path) {
  MappedFile file(path);
  if (!file.opened()) return Error{fmt::format("{}: cannot open", path.string())};
  const std::span<const char> bytes = file.bytes();
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
