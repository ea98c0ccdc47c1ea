#include "ptxbench/report/compile_error_kind.hpp"

#include <gtest/gtest.h>

namespace ptxbench::report {
namespace {

struct Case {
  const char* log;
  CompileErrorKind kind;
};

class ClassifiesFirstErrorLine : public ::testing::TestWithParam<Case> {};

TEST_P(ClassifiesFirstErrorLine, FromCompilerOutput) {
  EXPECT_EQ(classify_compile_error("nvcc exited with 1", GetParam().log), GetParam().kind)
      << GetParam().log;
}

INSTANTIATE_TEST_SUITE_P(
    NvccOutput, ClassifiesFirstErrorLine,
    ::testing::Values(
        Case{"k.cu(12): error: expected a \";\"\n", CompileErrorKind::kSyntax},
        Case{"k.cu(40): error: identifier \"wgmma_fence\" is undefined\n",
             CompileErrorKind::kUndefinedIdentifier},
        Case{"k.cu(7): error: class \"Smem\" has no member \"bar\"\n",
             CompileErrorKind::kUndefinedIdentifier},
        Case{"k.cu(9): error: argument of type \"int *\" is incompatible with parameter of type "
             "\"float *\"\n",
             CompileErrorKind::kType},
        Case{"k.cu(3): error: too few arguments in function call\n", CompileErrorKind::kType},
        Case{"ptxas /tmp/tmpxft_1.ptx, line 88; error   : Unknown modifier '.sp'\n"
             "ptxas fatal   : Ptx assembly aborted due to errors\n",
             CompileErrorKind::kPtxas},
        Case{"nvlink error   : Undefined reference to '_Z3foov' in 'k.o'\n",
             CompileErrorKind::kLinker},
        Case{"/usr/bin/ld: k.o: in function `run': undefined reference to `cublasCreate_v2'\n"
             "collect2: error: ld returned 1 exit status\n",
             CompileErrorKind::kLinker},
        // The first error decides: the later one is a consequence.
        Case{"k.cu(5): error: identifier \"T\" is undefined\nk.cu(6): error: expected a \")\"\n",
             CompileErrorKind::kUndefinedIdentifier},
        Case{"k.cu(5): warning: variable \"x\" was declared but never referenced\n"
             "k.cu(9): error: this declaration has no storage class or type specifier\n",
             CompileErrorKind::kOther},
        Case{"", CompileErrorKind::kOther}));

TEST(CompileErrorKind, TimeoutComesFromTheStageMessage) {
  EXPECT_EQ(
      classify_compile_error("nvcc timed out after 120 s", "k.cu(1): error: expected a \";\""),
      CompileErrorKind::kTimeout);
}

TEST(CompileErrorKind, StageMessageUsedWhenTheLogHasNoErrorLine) {
  EXPECT_EQ(classify_compile_error("error: identifier \"x\" is undefined", "(log truncated)"),
            CompileErrorKind::kUndefinedIdentifier);
}

TEST(CompileErrorKind, NamesRoundTrip) {
  for (auto kind : kAllCompileErrorKinds) {
    EXPECT_EQ(parse_compile_error_kind(to_string(kind)), kind);
    EXPECT_EQ(kAllCompileErrorKinds[compile_error_index(kind)], kind);
  }
  EXPECT_FALSE(parse_compile_error_kind("bogus"));
}

}  // namespace
}  // namespace ptxbench::report
