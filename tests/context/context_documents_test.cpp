// CI: every context document exists, its C++/CUDA blocks follow the compile-marker convention of
// context/README.md, and every block marked `compile` builds as a candidate would (nvcc for the
// document's arch, TVM-FFI and libcuda linked) and contains the SASS opcodes its marker lists.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "fenced_block.hpp"
#include "ptxbench/arch/arch.hpp"
#include "ptxbench/config.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::context_docs {
namespace {

namespace fs = std::filesystem;

// The documents the prompt builder loads: context/<arch>/<level document>.md.
constexpr const char* kDocuments[] = {"isa", "guide", "examples"};

struct DocumentCase {
  arch::Arch arch;
  std::string document;
  std::string name() const { return fmt::format("{}_{}", arch::to_string(arch), document); }
  fs::path path() const {
    return fs::path(config::kSourceDir) / "context" / std::string(arch::to_string(arch)) /
           (document + ".md");
  }
};

// gtest prints the parameter of a failed test with this.
void PrintTo(const DocumentCase& doc, std::ostream* os) {
  *os << doc.name();
}

std::vector<DocumentCase> all_documents() {
  std::vector<DocumentCase> cases;
  for (arch::Arch a : arch::all()) {
    for (const char* document : kDocuments) cases.push_back({a, document});
  }
  return cases;
}

// nvcc as CMake found it at configure time (PTXBENCH_NVCC), else from PATH.
std::optional<fs::path> find_nvcc() {
  const fs::path configured = PTXBENCH_NVCC;
  if (!configured.empty() && fs::exists(configured)) return configured;
  return util::find_in_path("nvcc");
}

std::optional<fs::path> find_cuobjdump(const std::optional<fs::path>& nvcc) {
  const fs::path wheel = fs::path(config::kPyDepsBinDir) / "cuobjdump";
  if (fs::exists(wheel)) return wheel;
  if (nvcc && fs::exists(nvcc->parent_path() / "cuobjdump"))
    return nvcc->parent_path() / "cuobjdump";
  return util::find_in_path("cuobjdump");
}

// The flags a candidate is built with, for the document's arch.
std::vector<std::string> nvcc_argv(const fs::path& nvcc, arch::Arch arch, const fs::path& source,
                                   const fs::path& output) {
  return {nvcc.string(),
          "-std=c++17",
          "-O3",
          "-shared",
          "-Xcompiler",
          "-fPIC",
          arch::gencode_flag(arch),
          "-cudart",
          "shared",
          "-I" + std::string(config::kTvmFfiIncludeDir),
          "-L" + std::string(config::kTvmFfiLibraryDir),
          "-ltvm_ffi",
          "-lcuda",
          "-o",
          output.string(),
          source.string()};
}

class ContextDocument : public ::testing::TestWithParam<DocumentCase> {};

TEST_P(ContextDocument, ExistsAndFollowsTheMarkerConvention) {
  const DocumentCase& doc = GetParam();
  const auto text = util::read_file(doc.path());
  ASSERT_TRUE(text.has_value()) << text.error().message;
  EXPECT_FALSE(text->empty()) << doc.path();
  int compiled = 0;
  for (const FencedBlock& block : fenced_blocks(*text)) {
    const std::string where = fmt::format("{}:{}", doc.path().string(), block.first_line);
    EXPECT_TRUE(block.terminated) << where << ": code block is never closed";
    const auto marker = parse_compile_marker(block.info);
    if (!marker) continue;
    EXPECT_TRUE(marker->unknown.empty())
        << where << ": unknown attribute(s) in '" << block.info << "' (allowed: compile, sass=...)";
    EXPECT_TRUE(marker->sass.empty() || marker->compile) << where << ": sass= without compile";
    // Worked examples are what a model copies: every one of them must be a compiled block.
    if (doc.document == "examples" && marker->language == "cuda") {
      EXPECT_TRUE(marker->compile)
          << where << ": a cuda block in examples.md must be marked `compile`";
    }
    if (marker->compile) ++compiled;
  }
  if (doc.document == "examples") {
    EXPECT_GT(compiled, 0) << doc.path() << " has no compiled example";
  }
}

TEST_P(ContextDocument, CompilableBlocksCompile) {
  const DocumentCase& doc = GetParam();
  const auto text = util::read_file(doc.path());
  ASSERT_TRUE(text.has_value()) << text.error().message;

  std::vector<FencedBlock> to_compile;
  for (FencedBlock& block : fenced_blocks(*text)) {
    const auto marker = parse_compile_marker(block.info);
    if (marker && marker->compile) to_compile.push_back(std::move(block));
  }
  if (to_compile.empty()) GTEST_SKIP() << doc.path() << " has no block marked `compile`";

  const auto nvcc = find_nvcc();
  if (!nvcc) GTEST_SKIP() << "nvcc not found (configure with the CUDA toolkit or put it on PATH)";
  const auto cuobjdump = find_cuobjdump(nvcc);

  util::SystemProcessRunner runner;
  util::TempDir work("ptxbench-context-");
  bool sass_unchecked = false;
  for (const FencedBlock& block : to_compile) {
    const std::string where = fmt::format("{}:{}", doc.path().string(), block.first_line);
    const fs::path source = work.path() / fmt::format("block_{}.cu", block.first_line);
    const fs::path output = work.path() / fmt::format("block_{}.so", block.first_line);
    util::write_file_atomic(source, block.code);

    util::ProcessSpec compile;
    compile.argv = nvcc_argv(*nvcc, doc.arch, source, output);
    compile.timeout = std::chrono::minutes(5);
    const util::ProcessResult built = runner.run(compile);
    if (!built.succeeded()) {
      ADD_FAILURE() << where << ": nvcc " << built.describe_end() << "\n"
                    << built.stderr_text << built.stdout_text;
      continue;
    }

    const auto marker = parse_compile_marker(block.info);
    if (marker->sass.empty()) continue;
    if (!cuobjdump) {
      sass_unchecked = true;
      continue;
    }
    util::ProcessSpec disassemble;
    disassemble.argv = {cuobjdump->string(), "-sass", output.string()};
    disassemble.output_cap_bytes = 64u << 20;
    const util::ProcessResult sass = runner.run(disassemble);
    if (!sass.succeeded() || sass.stdout_truncated) {
      ADD_FAILURE() << where << ": cuobjdump " << sass.describe_end() << "\n" << sass.stderr_text;
      continue;
    }
    for (const std::string& opcode : marker->sass) {
      EXPECT_TRUE(has_opcode(sass.stdout_text, opcode))
          << where << ": the compiled block has no " << opcode << " instruction";
    }
  }
  if (sass_unchecked)
    GTEST_SKIP() << "compiled, but cuobjdump was not found: SASS opcodes unchecked";
}

INSTANTIATE_TEST_SUITE_P(AllDocuments, ContextDocument, ::testing::ValuesIn(all_documents()),
                         [](const ::testing::TestParamInfo<DocumentCase>& param) {
                           return param.param.name();
                         });

TEST(ContextReadme, DescribesTheLevelsAndTheMarker) {
  const auto text = util::read_file(fs::path(config::kSourceDir) / "context" / "README.md");
  ASSERT_TRUE(text.has_value()) << text.error().message;
  for (const char* needle : {"`none`", "`isa`", "`guide`", "`examples`", "compile", "sass="}) {
    EXPECT_NE(text->find(needle), std::string::npos)
        << "context/README.md does not mention " << needle;
  }
}

}  // namespace
}  // namespace ptxbench::context_docs
