// A model served by the Python trainer (`python -m ptxbench_train serve`) for as long as the
// object lives: the server runs as a child process group (killed with ptxbench, even by SIGKILL,
// through the process runner's keeper), and the object's end stops it. The builtin engine says
// where it listens in a ready file; vLLM is polled on its /health endpoint.
#pragma once
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ptxbench/util/expected.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::study {

struct ServeRequest {
  std::filesystem::path python;
  std::filesystem::path train_src;
  std::string weights;
  std::string revision;
  std::string served_name;
  std::vector<std::pair<std::string, std::filesystem::path>> adapters;  // name -> folder
  std::string engine = "builtin";
  std::optional<int> max_new_tokens;
  std::filesystem::path log;         // the server's stdout and stderr
  std::filesystem::path ready_file;  // builtin: {port, base_url, models}
  int ready_timeout_s = 1800;
};

// PYTHONPATH for the trainer's processes: the package's source first, then whatever the caller's
// PYTHONPATH holds (packages installed into a folder rather than the interpreter).
std::string trainer_python_path(const std::filesystem::path& train_src);

class ServedModel {
 public:
  // Starts the server and waits until it answers; an Error (with the log's tail) otherwise.
  static util::Expected<std::unique_ptr<ServedModel>> start(const ServeRequest& request);
  ~ServedModel();
  ServedModel(const ServedModel&) = delete;
  ServedModel& operator=(const ServedModel&) = delete;

  const std::string& base_url() const { return base_url_; }

 private:
  ServedModel() = default;
  std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<bool>> ended_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<util::ProcessResult> result_ = std::make_shared<util::ProcessResult>();
  std::thread thread_;
  std::string base_url_;
  std::filesystem::path log_;
};

}  // namespace ptxbench::study
