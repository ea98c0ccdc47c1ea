// Plays the compile stages' tools for scheduler tests: nvcc writes a tiny ELF object with the
// imports a test chose, cuobjdump a cubin, nvdisasm prints a little Hopper SASS.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "elf_builder.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::testing {

constexpr std::string_view kHopperSass = R"sass(
	.section	.text._Z4gemmv,"ax",@progbits
        /*0000*/                   SYNCS.EXCH.64 URZ, [UR4+0x6000], UR8 ;
        /*0010*/                   UTMALDG.2D [UR4], [UR8] ;
        /*0020*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR16], R24, UP0 ;
        /*0030*/                   EXIT ;
)sass";

// Plays nvcc, cuobjdump and nvdisasm: the compile writes a tiny ELF object with the imports the
// test chose, extraction writes a cubin, disassembly prints kHopperSass.
class FakeToolchain final : public util::ProcessRunner {
 public:
  std::string compile_error;  // non-empty: nvcc fails with this on stderr
  std::vector<std::string> needed{"libtvm_ffi.so", "libcudart.so.13", "libc.so.6"};
  std::vector<testing::ElfSymbol> symbols{{.name = "TVMFFIEnvGetStream"},
                                          {.name = "__tvm_ffi_run", .defined = true}};
  std::string ptxas_output =
      "ptxas info    : Compiling entry function '_Z4gemmv' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z4gemmv\n"
      "    0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 1 barriers\n";
  std::chrono::milliseconds compile_time{0};
  std::atomic<int> compiles{0};
  std::atomic<int> running{0};
  std::atomic<int> most_running{0};
  std::optional<std::uint64_t> nvcc_memory_limit;  // of the last compile
  std::chrono::milliseconds nvcc_timeout{0};

  util::ProcessResult run(const util::ProcessSpec& spec) override {
    const auto tool = std::filesystem::path(spec.argv.front()).filename().string();
    const bool version = spec.argv.size() == 2 && spec.argv[1] == "--version";
    if (version) return ok("Cuda compilation tools, release 13.0, V13.0.88\n");
    if (tool == "nvcc") return compile(spec);
    if (tool == "cuobjdump") {
      util::write_file_atomic(spec.working_dir / "candidate.sm_90a.cubin", "cubin");
      util::write_file_atomic(spec.working_dir / "candidate.sm_100a.cubin", "cubin");
      return ok("");
    }
    if (tool == "nvdisasm") return ok(std::string(kHopperSass));
    return util::ProcessResult{.spawn_error = tool + ": unexpected"};
  }

 private:
  static util::ProcessResult ok(std::string out) {
    return util::ProcessResult{.started = true, .exit_code = 0, .stdout_text = std::move(out)};
  }

  util::ProcessResult compile(const util::ProcessSpec& spec) {
    ++compiles;
    nvcc_memory_limit = spec.address_space_limit_bytes;
    nvcc_timeout = spec.timeout;
    const int now = ++running;
    int seen = most_running.load();
    while (now > seen && !most_running.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(compile_time);
    --running;
    if (!compile_error.empty()) {
      return util::ProcessResult{.started = true, .exit_code = 2, .stderr_text = compile_error};
    }
    util::write_file_atomic(spec.working_dir / "candidate.so",
                            testing::make_shared_object(needed, symbols));
    // -MD -MF candidate.d: the rule the include lint reads.
    if (std::find(spec.argv.begin(), spec.argv.end(), "-MD") != spec.argv.end())
      util::write_file_atomic(spec.working_dir / "candidate.d", "candidate.so : candidate.cu\n");
    return util::ProcessResult{.started = true, .exit_code = 0, .stderr_text = ptxas_output};
  }
};

}  // namespace ptxbench::testing
