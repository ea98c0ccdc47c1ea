#include "ptxbench/serve/session_store.hpp"

#include "ptxbench/util/fs.hpp"

namespace ptxbench::serve {
namespace fs = std::filesystem;

SessionStore::SessionStore(fs::path dir) : dir_(std::move(dir)) {
  fs::create_directories(dir_);
}

fs::path SessionStore::file(const std::string& id) const {
  return dir_ / (id + ".json");
}

void SessionStore::save(const std::string& id, const nlohmann::json& session) {
  util::write_file_atomic(file(id), session.dump());
}

void SessionStore::remove(const std::string& id) {
  std::error_code ignored;
  fs::remove(file(id), ignored);
}

std::vector<SessionStore::Stored> SessionStore::load(std::vector<std::string>& problems) const {
  std::vector<Stored> out;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (entry.path().extension() != ".json") continue;  // a temporary file of an atomic write
    auto text = util::read_file(entry.path());
    auto json = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (!text || json.is_discarded() || !json.is_object()) {
      const auto rejected = dir_.parent_path() / "rejected";
      fs::create_directories(rejected);
      fs::rename(entry.path(), rejected / entry.path().filename());
      problems.push_back(entry.path().string() + ": not a session (set aside)");
      continue;
    }
    out.push_back({.id = entry.path().stem().string(), .session = std::move(json)});
  }
  return out;
}

}  // namespace ptxbench::serve
