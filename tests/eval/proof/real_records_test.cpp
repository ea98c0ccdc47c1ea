// The join on real data: CUPTI's records of one kernel, captured on an H200, against nvdisasm's
// disassembly of the same cubin (data/probe/README.md). Every reported pc must be an
// instruction offset of the disassembly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ptxbench/eval/proof/dynamic_sass.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::eval {
namespace {

std::string data(const std::string& name) {
  auto text = util::read_file(std::string(PTXBENCH_TEST_DATA_DIR) + "/probe/" + name);
  EXPECT_TRUE(text.has_value()) << name;
  return text ? *text : std::string();
}

TEST(RealRecords, CuptiPcOffsetsAreDisassemblyOffsets) {
  auto module = sass::parse_disassembly(data("matrix_kernels.sass"), arch::Arch::kHopper);
  ASSERT_TRUE(module.has_value()) << module.error().message;
  const sass::SassKernel* kernel = nullptr;
  for (const auto& k : module->kernels) {
    if (k.name == "matrix_ffma") kernel = &k;
  }
  ASSERT_NE(kernel, nullptr);
  auto report = probe_report_from_json(nlohmann::json::parse(data("matrix_ffma_report.json")));
  ASSERT_TRUE(report.has_value()) << report.error().message;
  ASSERT_EQ(report->records.size(), 400u);

  const KernelExecution joined = join_probe(*report, *kernel, arch::Arch::kHopper);
  EXPECT_EQ(joined.evidence, ExecutionEvidence::kMeasured) << joined.note;
  EXPECT_EQ(joined.unknown_pcs, 0);
  EXPECT_EQ(joined.foreign_records, 0);
  // An FFMA kernel: no tracked family executed.
  EXPECT_TRUE(joined.executions.empty());

  // The entry instruction ran once per warp: 64 CTAs of 8 warps, launched twice.
  bool saw_entry = false;
  for (const auto& record : report->records) {
    if (record.pc_offset != 0 || record.counts[0] == 0) continue;
    saw_entry = true;
    EXPECT_EQ(record.counts[0], 1024);
  }
  EXPECT_TRUE(saw_entry);
}

}  // namespace
}  // namespace ptxbench::eval
