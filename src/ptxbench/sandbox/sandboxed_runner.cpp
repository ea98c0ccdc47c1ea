#include "ptxbench/sandbox/sandboxed_runner.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "ptxbench/sandbox/bwrap_command.hpp"
#include "ptxbench/sandbox/seccomp_filter.hpp"
#include "ptxbench/util/live_process.hpp"

namespace ptxbench::sandbox {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> find_bwrap() {
  if (const char* path = std::getenv("PTXBENCH_BWRAP"); path != nullptr && *path != '\0')
    return util::find_in_path(path);
  return util::find_in_path("bwrap");
}

// The first line of a failed probe's stderr, bounded, for the description.
std::string first_line(const util::ProcessResult& result) {
  std::string text = result.started ? result.stderr_text : result.spawn_error;
  text = text.substr(0, text.find('\n'));
  if (text.size() > 120) text.resize(120);
  return text.empty() ? result.describe_end() : text;
}

// Hands the folders the sandboxed user writes to over to it for one call, and everything in
// them back to their owner afterwards (lchown: links made inside are not followed).
class WritableFolders {
 public:
  WritableFolders(const std::vector<fs::path>& folders, const Policy& policy) {
    for (const auto& folder : folders) {
      struct stat st {};
      if (::stat(folder.c_str(), &st) != 0) continue;
      if (::chown(folder.c_str(), policy.unprivileged_uid, policy.unprivileged_gid) == 0)
        owners_.push_back({folder, st.st_uid, st.st_gid});
    }
  }
  ~WritableFolders() {
    for (const auto& owner : owners_) {
      std::error_code ec;
      [[maybe_unused]] int rc = ::lchown(owner.folder.c_str(), owner.uid, owner.gid);
      for (auto it = fs::recursive_directory_iterator(owner.folder, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        rc = ::lchown(it->path().c_str(), owner.uid, owner.gid);
    }
  }
  WritableFolders(const WritableFolders&) = delete;
  WritableFolders& operator=(const WritableFolders&) = delete;

 private:
  struct Owner {
    fs::path folder;
    uid_t uid;
    gid_t gid;
  };
  std::vector<Owner> owners_;
};

}  // namespace

void open_to_sandbox_user(const std::filesystem::path& folder) {
  if (::geteuid() != 0) return;  // the sandbox runs as the caller's own user
  std::error_code ignored;
  fs::permissions(folder, fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add,
                  ignored);
}

SandboxedProcessRunner::SandboxedProcessRunner(std::shared_ptr<util::ProcessRunner> inner,
                                               Policy policy)
    : inner_(std::move(inner)), policy_(std::move(policy)) {}

const Support& SandboxedProcessRunner::support() {
  std::call_once(probed_, [this] { support_ = probe(); });
  return support_;
}

std::string SandboxedProcessRunner::description() {
  return describe(policy_.mode, support());
}

Support SandboxedProcessRunner::probe() {
  Support found;
  found.running_as_root = ::geteuid() == 0;
  found.bwrap = find_bwrap();
  if (found.running_as_root) found.setpriv = util::find_in_path("setpriv");
  found.usable.other_user = !found.running_as_root;
  const util::ProcessSpec trial{.argv = {"true"}, .timeout = std::chrono::seconds(20)};
  if (!found.bwrap) {
    found.why.push_back("no bwrap (no namespaces, no seccomp filter)");
  } else {
    support_ = found;  // run_with reads the paths
    auto result = run_with(trial, Layers{.namespaces = true});
    found.usable.namespaces = result.succeeded();
    if (!found.usable.namespaces) found.why.push_back("no namespaces (" + first_line(result) + ")");
  }
  if (found.usable.namespaces) {
    if (!seccomp_built_in()) {
      found.why.push_back("no seccomp filter (built without libseccomp)");
    } else {
      auto result = run_with(trial, Layers{.namespaces = true, .seccomp = true});
      found.usable.seccomp = result.succeeded();
      if (!found.usable.seccomp)
        found.why.push_back("no seccomp filter (" + first_line(result) + ")");
    }
  }
  if (found.running_as_root) {
    if (!found.setpriv) {
      found.why.push_back("runs as root (no setpriv)");
    } else {
      support_ = found;
      auto result =
          run_with(trial, Layers{.namespaces = found.usable.namespaces, .other_user = true});
      found.usable.other_user = result.succeeded();
      if (!found.usable.other_user)
        found.why.push_back("runs as root (" + first_line(result) + ")");
      // The toolkit and libraries must be readable by that user (an installer's umask can
      // leave them root-only): the first unreadable entry, if any.
      util::ProcessSpec readable{.argv = {"find", "-L"}, .timeout = std::chrono::seconds(30)};
      for (const auto& path : policy_.read_only_paths) readable.argv.push_back(path.string());
      readable.argv.insert(readable.argv.end(),
                           {"-maxdepth", "3", "!", "-readable", "-print", "-quit"});
      if (found.usable.other_user) {
        auto listing =
            run_with(readable, Layers{.namespaces = found.usable.namespaces, .other_user = true});
        std::string unreadable = listing.stdout_text.substr(0, listing.stdout_text.find('\n'));
        if (!unreadable.empty()) {
          found.usable.other_user = false;
          found.why.push_back(fmt::format("runs as root ({} is not readable by uid {})", unreadable,
                                          policy_.unprivileged_uid));
        }
      }
    }
  }
  return found;
}

void SandboxedProcessRunner::show_read_only(const std::filesystem::path& path) {
  open_to_sandbox_user(path);
  std::lock_guard lock(policy_mutex_);
  policy_.read_only_paths.push_back(path);
}

// A process spec as the sandbox runs it: the outer spec and what must live while the process
// runs (the seccomp filter's file until the process read it, the folders handed to the sandbox's
// user until it ends); or why it cannot run.
struct SandboxedProcessRunner::Wrapped {
  util::ProcessSpec outer;
  std::shared_ptr<void> filter;       // a FilterFile
  std::shared_ptr<void> handed_over;  // a WritableFolders
  std::string refused;                // non-empty: not started, and why
};

SandboxedProcessRunner::Wrapped SandboxedProcessRunner::wrap(const util::ProcessSpec& spec) {
  if (policy_.mode == Mode::kOff) return Wrapped{.outer = spec};
  const Support& found = support();
  if (policy_.mode == Mode::kStrict && !complete(found.usable)) {
    return Wrapped{.refused = fmt::format("{} (strict): {}", kNotSandboxedError,
                                          describe(policy_.mode, found))};
  }
  return wrap_sandboxed(spec, found.usable);
}

util::ProcessResult SandboxedProcessRunner::run(const util::ProcessSpec& spec) {
  Wrapped wrapped = wrap(spec);
  if (!wrapped.refused.empty()) {
    util::ProcessResult refused;
    refused.spawn_error = wrapped.refused;
    return refused;
  }
  return inner_->run(wrapped.outer);
}

util::Expected<std::unique_ptr<util::LiveProcess>> SandboxedProcessRunner::start(
    const util::ProcessSpec& spec) {
  Wrapped wrapped = wrap(spec);
  if (!wrapped.refused.empty()) return util::make_error(wrapped.refused);
  auto live = inner_->start(wrapped.outer);
  if (live) {
    (*live)->keep_alive(wrapped.filter);
    (*live)->keep_alive(wrapped.handed_over);
  }
  return live;
}

util::ProcessResult SandboxedProcessRunner::run_with(const util::ProcessSpec& spec,
                                                     const Layers& layers) {
  Wrapped wrapped = wrap_sandboxed(spec, layers);
  if (!wrapped.refused.empty()) {
    util::ProcessResult refused;
    refused.spawn_error = wrapped.refused;
    return refused;
  }
  return inner_->run(wrapped.outer);
}

SandboxedProcessRunner::Wrapped SandboxedProcessRunner::wrap_sandboxed(
    const util::ProcessSpec& spec, const Layers& layers) {
  Policy policy;
  {
    std::lock_guard lock(policy_mutex_);
    policy = policy_;
  }
  Wrapped wrapped{.outer = spec};
  util::ProcessSpec& outer = wrapped.outer;
  outer.env.clear();
  outer.working_dir.clear();
  outer.read_paths.clear();
  outer.write_paths.clear();
  const auto limits = resource_limits(policy);
  outer.limits.insert(outer.limits.end(), limits.begin(), limits.end());
  if (auto exe = util::find_in_path(spec.argv.at(0))) outer.argv[0] = exe->string();
  const Environment environment = sandbox_environment(policy, spec, current_environment());
  const bool switch_user = layers.other_user && support_.running_as_root && support_.setpriv;

  if (!layers.namespaces) {
    // Without bwrap: still an allow-listed environment, rlimits and (as root) another user.
    std::vector<std::string> argv = {"env", "-i"};
    if (!spec.working_dir.empty()) argv = {"env", "-i", "-C", spec.working_dir.string()};
    for (const auto& [key, value] : environment) argv.push_back(key + "=" + value);
    if (switch_user) {
      argv.insert(argv.end(),
                  {support_.setpriv->string(), fmt::format("--reuid={}", policy.unprivileged_uid),
                   fmt::format("--regid={}", policy.unprivileged_gid), "--clear-groups", "--"});
    }
    argv.insert(argv.end(), outer.argv.begin(), outer.argv.end());
    outer.argv = std::move(argv);
    if (switch_user)
      wrapped.handed_over = std::make_shared<WritableFolders>(spec.write_paths, policy);
    return wrapped;
  }

  BwrapSetup setup{.bwrap = *support_.bwrap};
  if (switch_user) setup.setpriv = support_.setpriv;
  if (layers.seccomp) {
    auto compiled = compile_seccomp_filter(spec.loopback_ip_sockets);
    if (!compiled) {
      return Wrapped{
          .refused = fmt::format("{}: seccomp: {}", kNotSandboxedError, compiled.error().message)};
    }
    auto filter = std::make_shared<FilterFile>(std::move(compiled).value());
    setup.seccomp_fd = filter->fd();
    outer.inherited_fds.push_back(filter->fd());
    wrapped.filter = std::move(filter);
  }
  util::ProcessSpec inner_spec = spec;
  inner_spec.argv[0] = outer.argv[0];
  outer.argv = bwrap_argv(setup, policy, inner_spec, environment);
  if (setup.setpriv)
    wrapped.handed_over = std::make_shared<WritableFolders>(spec.write_paths, policy);
  return wrapped;
}

}  // namespace ptxbench::sandbox
