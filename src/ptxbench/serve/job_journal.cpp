#include "ptxbench/serve/job_journal.hpp"

#include <algorithm>

#include "ptxbench/util/check.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/staged_folder.hpp"

namespace ptxbench::serve {
namespace fs = std::filesystem;
namespace {

std::string_view folder_of(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "accepted";
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
  }
  return "unknown";
}

std::optional<nlohmann::json> read_json(const fs::path& path) {
  auto text = util::read_file(path);
  if (!text) return std::nullopt;
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded()) return std::nullopt;
  return json;
}

// The sequence in a job file's name ("0000000042-1a2b3c4d.json"), 0 when it has none.
std::uint64_t sequence_of(const fs::path& path) {
  const auto stem = path.stem().string();
  const auto dash = stem.find('-');
  try {
    return std::stoull(stem.substr(0, dash));
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

util::Expected<fs::path> prepare_journal_dir(const fs::path& dir) {
  auto folder = util::check_output_folder(dir);
  if (!folder) return folder.error();
  for (auto state : {JobState::kQueued, JobState::kRunning, JobState::kDone}) {
    const auto sub = dir / folder_of(state);
    if (auto checked = util::check_output_folder(sub); !checked) return checked.error();
    std::error_code ec;
    fs::create_directories(sub, ec);
    if (ec) return util::make_error(sub.string() + ": " + ec.message());
  }
  return dir;
}

namespace {
util::FolderLock lock_journal(const fs::path& dir) {
  fs::create_directories(dir);
  auto lock = util::FolderLock::acquire(dir, "service journal (another ptxbench serve holds it)");
  if (!lock) throw JournalInUse(lock.error().message);
  return std::move(*lock);
}
}  // namespace

JobJournal::JobJournal(fs::path dir) : dir_(std::move(dir)), lock_(lock_journal(dir_)) {
  for (auto state : {JobState::kQueued, JobState::kRunning, JobState::kDone})
    fs::create_directories(dir_ / folder_of(state));
}

fs::path JobJournal::file(JobState state, const std::string& id) const {
  return dir_ / folder_of(state) / (id + ".json");
}

JobJournal::Recovered JobJournal::recover() {
  Recovered recovered;
  std::uint64_t highest = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / folder_of(JobState::kRunning))) {
    if (entry.path().extension() != ".json") continue;  // a temporary file of an atomic write
    const auto id = entry.path().stem().string();
    if (fs::exists(file(JobState::kDone, id))) {
      fs::remove(entry.path());  // finished; the crash came between the two steps of finish()
    } else {
      fs::rename(entry.path(), file(JobState::kQueued, id));
    }
  }
  for (const auto& entry : fs::directory_iterator(dir_ / folder_of(JobState::kDone))) {
    if (entry.path().extension() != ".json") continue;
    highest = std::max(highest, sequence_of(entry.path()));
    std::error_code ignored;
    recovered.done.push_back({.id = entry.path().stem().string(),
                              .finished = fs::last_write_time(entry.path(), ignored)});
  }
  std::sort(recovered.done.begin(), recovered.done.end(), [](const auto& a, const auto& b) {
    return sequence_of(a.id + ".json") < sequence_of(b.id + ".json");
  });
  for (const auto& entry : fs::directory_iterator(dir_ / folder_of(JobState::kQueued))) {
    if (entry.path().extension() != ".json") continue;
    const auto where = entry.path().string();
    auto json = read_json(entry.path());
    auto job = json ? job_from_json(*json, where) : util::make_error(where + ": not valid JSON");
    if (!job) {
      fs::create_directories(dir_ / "rejected");
      fs::rename(entry.path(), dir_ / "rejected" / entry.path().filename());
      recovered.problems.push_back(job.error().message);
      continue;
    }
    highest = std::max(highest, job->sequence);
    recovered.queued.push_back(std::move(*job));
  }
  std::sort(recovered.queued.begin(), recovered.queued.end(),
            [](const Job& a, const Job& b) { return a.sequence < b.sequence; });
  recovered.next_sequence = highest + 1;
  return recovered;
}

void JobJournal::accept(const Job& job) {
  util::write_file_atomic(file(JobState::kQueued, job.id), to_json(job).dump());
}

void JobJournal::start(const std::string& id) {
  fs::rename(file(JobState::kQueued, id), file(JobState::kRunning, id));
}

void JobJournal::requeue(const std::string& id) {
  fs::rename(file(JobState::kRunning, id), file(JobState::kQueued, id));
}

void JobJournal::finish(const Job& job, const nlohmann::json& record) {
  nlohmann::json done{{"job", to_json(job)}, {"record", record}};
  util::write_file_atomic(file(JobState::kDone, job.id), done.dump());
  std::error_code ignored;
  fs::remove(file(JobState::kRunning, job.id), ignored);
}

void JobJournal::forget_done(const std::string& id) {
  std::error_code ignored;
  fs::remove(file(JobState::kDone, id), ignored);
}

std::optional<JobState> JobJournal::state_of(const std::string& id) const {
  for (auto state : {JobState::kDone, JobState::kRunning, JobState::kQueued}) {
    if (fs::exists(file(state, id))) return state;
  }
  return std::nullopt;
}

std::optional<nlohmann::json> JobJournal::done_entry(const std::string& id) const {
  auto json = read_json(file(JobState::kDone, id));
  if (!json || !json->contains("record") || !json->contains("job")) return std::nullopt;
  return json;
}

}  // namespace ptxbench::serve
