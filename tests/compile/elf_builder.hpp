// Test helper: a minimal 64-bit ELF shared-object image with a dynamic section (DT_NEEDED
// entries) and a dynamic symbol table (undefined and defined symbols), for tests that need an
// object without running a compiler.
#pragma once
#include <elf.h>

#include <cstring>
#include <string>
#include <vector>

namespace ptxbench::testing {

struct ElfSymbol {
  std::string name;
  bool defined = false;
  bool weak = false;
};

inline std::string make_shared_object(const std::vector<std::string>& needed,
                                      const std::vector<ElfSymbol>& symbols) {
  // Layout: [Ehdr][.dynstr][.dynsym][.dynamic][section headers: null, dynstr, dynsym, dynamic]
  std::string dynstr(1, '\0');
  auto add_string = [&](const std::string& s) {
    const auto at = dynstr.size();
    dynstr += s;
    dynstr.push_back('\0');
    return static_cast<Elf64_Word>(at);
  };
  std::vector<Elf64_Sym> syms(1);  // index 0 is the null symbol
  for (const auto& s : symbols) {
    Elf64_Sym sym{};
    sym.st_name = add_string(s.name);
    sym.st_info = ELF64_ST_INFO(s.weak ? STB_WEAK : STB_GLOBAL, STT_FUNC);
    sym.st_shndx = s.defined ? 1 : SHN_UNDEF;
    syms.push_back(sym);
  }
  std::vector<Elf64_Dyn> dyn;
  for (const auto& n : needed) {
    Elf64_Dyn d{};
    d.d_tag = DT_NEEDED;
    d.d_un.d_val = add_string(n);
    dyn.push_back(d);
  }
  dyn.push_back(Elf64_Dyn{});  // DT_NULL

  const std::size_t dynstr_off = sizeof(Elf64_Ehdr);
  const std::size_t dynsym_off = dynstr_off + dynstr.size();
  const std::size_t dynamic_off = dynsym_off + syms.size() * sizeof(Elf64_Sym);
  const std::size_t shdr_off = dynamic_off + dyn.size() * sizeof(Elf64_Dyn);

  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_ehsize = sizeof(Elf64_Ehdr);
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shoff = shdr_off;
  header.e_shnum = 4;

  std::vector<Elf64_Shdr> sections(4);
  sections[1].sh_type = SHT_STRTAB;
  sections[1].sh_offset = dynstr_off;
  sections[1].sh_size = dynstr.size();
  sections[2].sh_type = SHT_DYNSYM;
  sections[2].sh_offset = dynsym_off;
  sections[2].sh_size = syms.size() * sizeof(Elf64_Sym);
  sections[2].sh_link = 1;
  sections[2].sh_entsize = sizeof(Elf64_Sym);
  sections[3].sh_type = SHT_DYNAMIC;
  sections[3].sh_offset = dynamic_off;
  sections[3].sh_size = dyn.size() * sizeof(Elf64_Dyn);
  sections[3].sh_link = 1;
  sections[3].sh_entsize = sizeof(Elf64_Dyn);

  std::string image(reinterpret_cast<const char*>(&header), sizeof header);
  image += dynstr;
  image.append(reinterpret_cast<const char*>(syms.data()), syms.size() * sizeof(Elf64_Sym));
  image.append(reinterpret_cast<const char*>(dyn.data()), dyn.size() * sizeof(Elf64_Dyn));
  image.append(reinterpret_cast<const char*>(sections.data()),
               sections.size() * sizeof(Elf64_Shdr));
  return image;
}

}  // namespace ptxbench::testing
