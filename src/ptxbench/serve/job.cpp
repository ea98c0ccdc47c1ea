#include "ptxbench/serve/job.hpp"

#include <fmt/format.h>

#include <random>

namespace ptxbench::serve {

std::string_view to_string(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
  }
  return "unknown";
}

nlohmann::json to_json(const Job& job) {
  return {{"id", job.id},
          {"sequence", job.sequence},
          {"client", job.client},
          {"task", job.task},
          {"arch", arch::to_string(job.arch)},
          {"text", job.text},
          {"is_markdown", job.is_markdown},
          {"source_name", job.source_name},
          {"submitted_at", job.submitted_at}};
}

util::Expected<Job> job_from_json(const nlohmann::json& json, const std::string& where) {
  try {
    Job job{.id = json.at("id").get<std::string>(),
            .sequence = json.at("sequence").get<std::uint64_t>(),
            .client = json.at("client").get<std::string>(),
            .task = json.at("task").get<std::string>(),
            .text = json.at("text").get<std::string>(),
            .is_markdown = json.at("is_markdown").get<bool>(),
            .source_name = json.value("source_name", ""),
            .submitted_at = json.value("submitted_at", "")};
    const auto arch_name = json.at("arch").get<std::string>();
    const auto arch = arch::parse(arch_name);
    if (!arch) return util::make_error(fmt::format("{}: arch: unknown arch {}", where, arch_name));
    job.arch = *arch;
    return job;
  } catch (const nlohmann::json::exception& error) {
    return util::make_error(fmt::format("{}: {}", where, error.what()));
  }
}

std::string make_job_id(std::uint64_t sequence) {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  return fmt::format("{:010d}-{:08x}", sequence, static_cast<std::uint32_t>(generator()));
}

}  // namespace ptxbench::serve
