// The teacher (or explainer) a command line names (`--teacher`, `--teacher-config`,
// `--teacher-command`, `--solutions`; the same for the explainer), as the stages take it.
#pragma once
#include <string>

#include "ptxbench/fixit/stages.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::fixit {

struct TeacherFlags {
  std::string kind;           // "replay": the replay catalog of `solutions_dir`
  std::string config_file;    // a provider config file (a run.yaml model entry)
  std::string command_line;   // a program and its arguments, as typed in a shell
  std::string solutions_dir;  // empty: the built-in solutions
};

// The program's words come from util::split_command_line (quotes kept together, nothing
// expanded); a command teacher is named by the stem of its last word (`python3 teacher.py`:
// teacher). Error: the command line's problem.
util::Expected<TeacherChoice> teacher_choice(const TeacherFlags& flags);

}  // namespace ptxbench::fixit
