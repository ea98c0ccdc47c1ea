// Retrieval over verified repairs: the ranking (same task, then family / op type, then arch,
// verdict kind, code and feedback similarity, then id), the held-out rule, the loader that takes
// family and split from the suite, and the `retrieval` context level built from it.
#include "ptxbench/fixit/retrieve.hpp"

#include <gtest/gtest.h>

#include "../agent/fakes.hpp"
#include "fixit_samples.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::fixit {
namespace {

RetrievalDocument document(std::string id, std::string task, std::string family, std::string arch,
                           std::string verdict, std::string code = "", std::string error = "") {
  return {.mined_id = std::move(id),
          .task = task,
          .op_type = family == "mha_fwd" ? "mha_fwd_lse" : family,
          .family = family,
          .heldout = false,
          .arch = std::move(arch),
          .verdict = std::move(verdict),
          .error_text = std::move(error),
          .failing_code = std::move(code),
          .repaired_code = "repaired " + task,
          .reasoning = "reasoning " + task};
}

RetrievalQuery gemm_query(std::string verdict = "TIMEOUT") {
  return {.task = "gemm_n7168_k5120",
          .op_type = "gemm",
          .family = "gemm",
          .arch = "hopper",
          .verdict = std::move(verdict)};
}

std::vector<std::string> ids(const std::vector<RetrievalHit>& hits) {
  std::vector<std::string> out;
  for (const auto& hit : hits) out.push_back(hit.document->mined_id);
  return out;
}

TEST(Identifiers, LowerCasedIdentifiersOfTwoCharactersOrMore) {
  EXPECT_EQ(identifier_set("GEMM_n7168 wgmma.mma_async.sync 3x a mbar[2]"),
            (std::set<std::string>{"gemm_n7168", "wgmma", "mma_async", "sync", "mbar"}));
  EXPECT_TRUE(identifier_set("").empty());
}

TEST(Identifiers, Jaccard) {
  EXPECT_DOUBLE_EQ(jaccard({"a1", "b1", "c1"}, {"b1", "c1", "d1"}), 2.0 / 4.0);
  EXPECT_DOUBLE_EQ(jaccard({"a1"}, {"a1"}), 1.0);
  EXPECT_DOUBLE_EQ(jaccard({}, {}), 0.0);
  EXPECT_DOUBLE_EQ(jaccard({"a1"}, {}), 0.0);
}

TEST(Retrieval, SameTaskThenFamilyThenAnyTaskWithTheVerdict) {
  RetrievalIndex index({
      document("c", "mha_fwd_lse_d128", "mha_fwd", "hopper", "TIMEOUT"),
      document("b", "gemm_n4096_k4096", "gemm", "hopper", "COMPILE_ERROR"),
      document("d", "gemm_n7168_k5120", "gemm", "blackwell", "COMPILE_ERROR"),
      document("a", "gemm_n7168_k5120", "gemm", "hopper", "INCORRECT_NUMERICAL"),
      document("e", "mha_bwd_d64", "mha_bwd", "hopper", "COMPILE_ERROR"),  // nothing shared
  });
  auto hits = index.search(gemm_query(), 10);
  EXPECT_EQ(ids(hits), (std::vector<std::string>{"a", "d", "b", "c"}));
  EXPECT_EQ(hits[0].relation, TaskRelation::kSameTask);
  EXPECT_TRUE(hits[0].same_arch);
  EXPECT_FALSE(hits[1].same_arch);
  EXPECT_EQ(hits[2].relation, TaskRelation::kSameFamily);
  EXPECT_EQ(hits[3].relation, TaskRelation::kOther);
  EXPECT_TRUE(hits[3].same_verdict);
  EXPECT_EQ(ids(index.search(gemm_query(), 2)), (std::vector<std::string>{"a", "d"}));
}

TEST(Retrieval, VerdictKindBeforeSimilarity) {
  const std::string code = "mbarrier_wait phase parity producer consumer";
  RetrievalIndex index({
      document("similar", "gemm_n7168_k5120", "gemm", "hopper", "COMPILE_ERROR", code),
      document("same-verdict", "gemm_n7168_k5120", "gemm", "hopper", "TIMEOUT", "other words"),
  });
  RetrievalQuery query = gemm_query();
  query.code = code;
  auto hits = index.search(query, 2);
  EXPECT_EQ(ids(hits), (std::vector<std::string>{"same-verdict", "similar"}));
  EXPECT_DOUBLE_EQ(hits[1].similarity, 1.0);
}

TEST(Retrieval, SimilarityOfCodeAndFeedbackOrdersEqualRows) {
  RetrievalIndex index({
      document("far", "gemm_n4096_k4096", "gemm", "hopper", "TIMEOUT", "tma_load wgmma_fence",
               "deadline exceeded"),
      document("near", "gemm_n5120_k5120", "gemm", "hopper", "TIMEOUT",
               "mbarrier_wait phase_bit tma_load", "deadline exceeded mbarrier"),
  });
  RetrievalQuery query = gemm_query();
  query.code = "mbarrier_wait phase_bit tma_load";  // "near": 1, "far": 1/4
  query.feedback = "deadline exceeded";             // "near": 2/3, "far": 1
  auto hits = index.search(query, 2);
  ASSERT_EQ(ids(hits), (std::vector<std::string>{"near", "far"}));
  EXPECT_DOUBLE_EQ(hits[0].similarity, (1.0 + 2.0 / 3.0) / 2);
  EXPECT_DOUBLE_EQ(hits[1].similarity, (0.25 + 1.0) / 2);
}

TEST(Retrieval, TiesGoToTheSmallerIdWhateverTheOrderOfTheFolder) {
  auto twin = [](std::string id) {
    return document(std::move(id), "gemm_n7168_k5120", "gemm", "hopper", "TIMEOUT");
  };
  RetrievalIndex forward({twin("m-1"), twin("m-2"), twin("m-3")});
  RetrievalIndex backward({twin("m-3"), twin("m-2"), twin("m-1")});
  EXPECT_EQ(ids(forward.search(gemm_query(), 2)), (std::vector<std::string>{"m-1", "m-2"}));
  EXPECT_EQ(ids(backward.search(gemm_query(), 2)), (std::vector<std::string>{"m-1", "m-2"}));
}

TEST(Retrieval, AHeldOutTaskNeverSeesAHeldOutRow) {
  RetrievalDocument heldout = document("h", "gemm_n256_k7168", "gemm", "hopper", "TIMEOUT");
  heldout.heldout = true;
  RetrievalIndex index({heldout, document("t", "gemm_n4096_k4096", "gemm", "hopper", "TIMEOUT")});
  RetrievalQuery query{.task = "gemm_n256_k7168",
                       .op_type = "gemm",
                       .family = "gemm",
                       .heldout = true,
                       .arch = "hopper",
                       .verdict = "TIMEOUT"};
  EXPECT_EQ(ids(index.search(query, 5)), (std::vector<std::string>{"t"}));
  query.heldout = false;  // a train task may learn from any row
  EXPECT_EQ(ids(index.search(query, 5)), (std::vector<std::string>{"h", "t"}));
}

// A folder with three verified, explained repairs; family and split come from the suite.
TEST(Retrieval, LoadsFamilyAndSplitFromTheSuite) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  util::TempDir work;
  {
    auto folder = FixitFolder::open(work.path() / "fixit");
    ASSERT_TRUE(folder);
    std::vector<MinedRow> mined = {
        testing::mined_row("gemm_n7168_k5120", eval::Verdict::kTimeout, 1, 0),
        testing::mined_row("gemm_n256_k7168", eval::Verdict::kTimeout, 1, 1),  // held out
        testing::mined_row("mha_fwd_lse_d128", eval::Verdict::kTimeout, 1, 2),
        testing::mined_row("gemm_n4096_k4096", eval::Verdict::kCompileError, 1, 3)};  // unverified
    std::vector<RepairRow> repairs;
    std::vector<VerifiedRow> verified;
    std::vector<ExplainedRow> explained;
    for (const auto& row : mined) {
      repairs.push_back(
          {.mined_id = row.id, .teacher = "t", .status = RepairStatus::kRepaired, .code = "fixed"});
      verified.push_back({.mined_id = row.id,
                          .status = row.task == "gemm_n4096_k4096" ? VerifyStatus::kUnverified
                                                                   : VerifyStatus::kVerified});
      explained.push_back({.mined_id = row.id, .reasoning = "I saw the bug."});
    }
    folder->write_mined(mined);
    folder->write_repairs(repairs);
    folder->write_verified(verified);
    folder->write_explained(explained);
  }
  auto documents = load_retrieval_documents(work.path() / "fixit", *suite, false);
  ASSERT_TRUE(documents) << documents.error().message;
  ASSERT_EQ(documents->size(), 3u);
  EXPECT_EQ((*documents)[0].family, "gemm");
  EXPECT_FALSE((*documents)[0].heldout);
  EXPECT_TRUE((*documents)[1].heldout);
  EXPECT_EQ((*documents)[2].op_type, "mha_fwd_lse");
  EXPECT_EQ((*documents)[2].verdict, "TIMEOUT");
  auto with_unverified = load_retrieval_documents(work.path() / "fixit", *suite, true);
  ASSERT_TRUE(with_unverified);
  EXPECT_EQ(with_unverified->size(), 4u);

  // The run's first-turn query for a held-out task gets no held-out row; the gemm row of the
  // train task comes first (same family), the attention row not at all (nothing shared).
  const task::Task* heldout_task = task::find_task(*suite, "gemm_n256_k7168");
  ASSERT_NE(heldout_task, nullptr);
  RetrievalIndex index(std::move(*documents));
  auto hits = index.search(task_query(*heldout_task, arch::Arch::kHopper), 3);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].document->task, "gemm_n7168_k5120");
}

// The FP8 GEMM and decode families load with their own op types, and a query for an FP8 task
// finds FP8 repairs before bf16 GEMM ones (same family before a related one), a decode query the
// decode repair (same family) and nothing of the FP8 ones.
TEST(Retrieval, Fp8AndDecodeRowsCarryTheirOpTypeAndFamily) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  util::TempDir work;
  {
    auto folder = FixitFolder::open(work.path() / "fixit");
    ASSERT_TRUE(folder);
    std::vector<MinedRow> mined = {
        testing::mined_row("gemm_n7168_k5120", eval::Verdict::kIncorrectNumerical, 1, 0),
        testing::mined_row("gemm_fp8_n4096_k14336", eval::Verdict::kIncorrectNumerical, 1, 1),
        testing::mined_row("mha_decode_b16_d128", eval::Verdict::kIncorrectNumerical, 1, 2)};
    std::vector<RepairRow> repairs;
    std::vector<VerifiedRow> verified;
    std::vector<ExplainedRow> explained;
    for (const auto& row : mined) {
      repairs.push_back(
          {.mined_id = row.id, .teacher = "t", .status = RepairStatus::kRepaired, .code = "fixed"});
      verified.push_back({.mined_id = row.id, .status = VerifyStatus::kVerified});
      explained.push_back({.mined_id = row.id, .reasoning = "I saw the bug."});
    }
    folder->write_mined(mined);
    folder->write_repairs(repairs);
    folder->write_verified(verified);
    folder->write_explained(explained);
  }
  auto documents = load_retrieval_documents(work.path() / "fixit", *suite, false);
  ASSERT_TRUE(documents) << documents.error().message;
  ASSERT_EQ(documents->size(), 3u);
  EXPECT_EQ((*documents)[1].op_type, "gemm_fp8");
  EXPECT_EQ((*documents)[1].family, "gemm_fp8");
  EXPECT_EQ((*documents)[2].op_type, "mha_decode");
  EXPECT_EQ((*documents)[2].family, "mha_decode");
  RetrievalIndex index(std::move(*documents));
  const task::Task* fp8 = task::find_task(*suite, "gemm_fp8_n7168_k5120");
  ASSERT_NE(fp8, nullptr);
  auto fp8_hits = index.search(task_query(*fp8, arch::Arch::kHopper), 3);
  ASSERT_FALSE(fp8_hits.empty());
  EXPECT_EQ(fp8_hits[0].document->task, "gemm_fp8_n4096_k14336");
  const task::Task* decode = task::find_task(*suite, "mha_decode_b64_d128");
  ASSERT_NE(decode, nullptr);
  auto decode_hits = index.search(task_query(*decode, arch::Arch::kHopper), 3);
  ASSERT_FALSE(decode_hits.empty());
  EXPECT_EQ(decode_hits[0].document->task, "mha_decode_b16_d128");
  for (const auto& hit : decode_hits) EXPECT_NE(hit.document->op_type, "gemm_fp8");
}

// One mined row with its repair, verification `status` and accepted explanation.
void write_one_explained_repair(const FixitFolder& folder, VerifyStatus status) {
  MinedRow row = testing::mined_row("gemm_n7168_k5120", eval::Verdict::kTimeout, 1, 0);
  folder.write_mined({row});
  folder.write_repairs(
      {{.mined_id = row.id, .teacher = "t", .status = RepairStatus::kUnjudged, .code = "fixed"}});
  folder.write_verified({{.mined_id = row.id, .status = status}});
  folder.write_explained({{.mined_id = row.id, .reasoning = "I saw the bug."}});
}

// Retrieval reads a folder without its lock: a Fixit stage holding the folder (writing it) does
// not stop a run or a prompt from retrieving, and a path that is no Fixit folder is not created.
TEST(Retrieval, ReadsAFolderThatAStageHolds) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  util::TempDir work;
  auto held = FixitFolder::open(work.path() / "fixit");
  ASSERT_TRUE(held);
  write_one_explained_repair(*held, VerifyStatus::kVerified);
  auto documents = load_retrieval_documents(work.path() / "fixit", *suite, false);
  ASSERT_TRUE(documents) << documents.error().message;
  EXPECT_EQ(documents->size(), 1u);
  auto missing = load_retrieval_documents(work.path() / "typo", *suite, false);
  EXPECT_FALSE(missing);
  EXPECT_FALSE(std::filesystem::exists(work.path() / "typo"));
}

// A folder made without a GPU (every repair unverified) gives retrieval nothing; the note says
// how many unverified repairs there are and what would use them.
TEST(Retrieval, AnEmptyIndexSaysWhy) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  util::TempDir work;
  {
    auto folder = FixitFolder::open(work.path() / "fixit");
    ASSERT_TRUE(folder);
    write_one_explained_repair(*folder, VerifyStatus::kUnverified);
  }
  auto documents = load_retrieval_documents(work.path() / "fixit", *suite, false);
  ASSERT_TRUE(documents) << documents.error().message;
  EXPECT_TRUE(documents->empty());
  std::string note = empty_index_note(work.path() / "fixit", *suite, false);
  EXPECT_NE(note.find("no verified, explained repair to retrieve"), std::string::npos) << note;
  EXPECT_NE(note.find("1 explained repair(s) are unverified"), std::string::npos) << note;
  EXPECT_NE(note.find("--include-unverified"), std::string::npos) << note;
}

TEST(RetrievalLevel, AddsTheRepairsToTheSystemPrompt) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite);
  const task::Task* task = task::find_task(*suite, "gemm_n7168_k5120");
  ASSERT_NE(task, nullptr);
  auto level = prompt::parse_context_level("retrieval");
  ASSERT_TRUE(level);
  EXPECT_FALSE(
      prompt::build_prompt(*task, arch::Arch::kHopper, *level, prompt::default_context_dir()));
  auto index = std::make_shared<const RetrievalIndex>(std::vector<RetrievalDocument>{
      document("b", "gemm_n4096_k4096", "gemm", "hopper", "COMPILE_ERROR"),
      document("a", "gemm_n7168_k5120", "gemm", "hopper", "TIMEOUT")});
  auto hook = retrieval_hook(index, 1);
  auto built =
      prompt::build_prompt(*task, arch::Arch::kHopper, *level, prompt::default_context_dir(), hook);
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_NE(built->system.find("Repair 1: gemm_n7168_k5120 on hopper, TIMEOUT"), std::string::npos)
      << built->system;
  EXPECT_NE(built->system.find("repaired gemm_n7168_k5120"), std::string::npos);
  EXPECT_EQ(built->system.find("Repair 2"), std::string::npos);
}

std::shared_ptr<const RetrievalIndex> failure_index() {
  return std::make_shared<const RetrievalIndex>(std::vector<RetrievalDocument>{
      document("a", "gemm_n7168_k5120", "gemm", "hopper", "TIMEOUT"),
      document("b", "gemm_n7168_k5120", "gemm", "hopper", "COMPILE_ERROR", "tile_store acc"),
      document("c", "gemm_n4096_k4096", "gemm", "hopper", "COMPILE_ERROR")});
}

// After a failing turn: the repairs most like that failure, those already shown named only.
TEST(RetrievalFeedback, RepairsLikeTheFailureNotShownBefore) {
  auto hook = retrieval_feedback_hook(failure_index(), 2);
  agent::Trajectory trajectory;
  trajectory.messages = {{.role = "system", .content = "### Repair 1: ... [a]"}};
  const std::string reply = "```cuda\ntile_store(acc);\n```\n";
  std::string text = hook(testing::gemm_task(), arch::Arch::kHopper, trajectory, reply,
                          testing::compile_error(), "nvcc failed");
  // b (same task and verdict) then a (same task): b in full, a only named.
  EXPECT_NE(text.find("failures like this one (COMPILE_ERROR)"), std::string::npos) << text;
  EXPECT_NE(text.find("### Repair: gemm_n7168_k5120 on hopper, COMPILE_ERROR [b]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("repaired gemm_n7168_k5120"), std::string::npos);
  EXPECT_NE(text.find("shown earlier: [a]."), std::string::npos) << text;
  EXPECT_EQ(text.find("[c]"), std::string::npos) << text;
  EXPECT_EQ(hook(testing::gemm_task(), arch::Arch::kHopper, trajectory, reply, testing::passed(1.5),
                 "PASSED"),
            "");
}

// The turn loop adds it to the feedback of retrieval trajectories only, and not after the last
// turn (nobody reads that one).
TEST(RetrievalFeedback, OnlyRetrievalTrajectoriesBeforeTheirLastTurn) {
  util::TempDir work;
  auto directory = agent::RunDirectory::open(work.path() / "run");
  ASSERT_TRUE(directory);
  testing::FakeProvider provider([](const model::Conversation&, const model::CallContext&) {
    return testing::code_reply("broken");
  });
  agent::AgentOptions options{.max_turns = 2,
                              .failure_context = retrieval_feedback_hook(failure_index(), 1)};
  agent::TrajectoryRunner runner(*directory, provider, &testing::fake_evaluate, options);
  for (auto level : {prompt::ContextLevel::kRetrieval, prompt::ContextLevel::kNone}) {
    agent::TrajectorySpec spec{.model = "fake",
                               .provider = "fake",
                               .task = &testing::gemm_task(),
                               .arch = arch::Arch::kHopper,
                               .context = level};
    agent::Trajectory done = runner.run(spec, testing::kPrompt, std::nullopt);
    ASSERT_EQ(done.turns.size(), 2u);
    const bool retrieval = level == prompt::ContextLevel::kRetrieval;
    EXPECT_EQ(done.turns[0].feedback.find("[b]") != std::string::npos, retrieval)
        << done.turns[0].feedback;
    EXPECT_EQ(done.turns[1].feedback.find("[b]"), std::string::npos);
  }
}

// A task the user names: its first turn's query, or a held-out query when the suite lacks it.
TEST(Retrieval, ANamedTaskIsTheSuitesOrHeldOut) {
  auto suite = task::load_suite(task::default_tasks_dir());
  ASSERT_TRUE(suite) << suite.error().message;
  const task::Task& known = suite->front();
  auto query = named_task_query(*suite, known.name, arch::Arch::kHopper);
  EXPECT_EQ(query.task, known.name);
  EXPECT_EQ(query.family, known.family);
  EXPECT_EQ(query.heldout, known.split != "train");
  EXPECT_EQ(query.arch, "hopper");
  auto unknown = named_task_query(*suite, "no_such_task", arch::Arch::kBlackwell);
  EXPECT_EQ(unknown.task, "no_such_task");
  EXPECT_TRUE(unknown.heldout);
  EXPECT_TRUE(unknown.family.empty());
  EXPECT_EQ(unknown.arch, "blackwell");
}

TEST(Retrieval, RelationsByName) {
  EXPECT_EQ(to_string(TaskRelation::kSameTask), "same task");
  EXPECT_EQ(to_string(TaskRelation::kSameFamily), "same family");
  EXPECT_EQ(to_string(TaskRelation::kOther), "other task");
}

}  // namespace
}  // namespace ptxbench::fixit
