// The study file reader: a complete file is read with its paths resolved, and every kind of bad
// input is one "FILE: FIELD: problem" message naming the field, before anything runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "ptxbench/study/served_model.hpp"
#include "ptxbench/study/study_file.hpp"

namespace ptxbench::study {
namespace {

using ::testing::HasSubstr;

constexpr const char* kValid = R"(
out: results/study
grid: {tasks: [gemm_n4096_k4096], turns: 2, evaluation: {gpu: false}}
base:
  model: {provider: replay, path: replies}
  weights: ./models/tiny
teachers:
  - {name: t1, model: {provider: replay, path: teacher}}
  - {name: t2, model: {provider: openai, model: big}, explainer: {provider: openai, model: writer}}
splits:
  heldout:
    - {name: sizes, tasks: ["gemm_n7168_*"]}
    - {name: d256, head_dims: [256]}
    - {name: causal, variants: [causal]}
training: {recipe: recipes/quick.yaml, max_steps: 3, launcher: slurm, slurm: [--gres=gpu:1]}
serving: {temperature: 0, max_tokens: 64}
published: ../shared/published
variants:
  - {name: balanced, balance: {per_task_cap: 4, seed: 1}, reasoning: {length: short}}
  - {name: narrow, data: both, volume: 100, teacher: t2, reasoning: {source: self, length: long}}
  - {name: in-context, retrieval: true, retrieve_k: 2}
)";

util::Expected<StudyFile> parse(const std::string& text) {
  return parse_study_file(text, "/work/s/study.yaml");
}

TEST(StudyFile, ReadsEveryPartAndResolvesPathsAgainstTheFile) {
  auto study = parse(kValid);
  ASSERT_TRUE(study) << study.error().message;
  EXPECT_EQ(study->out, "/work/s/results/study");
  EXPECT_EQ(study->base.weights, "/work/s/models/tiny");
  EXPECT_EQ(study->base.model->at("path"), "/work/s/replies");  // replay paths too
  EXPECT_EQ(study->teachers[0].model.at("path"), "/work/s/teacher");
  EXPECT_EQ(study->grid["turns"], 2);
  ASSERT_EQ(study->teachers.size(), 2u);
  EXPECT_TRUE(study->teachers[1].explainer.has_value());
  ASSERT_EQ(study->heldout.size(), 3u);
  EXPECT_EQ(study->heldout[1].head_dims, std::vector<int>{256});
  EXPECT_EQ(study->training.recipe, "/work/s/recipes/quick.yaml");
  EXPECT_EQ(study->training.launcher, Launcher::kSlurm);
  EXPECT_EQ(study->training.slurm, std::vector<std::string>{"--gres=gpu:1"});
  EXPECT_EQ(study->published, "/work/shared/published");
  ASSERT_EQ(study->variants.size(), 3u);
  EXPECT_EQ(study->variants[0].teacher, "t1");  // the first teacher by default
  EXPECT_EQ(study->variants[0].per_task_cap, 4);
  EXPECT_EQ(study->variants[1].data, DataSource::kBoth);
  EXPECT_EQ(study->variants[1].reasoning, ReasoningSource::kSelf);
  EXPECT_EQ(study->variants[1].volume, 100);
  EXPECT_TRUE(study->variants[2].retrieval);
  auto overridden = parse_study_file(kValid, "/work/s/study.yaml", "/elsewhere");
  ASSERT_TRUE(overridden);
  EXPECT_EQ(overridden->out, "/elsewhere");
}

TEST(StudyFile, AHubIdStaysAsWritten) {
  std::string text = kValid;
  text.replace(text.find("./models/tiny"), 13, "Qwen/Qwen3-8B");
  auto study = parse(text);
  ASSERT_TRUE(study) << study.error().message;
  EXPECT_EQ(study->base.weights, "Qwen/Qwen3-8B");
}

struct BadCase {
  std::string from;  // replaced in kValid ("" appends `to`)
  std::string to;
  std::string message;
};

TEST(StudyFile, BadInputIsOneMessageNamingTheFileAndField) {
  const std::vector<BadCase> cases = {
      {"", "bogus: 1\n", "/work/s/study.yaml: bogus: unknown field"},
      {"turns: 2", "models: []", "/work/s/study.yaml: grid.models: not a grid field"},
      {"turns: 2", "turns: 0",
       "/work/s/study.yaml: grid.turns: expected an integer from 1 to 1000"},
      {"out: results/study\n", "out: 3\n", "/work/s/study.yaml: out: expected a string"},
      {"  model: {provider: replay, path: replies}\n  weights: ./models/tiny\n", "  name: b\n",
       "/work/s/study.yaml: base.model: expected `model` (an endpoint or replay) or `weights`"},
      {"{name: t1,", "{name: t2,", "/work/s/study.yaml: teachers[1].name: used twice: t2"},
      {"{name: t1, model: {provider: replay, path: teacher}}", "{name: t1}",
       "/work/s/study.yaml: teachers[0].model: required"},
      {"{name: d256, head_dims: [256]}", "{name: d256}",
       "/work/s/study.yaml: splits.heldout[1].tasks: expected at least one of"},
      {"variants: [causal]", "variants: [sliding]",
       "/work/s/study.yaml: splits.heldout[2].variants: unknown variant sliding (causal)"},
      {"head_dims: [256]", "head_dims: [big]",
       "/work/s/study.yaml: splits.heldout[1].head_dims: expected a list of integers"},
      {"launcher: slurm", "launcher: k8s",
       "/work/s/study.yaml: training.launcher: expected local, accelerate or slurm (got k8s)"},
      {"launcher: slurm, slurm: [--gres=gpu:1]", "launcher: local, gpus: 2",
       "/work/s/study.yaml: training.gpus: more than one GPU needs launcher: accelerate"},
      {"launcher: slurm", "launcher: accelerate",
       "/work/s/study.yaml: training.slurm: srun options need launcher: slurm"},
      {"launcher: slurm, slurm: [--gres=gpu:1]", "launcher: slurm, gpus: 4", ""},
      {"max_steps: 3", "max_steps: 0",
       "/work/s/study.yaml: training.max_steps: expected an integer from 1 to 10000000 (got 0)"},
      {"temperature: 0", "temperature: -1",
       "/work/s/study.yaml: serving.temperature: expected a number from 0 to 10"},
      {"data: both", "data: all",
       "/work/s/study.yaml: variants[1].data: expected fixit, kernelgen or both (got all)"},
      {"teacher: t2", "teacher: t9",
       "/work/s/study.yaml: variants[1].teacher: no teacher named t9"},
      {"name: narrow", "name: balanced",
       "/work/s/study.yaml: variants[1].name: used twice: balanced"},
      {"name: narrow", "name: ../up",
       "/work/s/study.yaml: variants[1].name: expected a name of letters"},
      {"source: self", "source: peer",
       "/work/s/study.yaml: variants[1].reasoning.source: expected teacher or self (got peer)"},
      {"length: short", "length: brief",
       "/work/s/study.yaml: variants[0].reasoning.length: expected short, medium or long"},
      {"per_task_cap: 4", "per_task_cap: 0",
       "/work/s/study.yaml: variants[0].balance.per_task_cap: expected an integer from 1"},
      {"retrieve_k: 2", "retrieve_k: 2, colour: red",
       "/work/s/study.yaml: variants[2].colour: unknown field"},
      {"  - {name: in-context, retrieval: true, retrieve_k: 2}\n", "",
       ""},  // still valid: two variants
      {"\nvariants:\n", "\nignored:\n",
       "/work/s/study.yaml: variants: expected a non-empty list of data variants"},
      {"published: ../shared/published\n", "published: ../shared/published\npublished: x\n",
       "/work/s/study.yaml"},  // a duplicate key: the YAML loader's message names the file
      {"grid: {tasks: [gemm_n4096_k4096], turns: 2, evaluation: {gpu: false}}", "grid: [a]",
       "/work/s/study.yaml: grid: expected a mapping"},
  };
  for (const auto& c : cases) {
    std::string text = kValid;
    if (c.from.empty()) {
      text += c.to;
    } else {
      const auto at = text.find(c.from);
      ASSERT_NE(at, std::string::npos) << c.from;
      text.replace(at, c.from.size(), c.to);
    }
    auto study = parse(text);
    if (c.message.empty()) {
      EXPECT_TRUE(study) << c.to << ": " << study.error().message;
      continue;
    }
    ASSERT_FALSE(study) << c.to;
    EXPECT_THAT(study.error().message, HasSubstr(c.message)) << c.to;
  }
}

TEST(StudyFile, TrainingWithoutWeightsAndSelfReasoningWithoutAModelAreRefused) {
  std::string text = kValid;
  text.replace(text.find("  weights: ./models/tiny\n"), 25, "");
  auto study = parse(text);
  ASSERT_FALSE(study);
  EXPECT_THAT(study.error().message,
              HasSubstr("variants[0].retrieval: false needs base.weights to train on"));
  text = kValid;
  text.replace(text.find("  model: {provider: replay, path: replies}\n"), 43, "");
  study = parse(text);
  ASSERT_FALSE(study);
  EXPECT_THAT(study.error().message,
              HasSubstr("variants[1].reasoning.source: self needs base.model"));
}

TEST(StudyFile, OutIsRequiredUnlessGiven) {
  std::string text = kValid;
  text.replace(text.find("out: results/study\n"), 19, "");
  auto study = parse(text);
  ASSERT_FALSE(study);
  EXPECT_THAT(study.error().message, HasSubstr("out: required (or pass --out)"));
  EXPECT_TRUE(parse_study_file(text, "/work/s/study.yaml", "/o"));
}

// The trainer's PYTHONPATH keeps the caller's (packages installed into a folder, as on a GPU
// machine given wheels) after the package's own source.
TEST(TrainerPythonPath, KeepsTheCallersPythonPathAfterThePackage) {
  const char* before = std::getenv("PYTHONPATH");
  const std::optional<std::string> saved =
      before ? std::optional<std::string>(before) : std::nullopt;
  ::setenv("PYTHONPATH", "/site/a:/site/b", 1);
  EXPECT_EQ(trainer_python_path("/src/train"), "/src/train:/site/a:/site/b");
  ::unsetenv("PYTHONPATH");
  EXPECT_EQ(trainer_python_path("/src/train"), "/src/train");
  if (saved) ::setenv("PYTHONPATH", saved->c_str(), 1);
}

}  // namespace
}  // namespace ptxbench::study
