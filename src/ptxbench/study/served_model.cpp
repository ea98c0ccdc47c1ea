#include "ptxbench/study/served_model.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::study {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// vLLM needs a port number (it cannot report one it picked): ask the kernel for a free one.
// Another program could take it before vLLM binds; vLLM then fails to start and says so.
util::Expected<int> free_local_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return util::make_error("serving: no socket for a free port");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  ::close(fd);
  if (!ok) return util::make_error("serving: could not find a free local port");
  return static_cast<int>(ntohs(address.sin_port));
}

std::string tail_of(const std::string& text, std::size_t bytes = 3000) {
  return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

// vLLM writes no ready file: its /health answers once the model is loaded.
bool healthy(const ServeRequest& request, const std::string& url) {
  util::SystemProcessRunner runner;
  auto result = runner.run(
      {.argv = {request.python.string(), "-c",
                "import sys,urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)",
                url + "/health"},
       .timeout = 30s});
  return result.succeeded();
}

}  // namespace

std::string trainer_python_path(const fs::path& train_src) {
  const char* outer = std::getenv("PYTHONPATH");
  if (outer == nullptr || *outer == '\0') return train_src.string();
  return train_src.string() + ":" + outer;
}

util::Expected<std::unique_ptr<ServedModel>> ServedModel::start(const ServeRequest& request) {
  // "auto" is decided here, as the trainer would decide it, so that the right readiness check
  // (ready file or /health) is used.
  const bool builtin =
      request.engine == "builtin" || (request.engine == "auto" && !util::find_in_path("vllm"));
  std::vector<std::string> argv = {request.python.string(),
                                   "-m",
                                   "ptxbench_train",
                                   "serve",
                                   "--base",
                                   request.weights,
                                   "--served-name",
                                   request.served_name,
                                   "--engine"};
  argv.push_back(builtin ? "builtin" : "vllm");
  if (!request.revision.empty()) argv.insert(argv.end(), {"--revision", request.revision});
  for (const auto& [name, folder] : request.adapters)
    argv.insert(argv.end(), {"--adapter", name + "=" + folder.string()});
  int vllm_port = 0;
  if (builtin) {
    argv.insert(argv.end(), {"--port", "0", "--ready-file", request.ready_file.string()});
    if (request.max_new_tokens)
      argv.insert(argv.end(), {"--max-new-tokens", std::to_string(*request.max_new_tokens)});
  } else {
    auto port = free_local_port();
    if (!port) return port.error();
    vllm_port = *port;
    argv.insert(argv.end(), {"--port", std::to_string(vllm_port)});
  }
  std::error_code error;
  fs::remove(request.ready_file, error);

  std::unique_ptr<ServedModel> served(new ServedModel());
  served->log_ = request.log;
  util::ProcessSpec spec{.argv = argv,
                         .timeout = std::chrono::hours(24 * 30),
                         .output_cap_bytes = 1u << 20,
                         .env = {{"PYTHONPATH", trainer_python_path(request.train_src)}},
                         .stop = served->stop_};
  served->thread_ = std::thread([spec, result = served->result_, ended = served->ended_] {
    util::SystemProcessRunner runner;
    *result = runner.run(spec);
    ended->store(true);
  });
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(request.ready_timeout_s);
  const std::string vllm_url = fmt::format("http://127.0.0.1:{}/v1", vllm_port);
  while (std::chrono::steady_clock::now() < deadline) {
    if (served->ended_->load()) {
      served->thread_.join();
      const auto& r = *served->result_;
      util::write_file_atomic(request.log, r.stdout_text + r.stderr_text);
      return util::make_error(fmt::format("the server ({}) ended before serving: {}\n{}",
                                          fmt::join(argv, " "), r.describe_end(),
                                          tail_of(r.stderr_text)));
    }
    if (builtin) {
      if (auto text = util::read_file(request.ready_file)) {
        auto ready = nlohmann::json::parse(*text, nullptr, false);
        if (ready.is_object() && ready.contains("base_url")) {
          served->base_url_ = ready.value("base_url", "");
          return served;
        }
      }
    } else if (healthy(request, vllm_url.substr(0, vllm_url.size() - 3))) {
      served->base_url_ = vllm_url;
      return served;
    }
    std::this_thread::sleep_for(builtin ? 200ms : 2s);
  }
  return util::make_error(fmt::format(
      "the server did not answer within {} s (serving.ready_timeout_s)", request.ready_timeout_s));
}

ServedModel::~ServedModel() {
  stop_->store(true);
  if (!thread_.joinable()) return;
  thread_.join();
  util::write_file_atomic(log_, result_->stdout_text + result_->stderr_text);
}

}  // namespace ptxbench::study
