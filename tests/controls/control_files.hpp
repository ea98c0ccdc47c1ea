// The anti-gaming controls of tests/controls: single-file candidates that each plant one way of
// cheating (or one planted bug for the sanitizer), with a first line
//   // ptxbench-control: task=<task> arch=<arch> expect=<VERDICT>[|<VERDICT>...] why=<text>
// naming the verdicts that count as caught. Every control except honest_gemm.cu copies the
// honest base (honest_gemm.inc) verbatim between its control-base markers.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::controls_test {

struct ControlHeader {
  std::string task;
  arch::Arch arch = arch::Arch::kHopper;
  std::vector<std::string> expect;  // verdict names, any of which is right
  std::string why;
};

struct ControlFile {
  std::filesystem::path path;
  std::string text;
  ControlHeader header;
};

std::filesystem::path controls_dir();
util::Expected<ControlHeader> parse_control_header(std::string_view text);
util::Expected<std::vector<ControlFile>> load_controls();
// The text between the control-base markers, markers included; empty when there are none.
std::string honest_base_of(std::string_view text);

}  // namespace ptxbench::controls_test
