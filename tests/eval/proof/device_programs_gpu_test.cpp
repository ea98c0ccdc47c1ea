// GPU tests of the SASS-metrics session and of the sanitizer judgement on the device programs of
// tests/eval/proof/device, built here with nvcc: exact GMMA and TMA counts of a known TMA +
// wgmma kernel, the first-kernel rule, CRC attribution, a kernel in a dlopen'ed library; each
// planted memory or race defect caught and the clean kernels (TMA and wgmma included) not.
// Skips, with the reason, without nvcc or a Hopper GPU.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/eval/sanitize/sanitizer.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::eval {
namespace {

const std::filesystem::path kDevice =
    std::filesystem::path(PTXBENCH_TEST_DATA_DIR) / ".." / "device";
const std::filesystem::path kSource =
    std::filesystem::path(PTXBENCH_TEST_DATA_DIR) / ".." / ".." / ".." / ".." / "src";

// The programs, built once for all tests; `why` says what is missing when they are not.
struct Programs {
  util::TempDir dir{"ptxbench-device-programs-"};
  std::string why;
  bool built = false;
};

Programs& programs() {
  static Programs* built = [] {
    auto* p = new Programs;
    util::SystemProcessRunner runner;
    auto nvcc = compile::find_nvcc();
    if (!nvcc) {
      p->why = "nvcc is not installed";
      return p;
    }
    const util::ProcessResult gpu = runner.run({.argv = {"nvidia-smi", "-L"}});
    const bool hopper = gpu.stdout_text.find("H100") != std::string::npos ||
                        gpu.stdout_text.find("H200") != std::string::npos;
    if (!gpu.succeeded() || !hopper) {
      p->why = "no Hopper GPU (nvidia-smi -L)";
      return p;
    }
    const std::vector<std::string> common = {nvcc->string(),
                                             "-std=c++20",
                                             "-O2",
                                             "-gencode=arch=compute_90a,code=sm_90a",
                                             "-I" + kSource.string(),
                                             "-I" + kDevice.string()};
    auto build = [&](std::vector<std::string> extra) {
      util::ProcessSpec spec{.argv = common};
      spec.argv.insert(spec.argv.end(), extra.begin(), extra.end());
      spec.timeout = std::chrono::minutes(5);
      const util::ProcessResult result = runner.run(spec);
      if (!result.succeeded()) p->why = "nvcc failed: " + result.stderr_text;
      return result.succeeded();
    };
    const auto out = [p](const char* name) { return (p->dir.path() / name).string(); };
    p->built = build({(kDevice / "sass_metrics_check.cu").string(),
                      (kSource / "ptxbench/eval/proof/gpu/sass_metrics.cpp").string(), "-o",
                      out("sass_metrics_check"), "-lcuda", "-lcupti", "-ldl"}) &&
               build({"-shared", "-Xcompiler", "-fPIC", "-cudart", "shared",
                      (kDevice / "dso_kernel.cu").string(), "-o", out("libdso_kernel.so")}) &&
               build({(kDevice / "sanitizer_plants.cu").string(), "-o", out("sanitizer_plants"),
                      "-lcuda"});
    return p;
  }();
  return *built;
}

#define REQUIRE_PROGRAMS()                                 \
  do {                                                     \
    if (!programs().built) GTEST_SKIP() << programs().why; \
  } while (false)

// What sass_metrics_check printed for one scenario.
struct CheckOutput {
  std::string observed;
  int launches = 0;
  double max_abs_error = -1;
  std::map<std::string, std::uint32_t> file_crc;  // cubin file name -> CRC
  std::vector<std::string> metrics;
  struct Record {
    std::uint32_t crc;
    std::string function;
    std::uint32_t pc;
    std::vector<std::uint64_t> counts;
  };
  std::vector<Record> records;

  std::uint64_t total(std::size_t metric) const {
    std::uint64_t sum = 0;
    for (const auto& r : records) sum += r.counts.at(metric);
    return sum;
  }
};

CheckOutput run_check(const std::string& scenario) {
  util::SystemProcessRunner runner;
  util::ProcessSpec spec{
      .argv = {(programs().dir.path() / "sass_metrics_check").string(), scenario}};
  spec.env = {{"SASS_CHECK_DSO", (programs().dir.path() / "libdso_kernel.so").string()}};
  spec.timeout = std::chrono::seconds(60);
  const util::ProcessResult result = runner.run(spec);
  EXPECT_TRUE(result.succeeded()) << scenario << ": " << result.describe_end() << "\n"
                                  << result.stderr_text;
  CheckOutput out;
  std::istringstream lines(result.stdout_text);
  static const std::regex observed(R"(^observed (\S*) launches (\d+))");
  static const std::regex error(R"(^max_abs_error (\S+))");
  static const std::regex record(R"(^rec crc=(\d+) fn=(\S+) pc=0x([0-9a-f]+) counts=([0-9,]+))");
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, observed)) {
      out.observed = m[1];
      out.launches = std::stoi(m[2]);
    } else if (std::regex_search(line, m, error)) {
      out.max_abs_error = std::stod(m[1]);
    } else if (std::regex_search(line, m, record)) {
      CheckOutput::Record r{static_cast<std::uint32_t>(std::stoul(m[1])),
                            m[2],
                            static_cast<std::uint32_t>(std::stoul(m[3], nullptr, 16)),
                            {}};
      std::stringstream counts(m[4]);
      for (std::string c; std::getline(counts, c, ',');) r.counts.push_back(std::stoull(c));
      out.records.push_back(std::move(r));
    }
  }
  return out;
}

// Metric indices in default_sass_metric_names() order.
constexpr std::size_t kExecuted = 0, kGmma = 2, kTma = 3;

TEST(SassMetricsOnGpu, CountsTheWgmmaKernelExactly) {
  REQUIRE_PROGRAMS();
  const CheckOutput out = run_check("wgmma");
  EXPECT_LT(out.max_abs_error, 1e-3);  // the kernel computes the right product
  EXPECT_EQ(out.observed, "gemm_tma_wgmma");
  EXPECT_EQ(out.launches, 3);
  ASSERT_FALSE(out.records.empty()) << "CUPTI reported no record";
  // Per launch: 4 CTAs x 4 k-blocks x 4 wgmma, counted by each of the 4 warps; 2 TMA loads
  // per k-block by one warp. Three launches accumulate.
  EXPECT_EQ(out.total(kGmma), 3u * 256u);
  EXPECT_EQ(out.total(kTma), 3u * 32u);
  EXPECT_GT(out.total(kExecuted), out.total(kGmma));
  for (const auto& r : out.records) EXPECT_EQ(r.function, "gemm_tma_wgmma");
}

TEST(SassMetricsOnGpu, ObservesOnlyTheFirstKernelFunction) {
  REQUIRE_PROGRAMS();
  const CheckOutput out = run_check("seq");  // ffma, wgmma, ffma, wgmma
  EXPECT_NE(out.observed.find("gemm_ffma"), std::string::npos) << out.observed;
  ASSERT_FALSE(out.records.empty());
  EXPECT_EQ(out.total(kGmma), 0u);
  for (const auto& r : out.records) EXPECT_EQ(r.function, out.observed);
}

TEST(SassMetricsOnGpu, AnUntakenWgmmaBranchCountsNothingAndATokenWgmmaLittle) {
  REQUIRE_PROGRAMS();
  const CheckOutput untaken = run_check("untaken");
  ASSERT_FALSE(untaken.records.empty());
  EXPECT_EQ(untaken.total(kGmma), 0u);
  const CheckOutput single = run_check("single");
  ASSERT_FALSE(single.records.empty());
  EXPECT_EQ(single.total(kGmma), 4u * 4u);  // one wgmma per CTA, 4 warps each
}

TEST(SassMetricsOnGpu, AKernelOfADlopenedLibraryCarriesItsCubinsCrc) {
  REQUIRE_PROGRAMS();
  const CheckOutput out = run_check("dso");
  EXPECT_NE(out.observed.find("dso_ffma"), std::string::npos) << out.observed;
  ASSERT_FALSE(out.records.empty());
  const std::uint32_t crc = out.records.front().crc;
  for (const auto& r : out.records) EXPECT_EQ(r.crc, crc);
}

SanitizerReport sanitize(const std::string& mode, std::vector<SanitizerTool> tools) {
  util::SystemProcessRunner runner;
  SanitizerRequest request;
  request.program_argv = {(programs().dir.path() / "sanitizer_plants").string(), mode};
  request.tools = std::move(tools);
  return run_sanitizer(runner, request);
}

TEST(SanitizerOnGpu, PlantedDefectsAreCaughtAndCleanKernelsPass) {
  REQUIRE_PROGRAMS();
  if (!find_compute_sanitizer()) GTEST_SKIP() << "compute-sanitizer is not installed";
  const auto both = std::vector<SanitizerTool>{SanitizerTool::kMemcheck, SanitizerTool::kRacecheck};
  for (const char* mode : {"clean", "tma_wgmma"}) {
    const SanitizerReport report = sanitize(mode, both);
    ASSERT_EQ(report.runs.size(), 2u) << mode;
    for (const auto& run : report.runs) {
      EXPECT_EQ(run.outcome, SanitizerOutcome::kClean) << mode << ": " << report.message();
    }
  }
  // The read lands just past A, inside the next allocation: caught only thanks to --padding.
  for (const char* mode : {"oob_write", "oob_read"}) {
    const SanitizerReport report = sanitize(mode, {SanitizerTool::kMemcheck});
    EXPECT_TRUE(report.found_errors()) << mode << ": " << report.message();
  }
  const SanitizerReport race = sanitize("shared_race", both);
  ASSERT_EQ(race.runs.size(), 2u);
  EXPECT_EQ(race.runs[0].outcome, SanitizerOutcome::kClean) << race.message();  // memcheck
  EXPECT_EQ(race.runs[1].outcome, SanitizerOutcome::kErrors) << race.message();
}

}  // namespace
}  // namespace ptxbench::eval
