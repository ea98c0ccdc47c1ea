// What the sandbox costs per process and per verdict: the same program started plainly and
// inside the sandbox (worker policy, strict), and one nvcc compile both ways. A verdict starts
// one compile and a handful of worker processes (info, candidate, judge, time, probe, the
// sanitizer): the estimate below counts six. Usage: ptxbench-bench-sandbox [repeats] [file.cu]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "ptxbench/compile/compiler.hpp"
#include "ptxbench/sandbox/sandboxed_runner.hpp"
#include "ptxbench/util/fs.hpp"

namespace {

using namespace ptxbench;
using Clock = std::chrono::steady_clock;

double seconds_per_run(util::ProcessRunner& runner, const util::ProcessSpec& spec, int repeats) {
  const auto start = Clock::now();
  for (int i = 0; i < repeats; ++i) {
    auto result = runner.run(spec);
    if (!result.succeeded()) {
      fmt::print(stderr, "{} failed: {} {}\n", spec.argv.front(), result.describe_end(),
                 result.stderr_text);
      std::exit(1);
    }
  }
  return std::chrono::duration<double>(Clock::now() - start).count() / repeats;
}

double compile_seconds(util::ProcessRunner& runner, const compile::CompileOptions& options,
                       const std::string& code, const std::filesystem::path& dir) {
  auto out = compile::compile_candidate(runner, options, arch::Arch::kHopper, code, dir);
  if (!out.succeeded) {
    fmt::print(stderr, "compile failed: {}\n{}\n", out.failure, out.log);
    std::exit(1);
  }
  return out.seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  auto plain = std::make_shared<util::SystemProcessRunner>();
  sandbox::SandboxedProcessRunner boxed(plain, sandbox::worker_policy(sandbox::Mode::kStrict));
  fmt::print("sandbox: {}\n", boxed.description());
  const util::ProcessSpec trivial{.argv = {"true"}};
  const double bare = seconds_per_run(*plain, trivial, repeats);
  const double inside = seconds_per_run(boxed, trivial, repeats);
  fmt::print("process start: plain {:.1f} ms, sandboxed {:.1f} ms, overhead {:.1f} ms\n",
             bare * 1e3, inside * 1e3, (inside - bare) * 1e3);

  double compile_overhead = 0;
  auto nvcc = compile::find_nvcc();
  if (nvcc && argc > 2) {
    std::ifstream in(argv[2]);
    const std::string code((std::istreambuf_iterator<char>(in)), {});
    util::TempDir dir("ptxbench-bench-sandbox-");
    compile::CompileOptions options{.nvcc = *nvcc};
    auto boxed_compiler = std::make_shared<sandbox::SandboxedProcessRunner>(
        plain, sandbox::compiler_policy(sandbox::Mode::kStrict));
    compile_seconds(*plain, options, code, dir.path() / "warm-up");  // caches, page cache
    // Alternating, best of three each: nvcc's time varies more than the sandbox costs.
    double compile_plain = 1e9, compile_boxed = 1e9;
    for (int i = 0; i < 3; ++i) {
      options.sandbox = nullptr;
      compile_plain =
          std::min(compile_plain, compile_seconds(*plain, options, code, dir.path() / "plain"));
      options.sandbox = boxed_compiler;
      compile_boxed =
          std::min(compile_boxed, compile_seconds(*plain, options, code, dir.path() / "boxed"));
    }
    compile_overhead = compile_boxed - compile_plain;
    fmt::print("compile: plain {:.2f} s, sandboxed {:.2f} s, overhead {:.2f} s\n", compile_plain,
               compile_boxed, compile_overhead);
  }
  constexpr int kProcessesPerVerdict = 6;
  // A negative compile overhead is real: the sandbox gives nvcc a tmpfs /tmp.
  fmt::print("per-verdict overhead: {:.3f} s (goal <= 0.5 s)\n",
             kProcessesPerVerdict * (inside - bare) + compile_overhead);
  return 0;
}
