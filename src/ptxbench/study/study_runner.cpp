#include "ptxbench/study/study_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ptxbench/study/comparison_page.hpp"
#include "ptxbench/study/served_model.hpp"
#include "ptxbench/study/splits.hpp"
#include "ptxbench/study/step_folder.hpp"
#include "ptxbench/study/study_check.hpp"
#include "ptxbench/util/folder_lock.hpp"
#include "ptxbench/util/fs.hpp"
#include "ptxbench/util/json_text.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::study {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Thrown when the study stops on purpose (--stop-after): not an error.
struct StopRequested {};

class Runner {
 public:
  Runner(const StudyFile& study, const StudyEnvironment& env) : study_(study), env_(env) {}

  util::Expected<fs::path> run() {
    auto status = steps();
    if (!status) return status.error();
    return *status;
  }

 private:
  util::Expected<fs::path> steps() {
    if (auto suite = suite_step(); !suite) return suite.error();
    if (auto base = base_run(); !base) return base.error();
    for (const auto& variant : study_.variants) {
      if (auto data = data_step(variant); !data) return data.error();
      if (!variant.retrieval)
        if (auto train = train_step(variant); !train) return train.error();
      if (auto run = tuned_run(variant); !run) return run.error();
    }
    return write_comparison(study_);
  }

  // Runs `step` unless it is finished: `body` writes into its partial folder.
  template <class Body>
  util::Expected<fs::path> step(const StepFolder& folder, Body body) {
    if (folder.done()) {
      say(fmt::format("{}: done, skipped", folder.label()));
    } else {
      say(fmt::format("{}: running (log: {})", folder.label(),
                      (folder.partial() / "log.txt").string()));
      auto partial = folder.begin();
      if (!partial) return partial.error();
      const auto started = std::chrono::steady_clock::now();
      if (auto done = body(*partial); !done)
        return util::make_error(folder.label() + ": " + done.error().message);
      auto published = folder.publish();
      if (!published) return published.error();
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::steady_clock::now() - started)
                               .count();
      say(fmt::format("{}: done in {} s", folder.label(), seconds));
    }
    if (env_.stop_after == folder.label()) {
      say(fmt::format("stopped after {} (--stop-after)", folder.label()));
      throw StopRequested{};
    }
    return folder.out();
  }

  // A subprocess with its output in `log`; ok when it exits with one of `ok_codes`.
  util::Expected<int> exec(std::vector<std::string> argv, const fs::path& log,
                           std::set<int> ok_codes = {0}) {
    util::SystemProcessRunner runner;
    auto result = runner.run({.argv = argv,
                              .timeout = std::chrono::hours(24 * 30),
                              .output_cap_bytes = 64u << 20,
                              .env = {{"PYTHONPATH", trainer_python_path(env_.train_src)}}});
    util::write_file_atomic(log, fmt::format("$ {}\n{}{}", fmt::join(argv, " "), result.stdout_text,
                                             result.stderr_text));
    if (result.started && !result.timed_out && result.term_signal == 0 &&
        ok_codes.contains(result.exit_code))
      return result.exit_code;
    std::string tail = result.stderr_text.size() > 2000
                           ? "..." + result.stderr_text.substr(result.stderr_text.size() - 2000)
                           : result.stderr_text;
    return util::make_error(fmt::format("{} {} ({}; log {}){}{}", argv[0],
                                        argv.size() > 1 ? argv[1] : "", result.describe_end(),
                                        log.string(), tail.empty() ? "" : "\n", tail));
  }

  fs::path suite_dir() const { return study_.out / "steps/suite/tasks/tasks"; }
  fs::path run_dir(const std::string& name) const {
    return study_.out / "steps/run" / name / "run";
  }
  fs::path fixit_dir(const std::string& teacher) const { return study_.out / "fixit" / teacher; }

  util::Expected<fs::path> suite_step() {
    return step(StepFolder(study_.out, "suite", "tasks"),
                [&](const fs::path& partial) -> util::Expected<bool> {
                  const fs::path source =
                      study_.tasks_dir.empty() ? env_.default_tasks : study_.tasks_dir;
                  auto assigned = write_split_suite(source, study_.heldout, partial / "tasks");
                  if (!assigned) return assigned.error();
                  util::write_file_atomic(partial / "splits.json",
                                          util::dump_json(Json(*assigned), 2) + "\n");
                  return true;
                });
  }

  // One `ptxbench run` of `model` over the study's grid into PARTIAL/run.
  util::Expected<bool> run_grid(const fs::path& partial, Json model, const Json& extra) {
    Json config = study_.grid;
    for (const auto& item : extra.items()) config[item.key()] = item.value();
    config["out"] = (partial / "run").string();
    config["tasks_dir"] = suite_dir().string();
    config["models"] = Json::array({std::move(model)});
    util::write_file_atomic(partial / "run.yaml", util::dump_json(config, 2) + "\n");
    // 1: some trajectories ended on provider errors; they stay in the run, as a report shows.
    auto code = exec({env_.ptxbench.string(), "run", "--config", (partial / "run.yaml").string()},
                     partial / "log.txt", {0, 1});
    if (!code) return code.error();
    if (*code == 1) say("note: some trajectories ended on provider errors (see the run's log)");
    return true;
  }

  Json served_entry(const std::string& name, const std::string& base_url) const {
    Json entry = {{"name", name},         {"provider", "openai"},
                  {"base_url", base_url}, {"model", name},
                  {"api_key_env", ""},    {"max_tokens", study_.serving.max_tokens}};
    if (study_.serving.temperature) entry["temperature"] = *study_.serving.temperature;
    return entry;
  }

  ServeRequest serve_request(const fs::path& partial) const {
    return {.python = env_.python,
            .train_src = env_.train_src,
            .weights = study_.base.weights,
            .revision = study_.base.revision,
            .served_name = study_.base.name,
            .engine = study_.serving.engine,
            .max_new_tokens = study_.serving.max_new_tokens,
            .log = partial / "server.log",
            .ready_file = partial / "server.ready",
            .ready_timeout_s = study_.serving.ready_timeout_s};
  }

  // The base model's provider entry named `name`: its endpoint, or the served weights.
  util::Expected<Json> base_entry(const std::string& name) const {
    Json entry = *study_.base.model;
    entry["name"] = name;
    return entry;
  }

  util::Expected<fs::path> base_run() {
    return step(StepFolder(study_.out, "run", study_.base.name),
                [&](const fs::path& partial) -> util::Expected<bool> {
                  if (study_.base.model)
                    return run_grid(partial, *base_entry(study_.base.name), Json::object());
                  auto served = ServedModel::start(serve_request(partial));
                  if (!served) return served.error();
                  return run_grid(partial, served_entry(study_.base.name, (*served)->base_url()),
                                  Json::object());
                });
  }

  // The `fixit all` config of one variant: the teacher's Fixit folder, the base run, one
  // recipe named after the variant, its explanation length and explainer.
  Json fixit_config(const DataVariant& v, const fs::path& partial) const {
    const Teacher& teacher = *study_.teacher(v.teacher);
    Json config = Json::object();
    for (const auto& item : study_.fixit.items())
      if (item.key() != "include_unverified") config[item.key()] = item.value();
    config["fixit"] = fixit_dir(teacher.name).string();
    config["runs"] = Json::array({run_dir(study_.base.name).string()});
    config["tasks_dir"] = suite_dir().string();
    Json recipe = {{"name", v.name}, {"mode", v.balance_mode}, {"seed", v.seed}};
    if (v.per_task_cap) recipe["per_task_cap"] = *v.per_task_cap;
    if (v.total) recipe["total"] = *v.total;
    config["recipes"] = Json::array({recipe});
    Json teacher_entry = teacher.model;
    teacher_entry["name"] = teacher.name;
    util::write_file_atomic(partial / "teacher.yaml", util::dump_json(teacher_entry, 2) + "\n");
    config["teacher"] = {{"config", (partial / "teacher.yaml").string()}, {"name", teacher.name}};
    Json explainer;
    std::string explainer_name;
    if (v.reasoning == ReasoningSource::kSelf) {
      explainer = *study_.base.model;
      explainer_name = study_.base.name;
    } else {
      explainer = teacher.explainer.value_or(teacher.model);
      explainer_name = teacher.name;
    }
    explainer["name"] = explainer_name;
    util::write_file_atomic(partial / "explainer.yaml", util::dump_json(explainer, 2) + "\n");
    config["explainer"] = {{"config", (partial / "explainer.yaml").string()},
                           {"name", explainer_name}};
    config["explain"] = {{"length", v.length}};
    config["export"] = {{"include_unverified", study_.fixit.value("include_unverified", false)},
                        {"kernelgen", v.data != DataSource::kFixit}};
    return config;
  }

  util::Expected<fs::path> data_step(const DataVariant& v) {
    return step(
        StepFolder(study_.out, "data", v.name),
        [&](const fs::path& partial) -> util::Expected<bool> {
          const Json config = fixit_config(v, partial);
          util::write_file_atomic(partial / "fixit.yaml", util::dump_json(config, 2) + "\n");
          auto code = exec({env_.ptxbench.string(), "fixit", "all", "--config",
                            (partial / "fixit.yaml").string()},
                           partial / "log.txt");
          if (!code) return code.error();
          const auto explainer = config["explainer"]["name"].get<std::string>();
          const fs::path exported =
              fixit_dir(v.teacher) / "export" / v.name / (v.length + "-" + explainer);
          if (!fs::is_directory(exported))
            return util::make_error(exported.string() + ": `fixit all` exported nothing here");
          return copy_rows(v, exported, partial);
        });
  }

  // The variant's rows: the kinds it asks for, at most `volume` training rows (in the export's
  // order), every held-out row (they measure held-out loss, never trained on).
  util::Expected<bool> copy_rows(const DataVariant& v, const fs::path& exported,
                                 const fs::path& partial) {
    std::vector<std::string> kinds;
    if (v.data != DataSource::kKernelGen) kinds.push_back("fixit");
    if (v.data != DataSource::kFixit) kinds.push_back("kernelgen");
    Json counts = Json::object();
    int train_rows = 0;
    int verified = 0;  // of the training rows: verified on a GPU
    int capped = 0;
    for (const std::string split : {"train", "heldout"}) {
      for (const auto& kind : kinds) {
        auto text = util::read_file(exported / split / (kind + ".jsonl"));
        if (!text) return text.error();
        std::istringstream in(*text);
        std::string kept;
        int n = 0;
        for (std::string line; std::getline(in, line);) {
          if (line.empty()) continue;
          if (split == "train" && v.volume && train_rows >= *v.volume) {
            ++capped;
            continue;
          }
          kept += line + "\n";
          ++n;
          if (split == "train") ++train_rows;
          const Json row = Json::parse(line, nullptr, false);
          if (split == "train" && row.is_object() && row.value("verified", false)) ++verified;
        }
        fs::create_directories(partial / "data" / split);
        util::write_file_atomic(partial / "data" / split / (kind + ".jsonl"), kept);
        counts[split][kind] = n;
      }
    }
    if (auto card = util::read_file(exported / "README.md"))
      util::write_file_atomic(partial / "export-card.md", *card);
    counts["left_out_by_volume"] = capped;
    counts["verified_train"] = verified;
    counts["export"] = exported.string();
    util::write_file_atomic(partial / "data.json", util::dump_json(counts, 2) + "\n");
    say(fmt::format("data/{}: {} training row(s) ({}), {} verified on a GPU, {} left out by volume",
                    v.name, train_rows, fmt::join(kinds, " + "), verified, capped));
    if (!v.retrieval && train_rows == 0)
      return util::make_error(
          "no training rows (see " + (partial / "export-card.md").string() +
          ": rows left out as unverified need fixit.include_unverified: true on a machine "
          "without a GPU)");
    return true;
  }

  util::Expected<fs::path> train_step(const DataVariant& v) {
    return step(StepFolder(study_.out, "train", v.name),
                [&](const fs::path& partial) -> util::Expected<bool> {
                  const Training& t = study_.training;
                  std::vector<std::string> argv;
                  if (t.launcher == Launcher::kSlurm) {
                    argv.push_back("srun");
                    argv.insert(argv.end(), t.slurm.begin(), t.slurm.end());
                  }
                  argv.insert(argv.end(),
                              {env_.python.string(), "-m", "ptxbench_train", "train", "--base",
                               study_.base.weights, "--data",
                               (study_.out / "steps/data" / v.name / "data").string(), "--out",
                               (partial / "train").string(), "--recipe", t.recipe});
                  if (!study_.base.revision.empty())
                    argv.insert(argv.end(), {"--revision", study_.base.revision});
                  if (t.max_steps)
                    argv.insert(argv.end(), {"--max-steps", std::to_string(*t.max_steps)});
                  // Under slurm, several GPUs are one accelerate group inside the job step.
                  if (t.launcher == Launcher::kAccelerate || t.gpus > 1)
                    argv.insert(argv.end(), {"--gpus", std::to_string(t.gpus)});
                  auto code = exec(argv, partial / "log.txt");
                  if (!code) return code.error();
                  if (!fs::exists(partial / "train/run_card.json"))
                    return util::make_error("the trainer wrote no run_card.json");
                  return true;
                });
  }

  util::Expected<fs::path> tuned_run(const DataVariant& v) {
    return step(
        StepFolder(study_.out, "run", v.name),
        [&](const fs::path& partial) -> util::Expected<bool> {
          if (v.retrieval) {
            Json extra = {
                {"contexts", Json::array({"retrieval"})},
                {"retrieval", {{"fixit", fixit_dir(v.teacher).string()}, {"k", v.retrieve_k}}}};
            if (study_.base.model) return run_grid(partial, *base_entry(v.name), extra);
            auto served = ServedModel::start(serve_request(partial));
            if (!served) return served.error();
            Json entry = served_entry(v.name, (*served)->base_url());
            entry["model"] = study_.base.name;
            return run_grid(partial, entry, extra);
          }
          ServeRequest request = serve_request(partial);
          request.adapters = {{v.name, study_.out / "steps/train" / v.name / "train/adapter"}};
          auto served = ServedModel::start(request);
          if (!served) return served.error();
          return run_grid(partial, served_entry(v.name, (*served)->base_url()), Json::object());
        });
  }

  void say(const std::string& line) {
    if (env_.say) env_.say(line);
  }

  const StudyFile& study_;
  const StudyEnvironment& env_;
};

}  // namespace

std::vector<std::string> step_labels(const StudyFile& study) {
  std::vector<std::string> labels = {"suite/tasks", "run/" + study.base.name};
  for (const auto& v : study.variants) {
    labels.push_back("data/" + v.name);
    if (!v.retrieval) labels.push_back("train/" + v.name);
    labels.push_back("run/" + v.name);
  }
  return labels;
}

util::Expected<util::FolderLock> open_study(const StudyFile& study, const StudyEnvironment& env) {
  const auto labels = step_labels(study);
  if (!env.stop_after.empty() &&
      std::find(labels.begin(), labels.end(), env.stop_after) == labels.end())
    return util::make_error(fmt::format("--stop-after {}: not a step of this study ({})",
                                        env.stop_after, fmt::join(labels, ", ")));
  if (auto checked = check_study(study, env.default_tasks); !checked) return checked.error();
  std::error_code error;
  fs::create_directories(study.out, error);
  if (error) return util::make_error(study.out.string() + ": " + error.message());
  return util::FolderLock::acquire(study.out, "study folder");
}

util::Expected<fs::path> run_study(const StudyFile& study, const StudyEnvironment& env,
                                   const util::FolderLock& /*held*/) {
  Runner runner(study, env);
  try {
    return runner.run();
  } catch (const StopRequested&) {
    return study.out;
  }
}

}  // namespace ptxbench::study
