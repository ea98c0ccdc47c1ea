#include "ptxbench/eval/timing/stream_rule.hpp"

#include "ptxbench/eval/kernel_name.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string_view>

namespace ptxbench::eval::worker {
namespace {

constexpr std::size_t kNamesShown = 8;

// "ns::kernel<int>" from a mangled kernel name.
std::string readable_kernel_name(const std::string& mangled) {
  return KernelName(mangled).function();
}

std::string stream_label(std::uint32_t id) {
  return id == kNoStreamId ? std::string("none") : std::to_string(id);
}

// "1 kernel", "2 kernels"; nouns ending in "ch" take "es" ("2 launches").
std::string plural(int count, std::string_view noun) {
  const char* suffix = count == 1 ? "" : noun.ends_with("ch") ? "es" : "s";
  return fmt::format("{} {}{}", count, noun, suffix);
}

}  // namespace

void StreamRule::add_call(bool candidate, const std::vector<StreamWork>& streams) {
  if (!candidate) return;
  for (const auto& work : streams) {
    if (work.stream_id == caller_stream_id_) continue;
    if (work.kernels == 0 && work.memory_operations == 0) continue;
    other_stream_ids_.insert(work.stream_id);
    elsewhere_.kernels += work.kernels;
    elsewhere_.memory_operations += work.memory_operations;
    elsewhere_.background_launches += work.background_launches;
    for (const auto& name : work.kernel_names) {
      if (std::find(elsewhere_.kernel_names.begin(), elsewhere_.kernel_names.end(), name) ==
          elsewhere_.kernel_names.end())
        elsewhere_.kernel_names.push_back(name);
    }
  }
}

std::string StreamRule::message() const {
  if (!violated()) return {};
  std::string ids;
  for (auto id : other_stream_ids_) ids += (ids.empty() ? "" : ", ") + stream_label(id);
  std::string what = plural(elsewhere_.kernels, "kernel");
  if (!elsewhere_.kernel_names.empty()) {
    std::string names;
    std::size_t shown = std::min(kNamesShown, elsewhere_.kernel_names.size());
    for (std::size_t i = 0; i < shown; ++i)
      names += (i == 0 ? "" : ", ") + readable_kernel_name(elsewhere_.kernel_names[i]);
    if (shown < elsewhere_.kernel_names.size())
      names += fmt::format(" and {} more", elsewhere_.kernel_names.size() - shown);
    what += ": " + names;
  }
  if (elsewhere_.memory_operations > 0)
    what += "; " + plural(elsewhere_.memory_operations, "memory operation");
  if (elsewhere_.background_launches > 0)
    what += fmt::format("; {} from another thread between calls",
                        plural(elsewhere_.background_launches, "launch"));
  return fmt::format(
      "run() launched work on a stream other than the caller's (CUPTI stream {} {}, the caller's "
      "is {}; {}): the ABI requires all work on the stream from TVMFFIEnvGetStream",
      other_stream_ids_.size() == 1 ? "id" : "ids", ids, stream_label(caller_stream_id_), what);
}

StreamSummary StreamRule::summary() const {
  return StreamSummary{.caller_stream_id = caller_stream_id_,
                       .other_stream_ids = {other_stream_ids_.begin(), other_stream_ids_.end()},
                       .kernels = elsewhere_.kernels,
                       .memory_operations = elsewhere_.memory_operations,
                       .background_launches = elsewhere_.background_launches,
                       .kernel_names = elsewhere_.kernel_names};
}

}  // namespace ptxbench::eval::worker
