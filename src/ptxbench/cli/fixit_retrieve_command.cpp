// `ptxbench fixit retrieve`: the verified repairs of a Fixit folder most like a task or a
// failure of it, as the `retrieval` context level would show them.
#include "ptxbench/cli/fixit_flags.hpp"
#include "ptxbench/cli/fixit_subcommands.hpp"
#include "ptxbench/fixit/retrieve.hpp"
#include "ptxbench/task/task_loader.hpp"
#include "ptxbench/util/fs.hpp"

namespace ptxbench::cli {
namespace {

struct RetrieveFlags {
  FixitFolderFlags where;
  std::string task, arch = "hopper", verdict, error, code;
  int k = 3;
  bool include_unverified = false;
};

void print_hits(const fixit::RetrievalIndex& index, const fixit::RetrievalQuery& query,
                const std::vector<fixit::RetrievalHit>& hits) {
  fmt::print("retrieve: {} document(s) indexed; {} match(es) for {} on {}{}{}\n", index.size(),
             hits.size(), query.task, query.arch, query.verdict.empty() ? "" : ", " + query.verdict,
             query.heldout ? " (held out: held-out rows left out)" : "");
  for (const auto& hit : hits)
    fmt::print("  {}  {} {} {}  [{}{}{}, similarity {:.3f}]\n", hit.document->mined_id,
               hit.document->task, hit.document->arch, hit.document->verdict,
               fixit::to_string(hit.relation), hit.same_arch ? ", same arch" : "",
               hit.same_verdict ? ", same verdict" : "", hit.similarity);
}

int run_retrieve(const RetrieveFlags& flags) {
  auto complain = [](const std::string& message) {
    fmt::print(stderr, "ptxbench fixit retrieve: {}\n", message);
    return static_cast<int>(kExitUsage);
  };
  auto env = fixit_environment(flags.where.tasks_dir, {});
  if (!env) return kExitUsage;
  auto arch = arch::parse(flags.arch);
  if (!arch) return complain("--arch: unknown arch " + flags.arch);
  if (!flags.verdict.empty() && !eval::parse_verdict(flags.verdict))
    return complain("--verdict: unknown verdict " + flags.verdict);
  if (flags.k < 1) return complain("-k: must be at least 1");
  fixit::RetrievalQuery query = fixit::named_task_query(env->suite, flags.task, *arch);
  if (task::find_task(env->suite, flags.task) == nullptr)
    fmt::print(stderr,
               "note: {} is not a task of the suite; it counts as held out (no held-out rows)\n",
               flags.task);
  query.verdict = flags.verdict;
  query.feedback = flags.error;
  if (!flags.code.empty()) {
    auto code = util::read_file(flags.code, util::kMaxConfigFileBytes);
    if (!code) return complain("--code: " + code.error().message);
    query.code = std::move(*code);
  }
  auto documents = fixit::load_retrieval_documents(std::filesystem::path(flags.where.folder),
                                                   env->suite, flags.include_unverified);
  if (!documents) return complain(documents.error().message);
  fixit::RetrievalIndex index(std::move(*documents));
  print_hits(index, query, index.search(query, static_cast<std::size_t>(flags.k)));
  return kExitOk;
}

}  // namespace

void add_fixit_retrieve(CLI::App& retrieve, CommandContext& context) {
  auto flags = std::make_shared<RetrieveFlags>();
  retrieve.add_option("--fixit", flags->where.folder, "The Fixit folder")->required();
  retrieve.add_option("--task", flags->task, "Task name")->required();
  retrieve.add_option("--arch", flags->arch, "Arch")->capture_default_str();
  retrieve.add_option("--verdict", flags->verdict, "Verdict kind");
  retrieve.add_option("--error", flags->error, "The failure's feedback or error text");
  retrieve.add_option("--code", flags->code, "File with the failing code");
  retrieve.add_option("--tasks-dir", flags->where.tasks_dir, "Task suite (default: built-in)");
  retrieve.add_option("-k", flags->k, "How many")->capture_default_str();
  retrieve.add_flag("--include-unverified", flags->include_unverified, "Also unverified repairs");
  on_fixit_run(retrieve, context, flags, &run_retrieve);
}

}  // namespace ptxbench::cli
