// The files of a run (docs/trajectory-format.md): run.json, trajectories/<id>.json rewritten
// atomically after every turn, and responses/<id>/turn-N.md, the raw replies. A reply is
// written as soon as it arrives, with its call details in a hidden responses/<id>/.turn-N.json,
// so a run killed during the evaluation evaluates that reply on resume instead of asking the
// model again. One process at a time holds a run directory (util::FolderLock on RUN_DIR/.lock,
// which the kernel releases even when the process is killed).
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ptxbench/agent/trajectory.hpp"
#include "ptxbench/model/reply.hpp"
#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/folder_lock.hpp"

namespace ptxbench::agent {

class RunDirectory {
 public:
  // Creates the directory when needed and takes its lock; fails when another process holds it.
  static util::Expected<RunDirectory> open(const std::filesystem::path& root);
  RunDirectory(RunDirectory&& other) noexcept = default;
  RunDirectory& operator=(RunDirectory&&) = delete;
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;
  ~RunDirectory() = default;

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path run_json_path() const { return root_ / "run.json"; }
  std::filesystem::path trajectory_path(const std::string& id) const;
  std::filesystem::path response_path(const std::string& id, int turn) const;

  // nullopt when the run is new.
  util::Expected<std::optional<nlohmann::json>> read_run_json() const;
  void write_run_json(const nlohmann::json& run) const;

  // nullopt when the trajectory has not started; an error when its file is unreadable.
  util::Expected<std::optional<Trajectory>> load_trajectory(const std::string& id) const;
  void save_trajectory(const Trajectory& trajectory) const;

  // The raw reply (turn-N.md) and its call details (.turn-N.json).
  void save_reply(const std::string& id, int turn, const model::Reply& reply) const;
  // A reply saved for a turn that was never recorded (the run was killed before); nullopt
  // when there is none or it cannot be read back whole.
  std::optional<model::Reply> load_saved_reply(const std::string& id, int turn) const;

 private:
  RunDirectory(std::filesystem::path root, util::FolderLock lock)
      : root_(std::move(root)), lock_(std::move(lock)) {}
  std::filesystem::path root_;
  util::FolderLock lock_;
};

}  // namespace ptxbench::agent
