// Parsing nvdisasm and cuobjdump -sass text (excerpts of real nvcc 13.0 output) and classifying
// opcodes into families.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "ptxbench/sass/sass.hpp"

namespace ptxbench::sass {
namespace {
using arch::Arch;

// nvdisasm -c of an sm_100a cubin.
constexpr std::string_view kNvdisasm = R"sass(	.target	sm_100a

	.elftype	@"ET_EXEC"


//--------------------- .text._Z1kPjmj            --------------------------
	.section	.text._Z1kPjmj,"ax",@progbits
	.align	128
        .global         _Z1kPjmj
        .type           _Z1kPjmj,@function
_Z1kPjmj:
.text._Z1kPjmj:
        /*0000*/                   LDC R1, c[0x0][0x37c] ;
        /*0090*/                   STTM tmem[UR4], R2 ;
.L_x_0:
        /*00b0*/               @P0 ELECT P1, URZ, PT ;
        /*00c0*/                   UTCCP.T.S tmem[UR4], gdesc[UR6] ;
        /*0b40*/                   UTCHMMA gdesc[UR10], gdesc[UR14], tmem[UR12], tmem[UR28], idesc[UR29], UPT ;
        /*0cc0*/                   UTCBAR [UR40], URZ ;
        /*2380*/                   LDTM.x32 R4, tmem[UR5] ;
        /*0230*/                   UTCATOMSWS.FIND_AND_SET.ALIGN UP0, UR4, UR4 ;
        /*07d0*/                   UTMALDG.2D [UR4], [UR8] ;
        /*0990*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR12+0x6000], R3 ;
        /*0170*/                   BRA `(.L_x_2);
        /*0180*/                   NOP;
//--------------------- .text._Z6secondv          --------------------------
	.section	.text._Z6secondv,"ax",@progbits
        /*0000*/                   EXIT ;
)sass";

// cuobjdump -sass of a shared object: an empty sm_90a cubin, the real one, and an sm_100a one.
constexpr std::string_view kCuobjdump = R"sass(
Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit
identifier = candidate.cu

	code for sm_90a
	.target	sm_90a


Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
host = linux
compile_size = 64bit
identifier = candidate.cu

	code for sm_90a
	.target	sm_90a

		Function : _Z4gemmv
	.headerflags	@"EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                  /* 0x00000a00ff017b82 */
                                                                                           /* 0x000fe20000000800 */
        /*0300*/                   FENCE.VIEW.ASYNC.S ;                                    /* 0x00000000000073c6 */
                                                                                           /* 0x000fe20000000800 */
        /*0310*/                   SYNCS.EXCH.64 URZ, [UR4+0x6000], UR8 ;                  /* 0x00600008043f75b2 */
        /*07a0*/                   SYNCS.ARRIVE.TRANS64 RZ, [UR4+0x6000], R2 ;             /* 0x00600002ffff79a7 */
        /*07d0*/                   UTMALDG.2D [UR4], [UR8] ;                               /* 0x00000004080075b4 */
        /*0a20*/                   WARPGROUP.ARRIVE ;                                      /* 0x00000000000079c5 */
        /*0a80*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR16], R24, UP0 ;   /* 0x01e00000101879f0 */
        /*0c70*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR28], R24, gsb0 ;  /* 0x01e000001c1879f0 */
        /*0c80*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;                         /* 0x00008000000079c5 */
        /*0c90*/              @!P1 EXIT ;                                                  /* 0x000000000000994d */
		..........


Fatbin elf code:
================
arch = sm_100a
code version = [1,8]

		Function : _Z4gemmv
        /*0000*/                   UTCHMMA gdesc[UR10], gdesc[UR14], tmem[UR12], tmem[UR28], idesc[UR29], UPT ;
)sass";

TEST(ParseDisassembly, NvdisasmKernelsOffsetsAndFamilies) {
  auto module = parse_disassembly(kNvdisasm, Arch::kBlackwell);
  ASSERT_TRUE(module.has_value()) << module.error().message;
  ASSERT_EQ(module->kernels.size(), 2u);
  const auto& k = module->kernels[0];
  EXPECT_EQ(k.name, "_Z1kPjmj");
  ASSERT_EQ(k.instructions.size(), 12u);
  EXPECT_EQ(k.instructions[1].offset, 0x90u);
  EXPECT_EQ(k.instructions[1].opcode, "STTM");
  EXPECT_EQ(k.instructions[2].opcode, "ELECT");  // the guard is not the opcode
  EXPECT_EQ(k.instructions[4].opcode, "UTCHMMA");
  EXPECT_EQ(k.instructions[4].family, "UTCMMA");
  EXPECT_EQ(k.instructions[11].opcode, "NOP");  // nvdisasm writes "NOP;"
  EXPECT_EQ(k.family_counts.at("UTCMMA"), 1);
  EXPECT_EQ(k.family_counts.at("UTCBAR"), 1);
  EXPECT_EQ(k.family_counts.at("TMEM"), 4);  // STTM, UTCCP, LDTM, UTCATOMSWS
  EXPECT_EQ(k.family_counts.at("TMA"), 1);
  EXPECT_EQ(k.family_counts.at("SYNCS"), 1);
  EXPECT_EQ(module->kernels[1].name, "_Z6secondv");
  EXPECT_TRUE(module->kernels[1].family_counts.empty());
  EXPECT_EQ(module->family_count("TMEM"), 4);
  EXPECT_NE(module->find_kernel("_Z6secondv"), nullptr);
}

TEST(ParseDisassembly, CuobjdumpKeepsOnlyTheArchAndIgnoresEncodings) {
  auto hopper = parse_disassembly(kCuobjdump, Arch::kHopper);
  ASSERT_TRUE(hopper.has_value()) << hopper.error().message;
  ASSERT_EQ(hopper->kernels.size(), 1u);
  const auto& k = hopper->kernels[0];
  EXPECT_EQ(k.instructions.size(), 10u);
  EXPECT_EQ(k.instructions.back().opcode, "EXIT");
  EXPECT_EQ(k.instructions.back().offset, 0xc90u);
  EXPECT_EQ(k.family_counts.at("GMMA"), 2);
  EXPECT_EQ(k.family_counts.at("SYNCS"), 2);
  EXPECT_EQ(k.family_counts.at("TMA"), 1);
  EXPECT_EQ(k.family_counts.at("WARPGROUP"), 2);
  EXPECT_EQ(k.instructions[6].opcode, "HGMMA.64x128x16.F32.BF16");

  auto blackwell = parse_disassembly(kCuobjdump, Arch::kBlackwell);
  ASSERT_TRUE(blackwell.has_value()) << blackwell.error().message;
  ASSERT_EQ(blackwell->kernels.size(), 1u);
  EXPECT_EQ(blackwell->family_count("UTCMMA"), 1);
  EXPECT_EQ(blackwell->family_count("GMMA"), 0);
}

TEST(ParseDisassembly, InstructionsOutsideAFunctionAreAnError) {
  auto module = parse_disassembly("        /*0000*/   EXIT ;\n", Arch::kHopper);
  ASSERT_FALSE(module.has_value());
  EXPECT_THAT(module.error().message, ::testing::HasSubstr("line 1"));
  auto empty = parse_disassembly("", Arch::kHopper);
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->kernels.empty());
}

struct FamilyCase {
  std::string opcode;
  Arch arch;
  std::string family;
};

class FamilyOf : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(FamilyOf, Classifies) {
  EXPECT_EQ(family_of(GetParam().opcode, GetParam().arch), GetParam().family) << GetParam().opcode;
}

INSTANTIATE_TEST_SUITE_P(
    Spellings, FamilyOf,
    ::testing::Values(FamilyCase{"HGMMA.64x128x16.F32.BF16", Arch::kHopper, "GMMA"},
                      FamilyCase{"QGMMA.64x256x32.F32.E4M3.E4M3", Arch::kHopper, "QGMMA"},
                      FamilyCase{"IGMMA.64x64x32.S32.S8.S8", Arch::kHopper, "GMMA"},
                      FamilyCase{"UTMALDG.2D.MULTICAST", Arch::kHopper, "TMA"},
                      FamilyCase{"UTMASTG.3D", Arch::kHopper, "TMA"},
                      FamilyCase{"UTMACMDFLUSH", Arch::kHopper, "TMA"},
                      FamilyCase{"UBLKCP.S.G", Arch::kHopper, "TMA"},
                      FamilyCase{"SYNCS.PHASECHK.TRANS64.TRYWAIT", Arch::kHopper, "SYNCS"},
                      FamilyCase{"WARPGROUP.ARRIVE", Arch::kHopper, "WARPGROUP"},
                      FamilyCase{"USETMAXREG.TRY_ALLOC.CTAPOOL", Arch::kHopper, "SETMAXNREG"},
                      FamilyCase{"STSM.16.M88", Arch::kHopper, "STSM"},
                      FamilyCase{"HMMA.16816.F32.BF16", Arch::kHopper, ""},
                      FamilyCase{"LDSM.16.M88.4", Arch::kHopper, ""},
                      FamilyCase{"BAR.SYNC.DEFER_BLOCKING", Arch::kHopper, ""},
                      FamilyCase{"UTCHMMA", Arch::kHopper, ""},
                      FamilyCase{"UTCHMMA", Arch::kBlackwell, "UTCMMA"},
                      FamilyCase{"UTCQMMA.2CTA", Arch::kBlackwell, "UTCQMMA"},
                      FamilyCase{"UTCQMMA", Arch::kBlackwell, "UTCQMMA"},
                      FamilyCase{"UTCBAR.2CTA.MULTICAST", Arch::kBlackwell, "UTCBAR"},
                      FamilyCase{"LDTM.x32", Arch::kBlackwell, "TMEM"},
                      FamilyCase{"STTM.x16", Arch::kBlackwell, "TMEM"},
                      FamilyCase{"UTCATOMSWS.AND", Arch::kBlackwell, "TMEM"},
                      FamilyCase{"UTMALDG.2D", Arch::kBlackwell, "TMA"},
                      FamilyCase{"SYNCS.EXCH.64", Arch::kBlackwell, "SYNCS"},
                      FamilyCase{"HGMMA.64x128x16.F32.BF16", Arch::kBlackwell, ""}),
    [](const ::testing::TestParamInfo<FamilyCase>& param) {
      std::string name = param.param.opcode + "_" + std::string(arch::to_string(param.param.arch));
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

TEST(TrackedFamilies, EveryClassifiedFamilyIsListed) {
  for (auto a : arch::all()) {
    for (const auto* opcode : {"HGMMA.64x8x16.F32.BF16", "UTMALDG.2D", "SYNCS.EXCH.64",
                               "WARPGROUP.ARRIVE", "USETMAXREG", "STSM.16.M88", "UTCHMMA", "UTCBAR",
                               "LDTM.x32", "QGMMA.64x128x32.F32.E4M3.E4M3", "UTCQMMA"}) {
      const auto family = family_of(opcode, a);
      if (!family.empty()) {
        EXPECT_THAT(tracked_families(a), ::testing::Contains(family));
      }
    }
  }
  EXPECT_TRUE(is_tensor_core_family("GMMA"));
  EXPECT_TRUE(is_tensor_core_family("UTCMMA"));
  EXPECT_TRUE(is_tensor_core_family("QGMMA"));
  EXPECT_TRUE(is_tensor_core_family("UTCQMMA"));
  EXPECT_FALSE(is_tensor_core_family("TMA"));
}

TEST(FlopsPerExecution, ReadsTheShapeModifier) {
  EXPECT_EQ(flops_per_execution("HGMMA.64x128x16.F32.BF16"), 2.0 * 64 * 128 * 16);
  EXPECT_EQ(flops_per_execution("HGMMA.64x256x16.F32.BF16"), 2.0 * 64 * 256 * 16);
  EXPECT_EQ(flops_per_execution("QGMMA.64x128x32.F32.E4M3.E4M3"), 2.0 * 64 * 128 * 32);
  EXPECT_EQ(flops_per_execution("UTCHMMA"), std::nullopt);  // the shape lives in the descriptor
  EXPECT_EQ(flops_per_execution("HMMA.16816.F32.BF16"), std::nullopt);
  EXPECT_EQ(flops_per_execution("HGMMA"), std::nullopt);
  EXPECT_EQ(flops_per_execution("FFMA"), std::nullopt);
}

// Lines built from the pieces of real disassembly, shuffled and damaged, never crash the parser.
TEST(ParseDisassembly, RandomTextNeverCrashes) {
  const std::vector<std::string> pieces{
      "        /*0a80*/  HGMMA.64x128x16.F32.BF16 R24, gdesc[UR16] ;\n",
      "\t\tFunction : _Z1kv\n",
      "\t.section\t.text._Z1kv,\"ax\",@progbits\n",
      "arch = sm_90a\n",
      "arch = sm_100a\n",
      "/* 0x000fe20000000800 */\n",
      "        /*zz*/ NOP ;\n",
      "        /**/ ;\n",
      "        /*0010*/ @P0\n",
      "        /*ffffffffffff*/ EXIT ;\n",
      "\n",
      "/*",
      "Function : \n"};
  std::mt19937 rng(99);
  for (int i = 0; i < 5000; ++i) {
    std::string text;
    const int n = static_cast<int>(rng() % 30);
    for (int j = 0; j < n; ++j) text += pieces[rng() % pieces.size()];
    if (!text.empty() && i % 3 == 0) text[rng() % text.size()] = static_cast<char>(rng());
    for (auto a : arch::all()) {
      ASSERT_NO_THROW((void)parse_disassembly(text, a)) << text;
    }
  }
}

}  // namespace
}  // namespace ptxbench::sass
