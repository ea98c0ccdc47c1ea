#include "ptxbench/util/spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "ptxbench/util/check.hpp"
#include "ptxbench/util/child_processes.hpp"

extern char** environ;

namespace ptxbench::util::detail {
namespace {

struct Pipe {
  Fd read;
  Fd write;
};

Pipe make_pipe() {
  int fds[2];
  PTXBENCH_CHECK(::pipe2(fds, O_CLOEXEC) == 0, std::strerror(errno));
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

std::vector<std::string> merged_environment(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [key, value] : overrides) env[key] = value;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [key, value] : env) out.push_back(key + "=" + value);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The keeper's answer to PR_SET_PDEATHSIG: ptxbench is gone, so its group goes too.
void kill_own_group(int) {
  ::kill(0, SIGKILL);
}

// Runs in the forked child, which stays as the process group's leader (the "keeper"): it
// starts the program as its own child and exits as the program did. If ptxbench dies first,
// even by SIGKILL, the kernel sends the keeper SIGTERM and it kills the whole group (nvcc and
// its cicc/ptxas children), so nothing keeps running. Only async-signal-safe calls.
[[noreturn]] void keep_group(pid_t program) {
  ::close_range(0, ~0U, 0);  // hold no descriptor of ptxbench's (its pipes, its run lock)
  int status = 0;
  while (::waitpid(program, &status, 0) < 0) {
    if (errno != EINTR) ::_exit(127);
  }
  if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
  const int signal_number = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::signal(signal_number, SIG_DFL);
  ::kill(::getpid(), signal_number);
  ::_exit(128 + signal_number);
}

// In the keeper (whose signal mask is already empty), before the program starts: arm the death
// signal, then check the parent did not die before it was armed.
void arm_death_signal(pid_t ptxbench_pid) {
  struct sigaction action {};
  action.sa_handler = &kill_own_group;
  ::sigaction(SIGTERM, &action, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != ptxbench_pid) kill_own_group(0);
}

// Everything the child needs, prepared before fork: after it, only async-signal-safe calls.
struct Launch {
  std::string exe_path;
  std::vector<std::string> argv;
  std::vector<std::string> envp;
  std::vector<char*> argv_c;
  std::vector<char*> envp_c;
  std::string workdir;
  Pipe out = make_pipe(), err = make_pipe(), in = make_pipe();
  Pipe exec_status = make_pipe();  // the child writes errno here when it cannot start
  Fd dev_null{::open("/dev/null", O_RDONLY | O_CLOEXEC)};

  bool stdin_pipe = false;

  Launch(std::string exe, const ProcessSpec& spec, bool pipe_stdin)
      : exe_path(std::move(exe)),
        argv(spec.argv),
        envp(merged_environment(spec.env)),
        argv_c(c_strings(argv)),
        envp_c(c_strings(envp)),
        workdir(spec.working_dir.string()),
        stdin_pipe(pipe_stdin) {}
  Launch(const Launch&) = delete;  // argv_c and envp_c point into argv and envp
  Launch& operator=(const Launch&) = delete;
};

// In the child: reports errno through the status pipe and exits.
[[noreturn]] void fail_start(const Launch& launch) {
  int e = errno;
  [[maybe_unused]] auto w = ::write(launch.exec_status.write.get(), &e, sizeof e);
  ::_exit(127);
}

// The forked child: it becomes the group's keeper and forks the program, which gets its
// descriptors, limits and working folder and execs. Only async-signal-safe calls.
[[noreturn]] void start_in_child(const ProcessSpec& spec, const Launch& launch,
                                 pid_t ptxbench_pid) {
  ::setpgid(0, 0);
  // The parent may block SIGTERM/SIGINT for its signal thread (termination.hpp): the mask is
  // inherited across exec, and a child must start with none blocked.
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  arm_death_signal(ptxbench_pid);
  const pid_t program = ::fork();
  if (program < 0) fail_start(launch);
  if (program > 0) keep_group(program);
  ::signal(SIGTERM, SIG_DFL);
  int stdin_fd = launch.stdin_pipe ? launch.in.read.get() : launch.dev_null.get();
  ::dup2(stdin_fd, STDIN_FILENO);
  ::dup2(launch.out.write.get(), STDOUT_FILENO);
  ::dup2(launch.err.write.get(), STDERR_FILENO);
  if (spec.address_space_limit_bytes) {
    rlimit limit{*spec.address_space_limit_bytes, *spec.address_space_limit_bytes};
    ::setrlimit(RLIMIT_AS, &limit);
  }
  for (const auto& extra : spec.limits) {
    rlimit limit{extra.value, extra.value};
    ::setrlimit(static_cast<__rlimit_resource_t>(extra.resource), &limit);
  }
  for (int fd : spec.inherited_fds) ::fcntl(fd, F_SETFD, 0);  // clears FD_CLOEXEC
  if (!launch.workdir.empty() && ::chdir(launch.workdir.c_str()) != 0) fail_start(launch);
  ::execve(launch.exe_path.c_str(), launch.argv_c.data(), launch.envp_c.data());
  fail_start(launch);
}

}  // namespace

void Fd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

// Appends what is readable on `fd` to `sink` up to `cap`; returns false at end of stream.
bool drain(int fd, std::string& sink, std::size_t cap, bool& truncated) {
  char buffer[65536];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
  std::size_t keep = std::min<std::size_t>(room, static_cast<std::size_t>(n));
  sink.append(buffer, keep);
  if (keep < static_cast<std::size_t>(n)) truncated = true;
  return true;
}

Spawned spawn(const ProcessSpec& spec, bool stdin_pipe) {
  PTXBENCH_CHECK(!spec.argv.empty(), "empty argv");
  Spawned spawned;
  if (children_stopped()) {
    spawned.error = "ptxbench is stopping";
    return spawned;
  }
  auto exe = find_in_path(spec.argv[0]);
  if (!exe) {
    spawned.error = spec.argv[0] + ": not found";
    return spawned;
  }
  Launch launch(exe->string(), spec, stdin_pipe);
  spawned.exe = launch.exe_path;
  const pid_t ptxbench_pid = ::getpid();
  pid_t pid = ::fork();
  PTXBENCH_CHECK(pid >= 0, std::strerror(errno));
  if (pid == 0) start_in_child(spec, launch, ptxbench_pid);
  ::setpgid(pid, pid);        // also from the parent, so the group exists before any kill
  register_child_group(pid);  // when stopping has begun this kills the group at once
  launch.out.write.reset();
  launch.err.write.reset();
  launch.in.read.reset();
  launch.exec_status.write.reset();
  int exec_errno = 0;
  if (::read(launch.exec_status.read.get(), &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    ::waitpid(pid, nullptr, 0);
    unregister_child_group(pid);
    spawned.error = fmt::format("{}: {}", launch.exe_path, std::strerror(exec_errno));
    return spawned;
  }
  spawned.pid = pid;
  spawned.in = std::move(launch.in.write);
  spawned.out = std::move(launch.out.read);
  spawned.err = std::move(launch.err.read);
  return spawned;
}

}  // namespace ptxbench::util::detail
