// Verdicts per GPU-hour of the engine's scheduler (what every command uses for --gpus) with fake
// GPU workers that each take a fixed GPU time per candidate and a faked toolchain: how close N
// workers come to N times one worker's throughput. Usage: gpu_workers_throughput
// [GPU_MS_PER_CANDIDATE] [CANDIDATES] (defaults 200 ms and 64). benchmarks/eval_throughput.sh
// measures real GPUs.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "../tests/eval/fake_gpu_worker.hpp"
#include "../tests/eval/fake_toolchain.hpp"
#include "ptxbench/eval/scheduler.hpp"
#include "ptxbench/task/task_loader.hpp"

int main(int argc, char** argv) {
  using namespace ptxbench;
  const auto gpu_time = std::chrono::milliseconds(argc > 1 ? std::atoi(argv[1]) : 200);
  const int candidates = argc > 2 ? std::atoi(argv[2]) : 64;
  fmt::print("{} candidates, {} ms of GPU time each\n", candidates, gpu_time.count());
  fmt::print("{:>8} {:>10} {:>22} {:>12}\n", "workers", "wall s", "verdicts per GPU-hour",
             "scaling");
  double single = 0;
  for (int workers : {1, 2, 4, 8}) {
    std::vector<std::shared_ptr<eval::GpuStages>> stages;
    for (int i = 0; i < workers; ++i)
      stages.push_back(std::make_shared<testing::FakeGpuWorker>(i, gpu_time));
    auto task = task::load_task_file(task::default_tasks_dir() / "gemm" / "gemm_n7168_k5120.json");
    if (!task) {
      fmt::print(stderr, "{}\n", task.error().message);
      return 2;
    }
    std::vector<eval::TaskCandidate> pairs;
    for (int c = 0; c < candidates; ++c)
      pairs.push_back({.task = &*task,
                       .input = {.text = "void run() {}  // " + std::to_string(c),
                                 .is_markdown = false,
                                 .source_name = std::to_string(c)}});
    eval::Scheduler scheduler({.jobs = 8}, std::make_shared<testing::FakeToolchain>(), stages);
    const auto start = std::chrono::steady_clock::now();
    scheduler.evaluate_pairs(arch::Arch::kHopper, pairs);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double per_gpu_hour = candidates / (wall / 3600.0) / workers;
    const double total = candidates / wall;
    if (workers == 1) single = total;
    fmt::print("{:>8} {:>10.2f} {:>22.0f} {:>11.2f}x\n", workers, wall, per_gpu_hour,
               total / single);
  }
  return 0;
}
