// compute-sanitizer output with lines of a megabyte (a program printing one, a huge kernel name
// in a location): read like any other line. A regex matcher recursing per character overflowed
// the stack on such lines and took the judging process down.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "ptxbench/eval/sanitize/sanitizer.hpp"

namespace ptxbench::eval {
namespace {

const std::string kMegabyte(1u << 20, 'a');

SanitizerReport report_with_lines(std::vector<std::string> lines) {
  SanitizerReport report;
  SanitizerRun run;
  run.outcome = SanitizerOutcome::kErrors;
  run.summary.errors = 1;
  run.summary.first_errors = std::move(lines);
  report.runs.push_back(run);
  return report;
}

TEST(SanitizerLongLines, SummariesAroundAMegabyteLine) {
  const auto summary = parse_sanitizer_output(
      "========= " + kMegabyte + "\n" + "========= ERROR SUMMARY: " + std::string(1u << 20, '1') +
      " errors\n" + "========= ERROR SUMMARY: " + std::string(1u << 20, ' ') + "\n" +
      "========= RACECHECK SUMMARY: " + std::string(1u << 20, '(') + " 3 errors" + "\n" +
      "========= ERROR SUMMARY: 2 errors\n");
  EXPECT_EQ(summary.errors, 2);
  ASSERT_FALSE(summary.first_errors.empty());
  EXPECT_EQ(summary.first_errors.front().size(), kMegabyte.size());
}

TEST(SanitizerLongLines, RacecheckSummaryAfterAMegabyteOfParentheses) {
  const auto summary = parse_sanitizer_output(
      "========= RACECHECK SUMMARY: " + std::string(1u << 20, '(') + "( 1 error, 2 warnings)\n");
  EXPECT_EQ(summary.errors, 1);
  EXPECT_EQ(summary.warnings, 2);
}

TEST(SanitizerLongLines, LocationsWithAMegabyteName) {
  auto report =
      report_with_lines({"Invalid __global__ write of size 4 bytes",
                         fmt::format("at {}+0x1c0 in candidate.cu:12", kMegabyte),
                         fmt::format("{} at at at at {}", std::string(1u << 19, 'x'), kMegabyte)});
  const auto named = kernels_in_errors(report);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0], kMegabyte);
  EXPECT_FALSE(errors_in_candidate_code(report, {"_Z6kernelv"}, "other.cu"));
  std::string frames;
  for (int i = 0; i < 40000; ++i) frames += "Device Frame: k" + std::to_string(i) + " ";
  EXPECT_FALSE(errors_in_candidate_code(report_with_lines({frames}), {"_Z6kernelv"}, ""));
  EXPECT_FALSE(errors_in_candidate_code(report_with_lines({frames + "+0x10"}), {"_Z6kernelv"}, ""));
}

// The scanners read the forms the tool prints exactly as before.
TEST(SanitizerLongLines, SummaryForms) {
  EXPECT_EQ(parse_sanitizer_output("========= ERROR SUMMARY: 1 error\n").errors, 1);
  EXPECT_EQ(parse_sanitizer_output("========= ERROR SUMMARY:12,345 errors  \n").errors, 12345);
  EXPECT_FALSE(parse_sanitizer_output("========= ERROR SUMMARY: 30 errors were not printed\n")
                   .errors.has_value());
  EXPECT_FALSE(parse_sanitizer_output("========= ERROR SUMMARY: 3errors\n").errors.has_value());
  const auto race = parse_sanitizer_output(
      "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning) (2 errors, 3 "
      "warnings) trailing\n");
  EXPECT_EQ(race.errors, 2);  // the last parenthesis that reads as counts
  EXPECT_EQ(race.warnings, 3);
  const auto names = kernels_in_errors(report_with_lines(
      {"Write access at k1(int)+0x10 and Read access at k2 (x)+0xff [2 hazards] data at 0x10"}));
  EXPECT_EQ(names, (std::vector<std::string>{"k1(int)", "k2 (x)"}));
}

}  // namespace
}  // namespace ptxbench::eval
