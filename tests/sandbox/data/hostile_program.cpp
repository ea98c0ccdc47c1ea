// A native stand-in for a hostile candidate: each mode tries one attack on the host or the judge
// from inside the sandbox and reports what it got. "ESCAPED" on stdout means the attack worked;
// the sandbox tests fail on it. Usage: hostile_program MODE [JUDGE_PID] [PORT] [MARKER]
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int report(bool escaped, const std::string& what) {
  std::printf("%s: %s\n", escaped ? "ESCAPED" : "blocked", what.c_str());
  return escaped ? 10 : 0;
}

void spin_forever() {
  for (;;) asm volatile("");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  const pid_t judge = argc > 2 ? static_cast<pid_t>(std::atol(argv[2])) : 0;
  const int port = argc > 3 ? std::atoi(argv[3]) : 0;
  std::setvbuf(stdout, nullptr, _IONBF, 0);

  if (mode == "kill-parent") {
    const int rc = ::kill(::getppid(), SIGKILL);
    const int rc_judge = judge > 0 ? ::kill(judge, SIGKILL) : -1;
    return report(false, "kill(ppid)=" + std::to_string(rc) + " kill(judge)=" +
                             std::to_string(rc_judge) + " " + std::strerror(errno));
  }
  if (mode == "kill-all") {
    ::kill(-1, SIGKILL);  // everything this process may signal
    ::kill(0, SIGKILL);   // its own process group: ends this process
    return report(false, "still alive after kill(0)");
  }
  if (mode == "outlive") {
    // setsid + double fork, then spin: must not survive the evaluation.
    if (::fork() == 0) {
      ::setsid();
      if (::fork() == 0) spin_forever();
      ::_exit(0);
    }
    ::usleep(100000);
    return report(false, "left a spinning grandchild behind");
  }
  if (mode == "write-outside") {
    std::string home = std::getenv("HOME") ? std::getenv("HOME") : "/root";
    bool escaped = false;
    std::string what;
    for (const std::string& path :
         {std::string("/root/.ptxbench_pwned"), home + "/.ptxbench_pwned",
          std::string("/tmp/ptxbench_pwned"), std::string("/var/tmp/ptxbench_pwned"),
          std::string("/work/ptxbench_pwned")}) {
      const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
      what += path + (fd >= 0 ? "=opened " : "=refused ");
      if (fd >= 0) ::close(fd);
      // Only /tmp is the private scratch: a file there is allowed (and vanishes).
      if (fd >= 0 && path.rfind("/tmp/", 0) != 0) escaped = true;
    }
    return report(escaped, what);
  }
  if (mode == "read-secrets") {
    std::string found = read_all("/proc/self/environ") + read_all("/proc/1/environ");
    if (judge > 0) {
      found += read_all("/proc/" + std::to_string(judge) + "/environ");
      found += read_all("/proc/" + std::to_string(judge) + "/cmdline");
      const int fd = ::open(("/proc/" + std::to_string(judge) + "/mem").c_str(), O_RDONLY);
      if (fd >= 0) found += "judge mem opened";
    }
    for (char& c : found)
      if (c == '\0') c = ' ';
    std::fwrite(found.data(), 1, found.size(), stdout);  // the test looks for the secret in it
    return report(false, "read what it could");
  }
  if (mode == "ptrace") {
    long attached = judge > 0 ? ::ptrace(PTRACE_ATTACH, judge, nullptr, nullptr) : -1;
    const int judge_errno = errno;
    const pid_t child = ::fork();
    if (child == 0) {
      ::pause();
      ::_exit(0);
    }
    long own = ::ptrace(PTRACE_ATTACH, child, nullptr, nullptr);
    const int own_errno = errno;
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    return report(attached == 0 || own == 0,
                  "attach judge: " + std::string(std::strerror(judge_errno)) +
                      ", attach own child: " + std::strerror(own_errno));
  }
  if (mode == "socket") {
    const int tcp = ::socket(AF_INET, SOCK_STREAM, 0);
    bool connected = false;
    if (tcp >= 0) {
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<uint16_t>(port));
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      connected = ::connect(tcp, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    }
    const int e = errno;
    return report(connected, std::string("tcp socket ") + (tcp >= 0 ? "made" : "refused") + ": " +
                                 std::strerror(e));
  }
  if (mode == "fork-bomb") {
    int forked = 0;
    for (int i = 0; i < 100000; ++i) {
      const pid_t p = ::fork();
      if (p == 0) {
        ::pause();
        ::_exit(0);
      }
      if (p < 0) break;
      ++forked;
    }
    return report(forked >= 100000, "forked " + std::to_string(forked));
  }
  if (mode == "fill-disk") {
    std::vector<char> block(1 << 20, 'x');
    long written = 0;
    for (int n = 0; n < 64; ++n) {
      const std::string path = "/tmp/fill" + std::to_string(n);
      const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
      if (fd < 0) break;
      for (;;) {
        const ssize_t w = ::write(fd, block.data(), block.size());
        if (w <= 0) break;
        written += w;
      }
      ::close(fd);
    }
    return report(written >= (8l << 30), "wrote " + std::to_string(written >> 20) + " MiB");
  }
  if (mode == "eat-memory") {
    long eaten = 0;
    for (;;) {
      char* chunk = static_cast<char*>(std::malloc(64 << 20));
      if (chunk == nullptr) break;
      std::memset(chunk, 1, 64 << 20);
      eaten += 64;
      if (eaten >= (64l << 10)) break;
    }
    return report(eaten >= (64l << 10), "allocated " + std::to_string(eaten) + " MiB");
  }
  if (mode == "honest") {
    std::printf("ok\n");
    return 0;
  }
  return 2;
}
