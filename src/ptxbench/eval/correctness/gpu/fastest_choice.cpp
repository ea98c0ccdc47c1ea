#include "ptxbench/eval/correctness/gpu/fastest_choice.hpp"

#include <algorithm>

#include "ptxbench/eval/worker/gpu/gpu_timer.hpp"
#include "ptxbench/eval/worker/gpu/l2_flush.hpp"
#include "ptxbench/util/check.hpp"

namespace ptxbench::eval::gpu {

FastestChoice choose_fastest(std::size_t count,
                             const std::function<void(std::size_t, cudaStream_t)>& run, int rounds,
                             double margin, cudaStream_t stream) {
  PTXBENCH_CHECK(count > 0, "nothing to choose from");
  L2Flusher flusher;
  EventTimer timer;
  for (std::size_t i = 0; i < count; ++i)
    run(i, stream);  // warm-up: module loads, first-call setup
  std::vector<std::vector<double>> times(count);
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < count; ++i) {
      flusher.flush(stream);
      timer.start(stream);
      run(i, stream);
      times[i].push_back(timer.stop_ms(stream));
    }
  }
  FastestChoice choice;
  for (auto& t : times) {
    std::sort(t.begin(), t.end());
    choice.median_ms.push_back(t[t.size() / 2]);
  }
  auto fastest =
      static_cast<std::size_t>(std::min_element(choice.median_ms.begin(), choice.median_ms.end()) -
                               choice.median_ms.begin());
  choice.index = choice.median_ms[0] <= choice.median_ms[fastest] * (1 + margin) ? 0 : fastest;
  return choice;
}

}  // namespace ptxbench::eval::gpu
