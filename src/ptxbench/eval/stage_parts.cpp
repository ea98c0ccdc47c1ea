#include "ptxbench/eval/stage_parts.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace ptxbench::eval {
namespace {

constexpr std::array kNames = {
    part::kProcess,          part::kContext,        part::kModuleLoad,
    part::kInputs,           part::kCandidateCalls, part::kLibraryReference,
    part::kPreciseReference, part::kComparison,     part::kCopies,
    part::kSanitizerTool,    part::kProfiler,       part::kTimedSamples,
    part::kGpuWait,          part::kOther};
constexpr double kMaxPartSeconds = 24 * 3600;

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

bool is_part_name(std::string_view name) {
  for (auto known : kNames)
    if (known == name) return true;
  return false;
}

void add_part(StageParts& parts, std::string_view part, double seconds) {
  if (!(seconds > 0)) return;
  auto it = parts.find(part);
  if (it == parts.end()) it = parts.emplace(std::string(part), 0.0).first;
  it->second += seconds;
}

void add_parts(StageParts& into, const StageParts& from) {
  for (const auto& [name, seconds] : from) add_part(into, name, seconds);
}

nlohmann::json parts_to_json(const StageParts& parts) {
  nlohmann::json json = nlohmann::json::object();
  // Milliseconds are plenty, and keep records short.
  for (const auto& [name, seconds] : parts) json[name] = std::round(seconds * 1e4) / 1e4;
  return json;
}

StageParts parts_from_json(const nlohmann::json& json) {
  StageParts parts;
  if (!json.is_object()) return parts;
  for (const auto& [name, value] : json.items()) {
    if (!is_part_name(name) || !value.is_number()) continue;
    const double seconds = value.get<double>();
    if (std::isfinite(seconds) && seconds >= 0 && seconds <= kMaxPartSeconds) parts[name] = seconds;
  }
  return parts;
}

PartClock::PartClock() : start_(Clock::now()), last_(start_) {}

void PartClock::mark(std::string_view part) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  add_part(parts_, part, seconds_between(last_, now));
  last_ = now;
}

void PartClock::mark_split(std::string_view part, std::string_view other, double other_seconds) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  const double total = seconds_between(last_, now);
  const double split = std::clamp(other_seconds, 0.0, total);
  add_part(parts_, other, split);
  add_part(parts_, part, total - split);
  last_ = now;
}

StageParts PartClock::parts() const {
  std::lock_guard lock(mutex_);
  StageParts parts = parts_;
  add_part(parts, part::kOther, seconds_between(last_, Clock::now()));
  return parts;
}

double PartClock::elapsed_seconds() const {
  std::lock_guard lock(mutex_);
  return seconds_between(start_, Clock::now());
}

}  // namespace ptxbench::eval
