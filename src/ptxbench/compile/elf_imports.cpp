#include "ptxbench/compile/elf_imports.hpp"

#include <elf.h>

#include <cstring>
#include <optional>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::compile {
namespace {

// Copies a T out of the image at `offset`; nullopt when it does not fit.
template <class T>
std::optional<T> read_at(std::string_view image, std::uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

bool fits(std::string_view image, const Elf64_Shdr& section) {
  return section.sh_offset <= image.size() && section.sh_size <= image.size() - section.sh_offset;
}

// A NUL-terminated string inside the string table section [table, table + size).
std::optional<std::string> string_at(std::string_view image, const Elf64_Shdr& table,
                                     std::uint64_t index) {
  if (!fits(image, table) || index >= table.sh_size) return std::nullopt;
  const auto strings = image.substr(table.sh_offset, table.sh_size);
  const auto end = strings.find('\0', index);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(strings.substr(index, end - index));
}

util::Error malformed(std::string_view what) {
  return util::make_error("not a readable 64-bit ELF object: " + std::string(what));
}

}  // namespace

util::Expected<ElfImports> parse_elf_imports(std::string_view image) {
  auto header = read_at<Elf64_Ehdr>(image, 0);
  if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0) return malformed("bad magic");
  if (header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_ident[EI_DATA] != ELFDATA2LSB)
    return malformed("not ELF64 little-endian");
  if (header->e_shentsize != sizeof(Elf64_Shdr)) return malformed("unexpected section header size");

  std::vector<Elf64_Shdr> sections;
  for (std::uint64_t i = 0; i < header->e_shnum; ++i) {
    auto section = read_at<Elf64_Shdr>(image, header->e_shoff + i * sizeof(Elf64_Shdr));
    if (!section) return malformed("section header out of range");
    sections.push_back(*section);
  }
  auto linked_table = [&](const Elf64_Shdr& s) -> const Elf64_Shdr* {
    return s.sh_link < sections.size() ? &sections[s.sh_link] : nullptr;
  };

  ElfImports imports;
  for (const auto& section : sections) {
    if ((section.sh_type == SHT_DYNAMIC || section.sh_type == SHT_DYNSYM) && !fits(image, section))
      return malformed("section out of range");
    if (section.sh_type == SHT_DYNAMIC) {
      const Elf64_Shdr* strings = linked_table(section);
      if (strings == nullptr) return malformed("dynamic section without string table");
      for (std::uint64_t at = 0; at + sizeof(Elf64_Dyn) <= section.sh_size;
           at += sizeof(Elf64_Dyn)) {
        auto entry = read_at<Elf64_Dyn>(image, section.sh_offset + at);
        if (!entry) return malformed("dynamic entry out of range");
        if (entry->d_tag == DT_NULL) break;
        if (entry->d_tag != DT_NEEDED) continue;
        auto name = string_at(image, *strings, entry->d_un.d_val);
        if (!name) return malformed("DT_NEEDED name out of range");
        imports.needed.push_back(std::move(*name));
      }
    } else if (section.sh_type == SHT_DYNSYM) {
      const Elf64_Shdr* strings = linked_table(section);
      if (strings == nullptr) return malformed("dynamic symbols without string table");
      for (std::uint64_t at = 0; at + sizeof(Elf64_Sym) <= section.sh_size;
           at += sizeof(Elf64_Sym)) {
        auto symbol = read_at<Elf64_Sym>(image, section.sh_offset + at);
        if (!symbol) return malformed("dynamic symbol out of range");
        const auto binding = ELF64_ST_BIND(symbol->st_info);
        if (binding != STB_GLOBAL && binding != STB_WEAK) continue;
        const bool defined_function =
            symbol->st_shndx != SHN_UNDEF && ELF64_ST_TYPE(symbol->st_info) == STT_FUNC;
        if (symbol->st_shndx != SHN_UNDEF && !defined_function) continue;
        auto name = string_at(image, *strings, symbol->st_name);
        if (!name) return malformed("symbol name out of range");
        if (name->empty()) continue;
        (defined_function ? imports.defined_functions : imports.undefined_symbols)
            .push_back(std::move(*name));
      }
    }
  }
  return imports;
}

util::Expected<ElfImports> read_elf_imports(const std::filesystem::path& shared_object) {
  auto image = util::read_file(shared_object);
  if (!image) return image.error();
  auto imports = parse_elf_imports(*image);
  if (!imports) return util::make_error(shared_object.string() + ": " + imports.error().message);
  return imports;
}

}  // namespace ptxbench::compile
