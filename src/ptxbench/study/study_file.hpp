// The study file (docs/study.md): the whole Fixit experiment in one YAML file — the base model,
// the teachers, the run grid, the held-out splits by rule, the training settings and the data
// variants. Read with util::FieldReader, so every problem is "FILE: FIELD: problem" and nothing
// runs before the whole file is checked. Provider entries and the grid are passed on to
// `ptxbench run` / `ptxbench fixit all`, which check them again with their own readers.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::study {

// The model a study starts from: an endpoint (a run.yaml model entry, replay included) for the
// base runs, and/or weights the Python trainer fine-tunes and serves.
struct BaseModel {
  std::string name = "base";
  std::optional<nlohmann::json> model;  // run.yaml model entry without `name`
  std::string weights;                  // local folder or hub id; empty: no training possible
  std::string revision;
};

struct Teacher {
  std::string name;
  nlohmann::json model;                     // provider entry (run.yaml model fields)
  std::optional<nlohmann::json> explainer;  // default: the teacher itself
};

// A held-out split: tasks matching any of its selectors (a task goes to the first split it
// matches; the rest are `train`).
struct HeldOutSplit {
  std::string name;
  std::vector<std::string> tasks;     // names or globs
  std::vector<int> head_dims;         // `_d<N>` in the task name
  std::vector<std::string> variants;  // `causal`: parameters.causal != 0
  std::vector<std::string> op_types;
};

enum class DataSource { kFixit, kKernelGen, kBoth };
enum class ReasoningSource { kTeacher, kSelf };
enum class Launcher { kLocal, kAccelerate, kSlurm };

struct DataVariant {
  std::string name;
  DataSource data = DataSource::kFixit;
  std::string balance_mode = "balanced";  // fixit recipe mode: balanced or volume
  std::optional<int> per_task_cap;
  std::optional<int> total;
  std::uint64_t seed = 0;
  std::optional<int> volume;  // at most this many training rows (after balancing)
  std::string teacher;        // a teacher's name; default: the first
  ReasoningSource reasoning = ReasoningSource::kTeacher;
  std::string length = "medium";  // explanation length bin
  bool retrieval = false;         // no training: the base model with the retrieval context
  int retrieve_k = 3;
};

struct Training {
  std::string recipe = "reference";  // built-in name or a file
  std::optional<int> max_steps;
  Launcher launcher = Launcher::kLocal;
  int gpus = 1;                    // accelerate: processes
  std::vector<std::string> slurm;  // srun options (launcher slurm)
  std::string python;              // the training venv's python; default: .deps/python-train
};

struct Serving {
  std::string engine = "builtin";  // builtin or vllm (ptxbench_train serve --engine)
  std::optional<int> max_new_tokens;
  int max_tokens = 4096;              // the run's max_tokens for served models
  std::optional<double> temperature;  // the run's temperature for served models (0: greedy)
  int ready_timeout_s = 1800;
};

struct StudyFile {
  std::filesystem::path path;  // the file; relative paths below are resolved against its folder
  std::filesystem::path out;
  std::filesystem::path tasks_dir;                 // empty: the built-in suite
  nlohmann::json grid = nlohmann::json::object();  // run.yaml grid fields
  std::vector<int> turn_limits;                    // empty: every turn up to grid.turns
  double fast_p = 1.2;                             // the second fast_p threshold shown
  BaseModel base;
  std::vector<Teacher> teachers;
  nlohmann::json fixit = nlohmann::json::object();  // extra `fixit all` fields
  std::vector<HeldOutSplit> heldout;
  Training training;
  Serving serving;
  std::filesystem::path published;  // folder of published CSVs, read at run time; may be empty
  std::vector<DataVariant> variants;

  const Teacher* teacher(const std::string& name) const;
};

// Reads and checks a study file; `out_override` (the --out flag) wins over the file's `out`.
util::Expected<StudyFile> read_study_file(const std::filesystem::path& path,
                                          const std::filesystem::path& out_override = {});
// The same from text (tests); `path` names it in messages and anchors relative paths.
util::Expected<StudyFile> parse_study_file(std::string_view text, const std::filesystem::path& path,
                                           const std::filesystem::path& out_override = {});

std::string_view to_string(DataSource source);
std::string_view to_string(ReasoningSource source);
std::string_view to_string(Launcher launcher);

}  // namespace ptxbench::study
