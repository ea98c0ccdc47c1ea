// One accepted evaluation: what was submitted, by whom, in which order. Its state is where the
// job journal keeps it (job_journal.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ptxbench/arch/arch.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::serve {

enum class JobState { kQueued, kRunning, kDone };
std::string_view to_string(JobState state);  // "queued", "running", "done"

struct Job {
  std::string id;              // "<sequence>-<random>": unique across restarts, sortable
  std::uint64_t sequence = 0;  // acceptance order
  std::string client;
  std::string task;
  arch::Arch arch = arch::Arch::kHopper;
  std::string text;         // the candidate source or the model reply
  bool is_markdown = true;  // a reply: its last fenced block is the candidate
  std::string source_name;
  std::string submitted_at;  // ISO-8601 UTC
};

nlohmann::json to_json(const Job& job);
util::Expected<Job> job_from_json(const nlohmann::json& json, const std::string& where);
std::string make_job_id(std::uint64_t sequence);

}  // namespace ptxbench::serve
