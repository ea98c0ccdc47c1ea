#include "ptxbench/util/child_processes.hpp"

#include <signal.h>

#include <atomic>
#include <mutex>
#include <set>

namespace ptxbench::util {
namespace {

struct Registry {
  std::mutex mutex;
  std::set<pid_t> groups;
  std::atomic<bool> stopped{false};
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

bool register_child_group(pid_t group) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.stopped) {
    ::kill(-group, SIGKILL);
    return false;
  }
  r.groups.insert(group);
  return true;
}

void unregister_child_group(pid_t group) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.groups.erase(group);
}

void stop_all_children() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.stopped = true;
  for (pid_t group : r.groups) ::kill(-group, SIGKILL);
}

bool children_stopped() {
  return registry().stopped;
}

}  // namespace ptxbench::util
