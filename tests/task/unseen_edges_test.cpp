// The built-in suite's unseen workloads test exactly what each task promises. A varying axis
// with a stated multiple (the attention tasks' S: "a multiple of 128" in the prompt) is tested
// at the edges of that promise: one tile, and an odd number of tiles (a kernel that assumes pairs
// of tiles fails there). An axis without one (the GEMM's M) is tested on ragged sizes: one not a
// multiple of any tile, and 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/task/task_render.hpp"
#include "ptxbench/task/unseen_workloads.hpp"

namespace ptxbench::task {
namespace {

TEST(UnseenEdges, EveryTaskIsTestedAtTheEdgesOfWhatItsPromptPromises) {
  auto suite = load_suite(default_tasks_dir());
  ASSERT_TRUE(suite) << suite.error().message;
  int checked = 0;
  for (const auto& task : *suite) {
    const auto unseen = unseen_workloads(task);
    const std::string prompt = render_for_model(task);
    for (const auto& [axis_name, range] : task.unseen.bounds) {
      const Axis* axis = task.find_axis(axis_name);
      ASSERT_NE(axis, nullptr) << task.name;
      std::set<std::int64_t> values;
      for (const auto& w : unseen) values.insert(w.axes.at(axis_name));
      ASSERT_FALSE(values.empty()) << task.name << ": no unseen " << axis_name;
      ++checked;
      if (axis->multiple_of) {
        const std::int64_t tile = *axis->multiple_of;
        EXPECT_NE(prompt.find("a multiple of " + std::to_string(tile)), std::string::npos)
            << task.name << ": the prompt does not promise " << axis_name << " % " << tile;
        for (auto v : values) EXPECT_EQ(v % tile, 0) << task.name << " " << axis_name << v;
        EXPECT_TRUE(values.contains(tile))
            << task.name << ": no unseen " << axis_name << " of one tile (" << tile << ")";
        EXPECT_TRUE(std::any_of(values.begin(), values.end(),
                                [&](std::int64_t v) { return (v / tile) % 2 == 1 && v > tile; }))
            << task.name << ": no unseen " << axis_name << " of an odd number of tiles > 1";
      } else {
        EXPECT_TRUE(
            std::any_of(values.begin(), values.end(), [](std::int64_t v) { return v % 8 != 0; }))
            << task.name << ": no ragged unseen " << axis_name;
        if (range.first == 1) {
          EXPECT_TRUE(values.contains(1)) << task.name << ": no " << axis_name << "=1";
        }
      }
    }
  }
  EXPECT_GT(checked, 20);
}

}  // namespace
}  // namespace ptxbench::task
