#include "ptxbench/slurm/shard_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace ptxbench::slurm {
namespace {

bool parse_int(std::string_view text, int& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

util::Expected<ShardSpec> parse_shard_spec(std::string_view text) {
  const auto slash = text.find('/');
  ShardSpec shard;
  if (slash == std::string_view::npos || !parse_int(text.substr(0, slash), shard.index) ||
      !parse_int(text.substr(slash + 1), shard.count) || shard.count < 1 || shard.index < 0 ||
      shard.index >= shard.count)
    return util::make_error(
        fmt::format("--shard {}: expected I/N with 0 <= I < N (e.g. 3/8)", text));
  return shard;
}

std::vector<const task::Task*> shard_tasks(const std::vector<const task::Task*>& tasks,
                                           ShardSpec shard) {
  std::vector<const task::Task*> out;
  for (std::size_t i = static_cast<std::size_t>(shard.index); i < tasks.size();
       i += static_cast<std::size_t>(shard.count))
    out.push_back(tasks[i]);
  return out;
}

int shard_count(std::size_t task_count, int requested) {
  const int tasks = static_cast<int>(std::max<std::size_t>(1, task_count));
  return requested > 0 ? std::min(requested, tasks) : tasks;
}

}  // namespace ptxbench::slurm
