#include "ptxbench/compile/log_scrub.hpp"

#include <gtest/gtest.h>

namespace ptxbench::compile {
namespace {

TEST(ScrubCompilerLog, KeepsTheCandidatesOwnDiagnostics) {
  const std::string log =
      "candidate.cu(3): error: identifier \"x\" is undefined\n"
      "    int y = x;\n"
      "            ^\n";
  EXPECT_EQ(scrub_compiler_log(log, "/runs/a/turn-1"), log);
}

TEST(ScrubCompilerLog, DropsPathsAndQuotedLinesOfOutsideFiles) {
  const std::string log =
      "In file included from /usr/local/cuda/include/cuda_runtime.h:12,\n"
      "                 from candidate.cu:1:\n"
      "/etc/secret.h:1:5: error: expected ';'\n"
      "    1 | root:$6$hash:19000:0:99999:7:::\n"
      "      |     ^\n"
      "/runs/a/turn-1/candidate.cu(7): warning: unused\n"
      "    int z;\n";
  const std::string scrubbed = scrub_compiler_log(log, "/runs/a/turn-1");
  EXPECT_EQ(scrubbed.find("root:"), std::string::npos) << scrubbed;
  EXPECT_EQ(scrubbed.find("/usr/local"), std::string::npos) << scrubbed;
  EXPECT_EQ(scrubbed.find("/etc/"), std::string::npos) << scrubbed;
  EXPECT_NE(scrubbed.find("<outside the candidate>/secret.h:1:5: error: expected ';'"),
            std::string::npos)
      << scrubbed;
  EXPECT_NE(scrubbed.find("candidate.cu(7): warning: unused\n    int z;"), std::string::npos)
      << scrubbed;
  EXPECT_EQ(scrubbed.find("/runs/a"), std::string::npos) << scrubbed;
}

TEST(ScrubCompilerLog, EdgStyleLocationsOutsideAreScrubbed) {
  const std::string log =
      "/usr/include/x86_64-linux-gnu/bits/stdio.h(40): error: bad\n"
      "    secret line\n"
      "  ^\n"
      "1 error detected in the compilation of \"candidate.cu\".\n";
  const std::string scrubbed = scrub_compiler_log(log, "/w");
  EXPECT_EQ(scrubbed,
            "<outside the candidate>/stdio.h(40): error: bad\n"
            "1 error detected in the compilation of \"candidate.cu\".\n");
}

}  // namespace
}  // namespace ptxbench::compile
