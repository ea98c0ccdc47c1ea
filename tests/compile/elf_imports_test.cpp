// Reading DT_NEEDED and undefined dynamic symbols from ELF images, including damaged ones.
#include "ptxbench/compile/elf_imports.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "elf_builder.hpp"

namespace ptxbench::compile {
namespace {
using ::testing::ElementsAre;

TEST(ElfImports, ReadsNeededAndOnlyUndefinedSymbols) {
  const auto image = testing::make_shared_object({"libtvm_ffi.so", "libcudart.so.13"},
                                                 {{.name = "cublasCreate_v2"},
                                                  {.name = "__tvm_ffi_run", .defined = true},
                                                  {.name = "dlopen", .weak = true}});
  auto imports = parse_elf_imports(image);
  ASSERT_TRUE(imports.has_value()) << imports.error().message;
  EXPECT_THAT(imports->needed, ElementsAre("libtvm_ffi.so", "libcudart.so.13"));
  EXPECT_THAT(imports->undefined_symbols, ElementsAre("cublasCreate_v2", "dlopen"));
}

TEST(ElfImports, RejectsWhatIsNotElf64) {
  EXPECT_FALSE(parse_elf_imports("").has_value());
  EXPECT_FALSE(parse_elf_imports("#!/bin/sh\necho hi\n").has_value());
  auto image = testing::make_shared_object({"libc.so.6"}, {});
  image[EI_CLASS] = ELFCLASS32;
  auto imports = parse_elf_imports(image);
  ASSERT_FALSE(imports.has_value());
  EXPECT_THAT(imports.error().message, ::testing::HasSubstr("not ELF64"));
}

TEST(ElfImports, TruncatedImageIsAnErrorNotACrash) {
  const auto image = testing::make_shared_object({"libc.so.6"}, {{.name = "malloc"}});
  for (std::size_t size = 0; size < image.size(); ++size) {
    ASSERT_NO_THROW((void)parse_elf_imports(std::string_view(image).substr(0, size)));
  }
  EXPECT_FALSE(parse_elf_imports(std::string_view(image).substr(0, image.size() - 1)).has_value());
}

// Random byte damage anywhere (offsets, sizes, links, string indices) must give a value back.
TEST(ElfImports, RandomDamageNeverCrashes) {
  const auto image = testing::make_shared_object({"libtvm_ffi.so", "libc.so.6"},
                                                 {{.name = "cublasCreate_v2"}, {.name = "free"}});
  std::mt19937 rng(7);
  int readable = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string damaged = image;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) damaged[rng() % damaged.size()] = static_cast<char>(rng());
    util::Expected<ElfImports> imports = util::make_error("");
    ASSERT_NO_THROW(imports = parse_elf_imports(damaged));
    readable += imports.has_value() ? 1 : 0;
  }
  EXPECT_GT(readable, 0);  // most damage lands in bytes that do not matter
}

TEST(ElfImports, MissingFileIsAnError) {
  EXPECT_FALSE(read_elf_imports("/nonexistent/candidate.so").has_value());
}

}  // namespace
}  // namespace ptxbench::compile
