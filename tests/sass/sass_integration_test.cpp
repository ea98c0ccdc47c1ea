// Real nvcc for sm_90a / sm_100a and the wheels' cuobjdump + nvdisasm on the test candidates of
// tests/compile/data: the families in their SASS are the ones their PTX asks for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/sass/sass.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::sass {
namespace {
using arch::Arch;

struct Disassembled {
  compile::CompileOutput compiled;
  util::Expected<SassModule> module = util::make_error("not disassembled");
};

// ctest runs each test in its own process: compile what a test needs on first use.
class RealSass : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = compile::find_nvcc();
    if (!nvcc_) GTEST_SKIP() << "nvcc is not installed: " << nvcc_.error().message;
  }

  const Disassembled& disassembled(const std::string& name, Arch arch) {
    static std::map<std::string, Disassembled> cache;
    static util::TempDir dir("ptxbench-sass-test-");
    auto it = cache.find(name);
    if (it != cache.end()) return it->second;
    auto source = util::read_file(std::string(PTXBENCH_CANDIDATES_DIR) + "/" + name + ".cu");
    if (!source) throw std::runtime_error(source.error().message);
    util::SystemProcessRunner runner;
    Disassembled out;
    out.compiled =
        compile::compile_candidate(runner, {.nvcc = *nvcc_}, arch, *source, dir.path() / name);
    if (out.compiled.succeeded)
      out.module = disassemble(runner, out.compiled.shared_object, arch, dir.path() / name);
    return cache.emplace(name, std::move(out)).first->second;
  }

  static const SassModule& module_of(const Disassembled& d) {
    if (!d.compiled.succeeded) throw std::runtime_error("compile failed:\n" + d.compiled.log);
    if (!d.module) throw std::runtime_error(d.module.error().message);
    return *d.module;
  }

 private:
  util::Expected<std::filesystem::path> nvcc_ = util::make_error("not looked up");
};

TEST_F(RealSass, WgmmaTmaMbarrierCandidateShowsGmmaTmaAndSyncs) {
  const auto& module = module_of(disassembled("hopper_wgmma_tma", Arch::kHopper));
  ASSERT_EQ(module.kernels.size(), 1u);
  EXPECT_THAT(module.kernels[0].name, ::testing::HasSubstr("gemm_tma_wgmma"));
  EXPECT_GT(module.family_count("GMMA"), 0);
  EXPECT_GT(module.family_count("TMA"), 0);
  EXPECT_GT(module.family_count("SYNCS"), 0);
  EXPECT_GT(module.family_count("WARPGROUP"), 0);
  // The wgmma shape survives into SASS and gives the FLOPs of one instruction.
  bool found_shape = false;
  for (const auto& instruction : module.kernels[0].instructions) {
    if (instruction.family == "GMMA") {
      EXPECT_EQ(instruction.opcode, "HGMMA.64x128x16.F32.BF16");
      EXPECT_EQ(flops_per_execution(instruction.opcode), 2.0 * 64 * 128 * 16);
      found_shape = true;
    }
  }
  EXPECT_TRUE(found_shape);
  EXPECT_THAT(module.tool_version, ::testing::HasSubstr("release"));

  // Offsets are those of the cubin: one 16-byte instruction after another from 0.
  const auto& instructions = module.kernels[0].instructions;
  ASSERT_FALSE(instructions.empty());
  EXPECT_EQ(instructions.front().offset, 0u);
  for (std::size_t i = 1; i < instructions.size(); ++i) {
    ASSERT_EQ(instructions[i].offset, instructions[i - 1].offset + 16) << i;
  }

  // The extracted cubin, disassembled on its own, gives the same kernels.
  ASSERT_TRUE(std::filesystem::exists(module.cubin)) << module.cubin;
  util::SystemProcessRunner runner;
  util::TempDir work;
  auto from_cubin = disassemble(runner, module.cubin, Arch::kHopper, work.path());
  ASSERT_TRUE(from_cubin.has_value()) << from_cubin.error().message;
  ASSERT_EQ(from_cubin->kernels.size(), 1u);
  EXPECT_EQ(from_cubin->kernels[0].family_counts, module.kernels[0].family_counts);
}

TEST_F(RealSass, MmaSyncCandidateShowsNoHopperFamily) {
  const auto& module = module_of(disassembled("ampere_mma_sync", Arch::kHopper));
  ASSERT_EQ(module.kernels.size(), 1u);
  for (const auto& family : tracked_families(Arch::kHopper)) {
    EXPECT_EQ(module.family_count(family), 0) << family;
  }
  // It is a tensor-core kernel all the same: the parse sees its HMMA instructions.
  const auto& instructions = module.kernels[0].instructions;
  EXPECT_TRUE(std::any_of(instructions.begin(), instructions.end(),
                          [](const SassInstruction& i) { return i.opcode.starts_with("HMMA."); }));
}

TEST_F(RealSass, Tcgen05CandidateShowsTheBlackwellFamilies) {
  const auto& module = module_of(disassembled("blackwell_tcgen05", Arch::kBlackwell));
  ASSERT_EQ(module.kernels.size(), 1u);
  EXPECT_GT(module.family_count("UTCMMA"), 0);
  EXPECT_GT(module.family_count("UTCBAR"), 0);
  EXPECT_GT(module.family_count("TMEM"), 0);
  EXPECT_GT(module.family_count("TMA"), 0);
  EXPECT_GT(module.family_count("SYNCS"), 0);
  EXPECT_THAT(module.cubin.filename().string(), ::testing::EndsWith(".sm_100a.cubin"));
}

TEST(Disassemble, ABinaryWithoutCubinIsAnError) {
  util::SystemProcessRunner runner;
  util::TempDir work;
  util::write_file_atomic(work.path() / "not_cuda.so", "plain bytes");
  auto module = disassemble(runner, work.path() / "not_cuda.so", Arch::kHopper, work.path());
  EXPECT_FALSE(module.has_value());
}

}  // namespace
}  // namespace ptxbench::sass
