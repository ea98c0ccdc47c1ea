#include "ptxbench/sandbox/bwrap_command.hpp"

#include <sys/resource.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>

extern char** environ;

namespace ptxbench::sandbox {
namespace {

namespace fs = std::filesystem;

// The loader's folders: symlinks into /usr on merged-/usr systems (Debian 12, Ubuntu 24.04).
constexpr const char* kSystemRoots[] = {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"};
// What the dynamic loader and Debian's alternatives need from /etc; nothing else of it.
constexpr const char* kEtcFiles[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                     "/etc/alternatives"};

void add(std::vector<std::string>& argv, std::initializer_list<std::string> items) {
  argv.insert(argv.end(), items);
}

bool covered(const std::set<std::string>& bound, const fs::path& path) {
  for (fs::path p = path; !p.empty() && p != p.root_path(); p = p.parent_path())
    if (bound.contains(p.string())) return true;
  return false;
}

// bwrap (as root) makes missing parent folders mode 0700, which the unprivileged user cannot
// cross: make them 0755 first.
void make_parents(std::vector<std::string>& argv, std::set<std::string>& bound,
                  const fs::path& target) {
  std::vector<fs::path> parents;
  for (fs::path p = target.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
    parents.push_back(p);
  for (auto it = parents.rbegin(); it != parents.rend(); ++it) {
    if (covered(bound, *it)) return;  // inside something already visible
    if (bound.insert("dir:" + it->string()).second)
      add(argv, {"--perms", "0755", "--dir", it->string()});
  }
}

// Binds `path` read-only at its own name and, when that goes through symlinks, at its real
// name too (rpaths and configs may name either).
void bind_read_only(std::vector<std::string>& argv, std::set<std::string>& bound,
                    const fs::path& path) {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  if (ec) return;
  for (const fs::path& target : {path.lexically_normal(), real}) {
    if (covered(bound, target)) continue;
    make_parents(argv, bound, target);
    bound.insert(target.string());
    add(argv, {"--ro-bind", real.string(), target.string()});
  }
}

std::vector<fs::path> gpu_device_nodes() {
  std::vector<fs::path> nodes;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    if (entry.path().filename().string().starts_with("nvidia")) nodes.push_back(entry.path());
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

}  // namespace

Environment current_environment() {
  Environment env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string_view::npos)
      env.emplace_back(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

Environment sandbox_environment(const Policy& policy, const util::ProcessSpec& spec,
                                const Environment& parent) {
  Environment env;
  auto set = [&env](const std::string& key, const std::string& value) {
    auto it = std::find_if(env.begin(), env.end(), [&](const auto& kv) { return kv.first == key; });
    if (it == env.end())
      env.emplace_back(key, value);
    else
      it->second = value;
  };
  std::string path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  for (const auto& [key, value] : parent) {
    if (key == "PATH")
      path = value;
    else if (environment_allowed(policy, key))
      set(key, value);
  }
  set("PATH", path);
  set("HOME", "/tmp");
  set("TMPDIR", "/tmp");
  for (const auto& [key, value] : spec.env) set(key, value);
  return env;
}

std::vector<fs::path> read_only_paths(const Policy& policy, const util::ProcessSpec& spec) {
  std::vector<fs::path> paths = policy.read_only_paths;
  paths.insert(paths.end(), spec.read_paths.begin(), spec.read_paths.end());
  if (auto exe = util::find_in_path(spec.argv.at(0))) paths.push_back(*exe);
  for (std::size_t i = 1; i < spec.argv.size(); ++i) {
    const fs::path arg = spec.argv[i];
    std::error_code ec;
    if (arg.is_absolute() && fs::exists(arg, ec)) paths.push_back(arg);
  }
  const auto& writable = spec.write_paths;
  if (!spec.working_dir.empty() &&
      std::find(writable.begin(), writable.end(), spec.working_dir) == writable.end())
    paths.push_back(spec.working_dir);
  if (const char* libs = std::getenv("LD_LIBRARY_PATH"); libs != nullptr) {
    std::string_view rest = libs;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string dir(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
      if (!dir.empty() && dir.front() == '/') paths.emplace_back(dir);
    }
  }
  return paths;
}

std::vector<std::string> bwrap_argv(const BwrapSetup& setup, const Policy& policy,
                                    const util::ProcessSpec& spec, const Environment& environment) {
  std::vector<std::string> argv = {setup.bwrap.string()};
  add(argv, {"--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
             "--unshare-cgroup-try", "--die-with-parent", "--new-session"});
  if (!setup.setpriv) add(argv, {"--unshare-user", "--disable-userns"});
  add(argv, {"--clearenv"});
  for (const auto& [key, value] : environment) add(argv, {"--setenv", key, value});

  std::set<std::string> bound;
  add(argv, {"--ro-bind", "/usr", "/usr"});
  bound.insert("/usr");
  for (const char* root : kSystemRoots) {
    std::error_code ec;
    if (fs::is_symlink(root, ec)) {
      add(argv, {"--symlink", fs::read_symlink(root, ec).string(), root});
    } else if (fs::exists(root, ec)) {
      add(argv, {"--ro-bind", root, root});
    }
  }
  add(argv, {"--perms", "0755", "--dir", "/etc"});  // bwrap as root would make it 0700
  for (const char* file : kEtcFiles) add(argv, {"--ro-bind-try", file, file});
  add(argv, {"--proc", "/proc", "--dev", "/dev"});
  // The one writable place (shared with /dev/shm): a size-capped tmpfs that ends with the run.
  const std::string scratch = std::to_string(policy.limits.scratch_bytes);
  add(argv, {"--perms", "1777", "--size", scratch, "--tmpfs", "/tmp"});
  add(argv, {"--perms", "1777", "--size", scratch, "--tmpfs", "/dev/shm"});
  if (policy.gpu_devices) {
    // The driver reads its PCI topology from /sys; the device nodes are the GPU itself.
    add(argv, {"--ro-bind", "/sys", "/sys"});
    for (const auto& node : gpu_device_nodes()) add(argv, {"--dev-bind", node, node});
  }
  for (const auto& path : read_only_paths(policy, spec)) bind_read_only(argv, bound, path);
  for (const auto& path : spec.write_paths) {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) continue;
    make_parents(argv, bound, path.lexically_normal());
    add(argv, {"--bind", real.string(), path.lexically_normal().string()});
  }
  add(argv, {"--remount-ro", "/"});
  add(argv, {"--chdir", spec.working_dir.empty() ? "/tmp" : spec.working_dir.string()});
  if (setup.seccomp_fd) add(argv, {"--seccomp", std::to_string(*setup.seccomp_fd)});
  if (setup.setpriv) {
    // Root inside keeps only what setpriv needs to leave it; setuid then drops even those.
    add(argv, {"--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--",
               setup.setpriv->string(), fmt::format("--reuid={}", policy.unprivileged_uid),
               fmt::format("--regid={}", policy.unprivileged_gid), "--clear-groups",
               "--inh-caps=-all", "--"});
  } else {
    add(argv, {"--cap-drop", "ALL", "--"});
  }
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
  return argv;
}

std::vector<util::ResourceLimit> resource_limits(const Policy& policy) {
  const auto& l = policy.limits;
  std::vector<util::ResourceLimit> limits = {
      {RLIMIT_CORE, 0},
      {RLIMIT_NPROC, l.processes},
      {RLIMIT_NOFILE, l.open_files},
      {RLIMIT_FSIZE, l.file_size_bytes},
  };
  if (l.address_space_bytes) limits.push_back({RLIMIT_AS, *l.address_space_bytes});
  if (l.data_bytes) limits.push_back({RLIMIT_DATA, *l.data_bytes});
  return limits;
}

}  // namespace ptxbench::sandbox
