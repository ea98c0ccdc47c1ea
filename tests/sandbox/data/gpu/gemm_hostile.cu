// Hostile GEMM candidates for the GPU sandbox suite (tests/sandbox/gpu_hostile_test.cpp): the
// test puts one "#define HOSTILE_<ATTACK>" line in front of this file. Each attack goes through
// syscall(2) where the lint would refuse the libc call (fork), as a determined model's would;
// then run() returns without writing C, so no attack can also pass.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

long raw_fork() {
  return syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
}

void spin() {
  for (;;) asm volatile("");
}

// What a candidate can read of the judge: printed to stderr, which reaches the verdict's
// message; the test looks for the judge's secret there.
void print_file(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  char buffer[8192];
  ssize_t n = read(fd, buffer, sizeof buffer);
  for (ssize_t i = 0; i < n; ++i)
    if (buffer[i] == '\0') buffer[i] = ' ';
  if (n > 0) fwrite(buffer, 1, static_cast<size_t>(n), stderr);
  close(fd);
}

}  // namespace

void run(tvm::ffi::TensorView a, tvm::ffi::TensorView b, tvm::ffi::TensorView c) {
  (void)a, (void)b, (void)c;
#if defined(HOSTILE_KILL_PARENT)
  kill(getppid(), SIGKILL);
  kill(-1, SIGKILL);
#elif defined(HOSTILE_OUTLIVE)
  if (raw_fork() == 0) {
    setsid();
    if (raw_fork() == 0) spin();
    _exit(0);
  }
#elif defined(HOSTILE_WRITE_OUTSIDE)
  for (const char* path :
       {"/root/.ptxbench_pwned", "/tmp/ptxbench_pwned", "/var/tmp/ptxbench_pwned"})
    close(open(path, O_CREAT | O_WRONLY, 0644));
  if (const char* home = getenv("HOME")) {
    std::string path = std::string(home) + "/.ptxbench_pwned";
    close(open(path.c_str(), O_CREAT | O_WRONLY, 0644));
  }
#elif defined(HOSTILE_READ_SECRETS)
  print_file("/proc/self/environ");
  print_file("/proc/1/environ");
  for (int pid = 2; pid < 64; ++pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/environ", pid);
    print_file(path);
  }
  std::abort();  // so that the stderr tail reaches the message
#elif defined(HOSTILE_PTRACE)
  for (int pid = 1; pid < 4096; ++pid) ptrace(PTRACE_ATTACH, pid, nullptr, nullptr);
#elif defined(HOSTILE_SOCKET)
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s >= 0) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(47613);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  }
#elif defined(HOSTILE_FORK_BOMB)
  for (int i = 0; i < 100000; ++i) {
    long p = raw_fork();
    if (p == 0) spin();
    if (p < 0) break;
  }
#elif defined(HOSTILE_FILL_DISK)
  static char block[1 << 20];
  for (int n = 0; n < 64; ++n) {
    char path[64];
    std::snprintf(path, sizeof path, "/tmp/fill%d", n);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0) break;
    while (write(fd, block, sizeof block) > 0) {
    }
    close(fd);
  }
#elif defined(HOSTILE_SPIN_AFTER_RETURN)
  std::thread(spin).detach();
#endif
}

TVM_FFI_DLL_EXPORT_TYPED_FUNC(run, run);
