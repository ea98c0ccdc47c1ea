#include "ptxbench/util/staged_folder.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace ptxbench::util {
namespace fs = std::filesystem;
namespace {

Error error_of(const fs::path& path, int code) {
  return make_error(fmt::format("{}: {}", path.string(), std::strerror(code)));
}

// renameat2(RENAME_EXCHANGE): both names stay valid throughout. glibc 2.36 declares it, older
// ones do not, hence the raw system call.
bool exchange(const fs::path& a, const fs::path& b) {
  constexpr unsigned kRenameExchange = 1u << 1;
  return syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), kRenameExchange) == 0;
}

}  // namespace

Expected<fs::path> check_output_folder(const fs::path& out) {
  if (out.empty()) return make_error("the output folder is empty");
  std::error_code ec;
  const auto status = fs::status(out, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) return error_of(out, ec.value());
  if (fs::exists(status) && !fs::is_directory(status))
    return make_error(out.string() + ": exists and is not a folder");
  return out;
}

Expected<StagedFolder> StagedFolder::begin(const fs::path& out, Start start) {
  auto checked = check_output_folder(out);
  if (!checked) return checked.error();
  const auto absolute = fs::absolute(out).lexically_normal();
  // "runs/grid/" names the folder grid, not "".
  const auto target = absolute.has_filename() ? absolute : absolute.parent_path();
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return error_of(target.parent_path(), ec.value());
  // create_directory, unlike mkdtemp, gives the folder the mode (umask) a folder usually has.
  static std::atomic<unsigned> counter{0};
  fs::path name;
  for (bool created = false; !created;) {
    name = target.parent_path() /
           fmt::format(".{}.staging-{}-{}", target.filename().string(), getpid(), counter++);
    created = fs::create_directory(name, ec);
    if (ec) return error_of(target.parent_path(), ec.value());
  }
  StagedFolder folder(target, name);
  if (start == Start::kExisting && fs::is_directory(target)) {
    fs::copy(target, folder.staging_, fs::copy_options::recursive | fs::copy_options::copy_symlinks,
             ec);
    if (ec)
      return make_error(fmt::format("{}: copying into {}: {}", target.string(),
                                    folder.staging_.string(), ec.message()));
  }
  return folder;
}

StagedFolder::StagedFolder(StagedFolder&& other) noexcept
    : out_(std::move(other.out_)), staging_(std::move(other.staging_)) {
  other.staging_.clear();
}

StagedFolder::~StagedFolder() {
  if (staging_.empty()) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
}

Expected<fs::path> StagedFolder::publish() {
  if (::rename(staging_.c_str(), out_.c_str()) == 0) {  // out_ did not exist, or was empty
    staging_.clear();
    return out_;
  }
  if (errno != EEXIST && errno != ENOTEMPTY) return error_of(out_, errno);
  if (exchange(staging_, out_)) {
    std::error_code ignored;
    fs::remove_all(staging_, ignored);  // now the previous folder
    staging_.clear();
    return out_;
  }
  // No exchange on this file system: move the old folder aside, then the new one in.
  const auto previous = fs::path(staging_.string() + ".previous");
  if (::rename(out_.c_str(), previous.c_str()) != 0) return error_of(out_, errno);
  if (::rename(staging_.c_str(), out_.c_str()) != 0) {
    const int code = errno;
    ::rename(previous.c_str(), out_.c_str());
    return error_of(out_, code);
  }
  std::error_code ignored;
  fs::remove_all(previous, ignored);
  staging_.clear();
  return out_;
}

}  // namespace ptxbench::util
