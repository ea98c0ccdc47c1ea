// One kernel name, as the cubin, CUPTI and compute-sanitizer spell it.
#include "ptxbench/eval/kernel_name.hpp"

#include <gtest/gtest.h>

namespace ptxbench::eval {
namespace {

TEST(KernelName, MangledNamesGiveFunctionAndIdentifier) {
  const KernelName name("_ZN2ns4gemmILi128EEEvPfi");  // void ns::gemm<128>(float*, int)
  EXPECT_EQ(name.demangled(), "void ns::gemm<128>(float*, int)");
  EXPECT_EQ(name.function(), "ns::gemm<128>");
  EXPECT_EQ(name.identifier(), "gemm");
}

// The old normalisation cut at the first '(' and mapped every such kernel to "".
TEST(KernelName, AnonymousNamespaceKernelsKeepTheirNamespace) {
  const KernelName name("_ZN12_GLOBAL__N_16kernelEPf");  // (anonymous namespace)::kernel(float*)
  EXPECT_EQ(name.function(), "(anonymous namespace)::kernel");
  EXPECT_EQ(name.identifier(), "kernel");
  EXPECT_FALSE(name.same_kernel(KernelName("_ZN12_GLOBAL__N_15otherEPf")));
}

TEST(KernelName, ToolSpellingsOfOneKernelAreTheSameKernel) {
  const KernelName mangled("_ZN2ns4gemmILi128EEEvPfi");
  EXPECT_TRUE(mangled.same_kernel(KernelName("void ns::gemm<128>(float*, int)")));
  EXPECT_TRUE(mangled.same_kernel(KernelName("ns::gemm<128>(float*, int)")));
  EXPECT_FALSE(mangled.same_kernel(KernelName("ns::gemm<64>(float*, int)")));
}

// compute-sanitizer's reports spell the anonymous namespace "<unnamed>".
TEST(KernelName, TheSanitizersSpellingOfTheAnonymousNamespaceIsTheSameKernel) {
  const KernelName mangled("_ZN12_GLOBAL__N_114write_far_awayEP13__nv_bfloat16");
  EXPECT_TRUE(mangled.same_kernel(KernelName("<unnamed>::write_far_away(__nv_bfloat16 *)")));
  EXPECT_FALSE(mangled.same_kernel(KernelName("<unnamed>::write_near(__nv_bfloat16 *)")));
}

TEST(KernelName, UnmangledCNamesStandForThemselves) {
  const KernelName name("nvjet_hsh_256x128_64x4_2x1_v_bz_coopA_TNN");
  EXPECT_EQ(name.function(), name.given());
  EXPECT_EQ(name.identifier(), name.given());
}

TEST(KernelName, ABareIdentifierNamesTheKernelThatHasIt) {
  const auto own = kernel_names({"_ZN2ns4gemmILi128EEEvPfi", "_Z6reducePf"});
  EXPECT_TRUE(names_one_of(KernelName("gemm"), own));
  EXPECT_TRUE(names_one_of(KernelName("reduce(float*)"), own));
  EXPECT_FALSE(names_one_of(KernelName("cudnn_generated_fort_native_sdpa_sm90"), own));
  EXPECT_FALSE(names_one_of(KernelName("other::gemm<128>(float*, int)"), own));
}

}  // namespace
}  // namespace ptxbench::eval
