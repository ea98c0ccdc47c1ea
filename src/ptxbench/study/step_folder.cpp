#include "ptxbench/study/step_folder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace ptxbench::study {

namespace fs = std::filesystem;

StepFolder::StepFolder(const fs::path& study, std::string step, std::string variant)
    : step_(std::move(step)), variant_(std::move(variant)) {
  out_ = study / "steps" / step_ / variant_;
  partial_ = study / "steps" / step_ / (variant_ + ".partial");
}

bool StepFolder::done() const {
  std::error_code error;
  return fs::is_directory(out_, error);
}

util::Expected<fs::path> StepFolder::begin() const {
  std::error_code error;
  fs::remove_all(partial_, error);
  if (error) return util::make_error(partial_.string() + ": " + error.message());
  fs::create_directories(partial_, error);
  if (error) return util::make_error(partial_.string() + ": " + error.message());
  return partial_;
}

util::Expected<fs::path> StepFolder::publish() const {
  if (done())
    return util::make_error(out_.string() + ": exists (a finished step is never replaced)");
  if (std::rename(partial_.c_str(), out_.c_str()) != 0)
    return util::make_error(out_.string() + ": cannot rename the finished step into place");
  // The rename is durable once the parent folder is synced.
  const int fd = ::open(out_.parent_path().c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  return out_;
}

}  // namespace ptxbench::study
