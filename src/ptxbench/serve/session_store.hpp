// The RL environment's sessions on disk: one JSON file per session in the journal's sessions/
// folder, written atomically at every change, so that a restarted service holds every open
// episode where it was (its turn, and the evaluation of a step still under way).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptxbench::serve {

class SessionStore {
 public:
  explicit SessionStore(std::filesystem::path dir);  // creates the folder

  void save(const std::string& id, const nlohmann::json& session);
  void remove(const std::string& id);

  struct Stored {
    std::string id;
    nlohmann::json session;
  };
  // Every stored session; an unreadable file is set aside under DIR/../rejected and named in
  // `problems`.
  std::vector<Stored> load(std::vector<std::string>& problems) const;

 private:
  std::filesystem::path file(const std::string& id) const;
  std::filesystem::path dir_;
};

}  // namespace ptxbench::serve
