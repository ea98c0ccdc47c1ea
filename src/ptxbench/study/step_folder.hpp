// One step's output folder, keyed by (step, variant): STUDY/steps/<step>/<variant>/. It is
// built aside in <variant>.partial/ and renamed into place when the step is complete, so after a
// kill -9 at any moment the folder either holds a finished step (skipped on resume) or does not
// exist (the step is redone from nothing; the stale .partial is removed first). Unlike
// util::StagedFolder the staging name is fixed, so the files a step writes (which record their
// paths) are the same on every run, and a finished step is never replaced.
#pragma once
#include <filesystem>
#include <string>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::study {

class StepFolder {
 public:
  StepFolder(const std::filesystem::path& study, std::string step, std::string variant);

  const std::string& step() const { return step_; }
  const std::string& variant() const { return variant_; }
  std::string label() const { return step_ + "/" + variant_; }
  const std::filesystem::path& out() const { return out_; }          // the finished folder
  const std::filesystem::path& partial() const { return partial_; }  // where the step writes
  bool done() const;
  // Removes a stale partial folder and creates an empty one.
  util::Expected<std::filesystem::path> begin() const;
  // Renames the partial folder into place (it must not exist yet).
  util::Expected<std::filesystem::path> publish() const;

 private:
  std::string step_;
  std::string variant_;
  std::filesystem::path out_;
  std::filesystem::path partial_;
};

}  // namespace ptxbench::study
