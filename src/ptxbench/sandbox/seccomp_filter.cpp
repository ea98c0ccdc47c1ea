#include "ptxbench/sandbox/seccomp_filter.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#ifdef PTXBENCH_HAVE_LIBSECCOMP
#include <seccomp.h>
#endif

namespace ptxbench::sandbox {

FilterFile::~FilterFile() {
  if (fd_ >= 0) ::close(fd_);
}

#ifdef PTXBENCH_HAVE_LIBSECCOMP

bool seccomp_built_in() {
  return true;
}

namespace {

// Owns a libseccomp context.
class Context {
 public:
  Context() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {}
  ~Context() {
    if (ctx_ != nullptr) seccomp_release(ctx_);
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  scmp_filter_ctx get() const { return ctx_; }

 private:
  scmp_filter_ctx ctx_;
};

// Refused with EPERM: none of these has a use in a kernel benchmark.
constexpr const char* kDeniedCalls[] = {
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "mount",
    "umount2",
    "pivot_root",
    "unshare",
    "setns",
    "bpf",
    "keyctl",
    "add_key",
    "request_key",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "open_by_handle_at",
    "name_to_handle_at",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "acct",
    "swapon",
    "swapoff",
    "reboot",
    "fsopen",
    "fsmount",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "quotactl",
    "lookup_dcookie",
    "syslog",
};

}  // namespace

util::Expected<FilterFile> compile_seccomp_filter(bool ip_sockets) {
  Context ctx;
  if (ctx.get() == nullptr) return util::make_error("seccomp_init failed");
  for (const char* name : kDeniedCalls) {
    const int number = seccomp_syscall_resolve_name(name);
    if (number == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), number, 0); rc != 0)
      return util::make_error(std::string("seccomp rule for ") + name + ": " + std::strerror(-rc));
  }
  // New user namespaces through clone(2) (clone3 passes its flags in memory: refused whole,
  // glibc then falls back to clone).
  seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                   SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
  seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // Local sockets only (the network namespace has nothing but loopback anyway); with
  // ip_sockets also IPv4/IPv6, still no raw packet, netlink or other families.
  if (!ip_sockets) {
    seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                     SCMP_A0(SCMP_CMP_NE, AF_UNIX));
  } else {
    static_assert(AF_UNIX == 1 && AF_INET == 2 && AF_INET6 == 10);
    for (int family = 0; family < AF_INET6; ++family) {
      if (family == AF_UNIX || family == AF_INET) continue;
      seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                       SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family)));
    }
    seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                     SCMP_A0(SCMP_CMP_GT, AF_INET6));
  }
  const int fd = ::memfd_create("ptxbench-seccomp", MFD_CLOEXEC);
  if (fd < 0) return util::make_error(std::string("memfd_create: ") + std::strerror(errno));
  FilterFile file(fd);
  if (int rc = seccomp_export_bpf(ctx.get(), fd); rc != 0)
    return util::make_error(std::string("seccomp_export_bpf: ") + std::strerror(-rc));
  if (::lseek(fd, 0, SEEK_SET) != 0)
    return util::make_error(std::string("lseek: ") + std::strerror(errno));
  return file;
}

#else

bool seccomp_built_in() {
  return false;
}

util::Expected<FilterFile> compile_seccomp_filter() {
  return util::make_error("built without libseccomp");
}

#endif

}  // namespace ptxbench::sandbox
