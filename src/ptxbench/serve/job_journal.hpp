// The persistent queue: one JSON file per job in DIR/accepted, DIR/running or DIR/done, moved
// between them by rename (atomic within one file system), so a file is always in exactly one
// state. A job is accepted (its file written) before the client hears its id, and done only
// once its record is written. After a crash, a job found in running/ has no record and goes
// back to accepted/; a job with a record is never run again. One service at a time holds a
// journal (a lock on DIR/.lock); a second gets JournalInUse. Finished jobs are removed by the
// queue's retention (forget_done).
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/serve/job.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/folder_lock.hpp"

namespace ptxbench::serve {

// Creates DIR and its three folders; "DIR: exists and is not a folder" (or the system's reason)
// when it cannot, so that a bad --journal is refused before the service starts.
util::Expected<std::filesystem::path> prepare_journal_dir(const std::filesystem::path& dir);

struct JournalInUse : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class JobJournal {
 public:
  // Creates the three folders and locks the journal (JournalInUse when another holds it).
  explicit JobJournal(std::filesystem::path dir);

  struct Recovered {
    std::vector<Job> queued;            // in acceptance order
    std::uint64_t next_sequence = 1;    // above every job the journal has seen
    std::vector<std::string> problems;  // unreadable files, set aside under DIR/rejected
    struct Done {
      std::string id;
      std::filesystem::file_time_type finished;
    };
    std::vector<Done> done;  // in acceptance order
  };
  // Call once at start-up, before any accept.
  Recovered recover();

  void accept(const Job& job);
  void start(const std::string& id);    // accepted -> running
  void requeue(const std::string& id);  // running -> accepted: it was stopped, not judged
  // Writes done/<id>.json ({"job": ..., "record": ...}), then removes running/<id>.json.
  void finish(const Job& job, const nlohmann::json& record);

  void forget_done(const std::string& id);  // retention: removes a finished job's file

  std::optional<JobState> state_of(const std::string& id) const;
  // {"job": ..., "record": ...} of a finished job.
  std::optional<nlohmann::json> done_entry(const std::string& id) const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path file(JobState state, const std::string& id) const;
  std::filesystem::path dir_;
  util::FolderLock lock_;
};

}  // namespace ptxbench::serve
