#include "ptxbench/eval/static/pipeline_static.hpp"
#include "ptxbench/util/timestamps.hpp"

#include "ptxbench/eval/kernel_name.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "ptxbench/compile/elf_imports.hpp"
#include "ptxbench/compile/lint.hpp"
#include "ptxbench/eval/static/run_signature.hpp"
#include "ptxbench/eval/static/static_verdict.hpp"
#include "ptxbench/extract/extract.hpp"
#include "ptxbench/sass/sass.hpp"
#include "ptxbench/util/hash.hpp"

namespace ptxbench::eval {
namespace {

using Clock = std::chrono::steady_clock;

using util::seconds_since;

std::string demangle(const std::string& name) {
  return KernelName(name).demangled();
}

// The first lines of nvcc's log that say what is wrong (errors first), for the one-line message
// and the stage record; the whole log stays in Evaluation.compile.log.
std::string compile_error_summary(const compile::CompileOutput& output) {
  std::vector<std::string> errors;
  std::string_view rest = output.log;
  while (!rest.empty() && errors.size() < 5) {
    const auto newline = rest.find('\n');
    const auto line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view{} : rest.substr(newline + 1);
    if (line.find("error") != std::string_view::npos) errors.emplace_back(line);
  }
  if (errors.empty()) return output.failure;
  return fmt::format("{}: {}", output.failure, fmt::join(errors, "\n"));
}

void fail(Evaluation& e, Stage stage, Verdict verdict, std::string message) {
  auto& record = e.stage(stage);
  record.status = StageStatus::kFailed;
  record.message = message;
  e.verdict = verdict;
  e.message = std::move(message);
  for (int s = static_cast<int>(stage) + 1; s <= static_cast<int>(Stage::kTiming); ++s) {
    auto& later = e.stage(static_cast<Stage>(s));
    later.status = StageStatus::kSkipped;
    later.message = fmt::format("not reached: {} failed", to_string(stage));
  }
}

void pass(Evaluation& e, Stage stage, double seconds, std::string message = {}) {
  auto& record = e.stage(stage);
  record.status = StageStatus::kPassed;
  record.seconds += seconds;
  record.message = std::move(message);
}

std::vector<KernelReport> kernel_reports(const compile::CompileOutput& compiled,
                                         const sass::SassModule& sass) {
  std::vector<KernelReport> reports;
  auto report_for = [&](const std::string& name) -> KernelReport& {
    auto it = std::find_if(reports.begin(), reports.end(),
                           [&](const KernelReport& r) { return r.name == name; });
    if (it != reports.end()) return *it;
    reports.push_back(KernelReport{.name = name, .display_name = demangle(name)});
    return reports.back();
  };
  for (const auto& k : compiled.kernels) {
    auto& r = report_for(k.name);
    r.registers = k.registers;
    r.shared_bytes = k.shared_bytes;
    r.spill_store_bytes = k.spill_store_bytes;
    r.spill_load_bytes = k.spill_load_bytes;
  }
  for (const auto& k : sass.kernels) report_for(k.name).static_families = k.family_counts;
  return reports;
}

}  // namespace

std::vector<FamilyEvidence> static_family_evidence(const task::Task& task, arch::Arch arch,
                                                   const sass::SassModule& sass) {
  std::vector<std::string> families = sass::tracked_families(arch);
  std::vector<std::string> requested;
  if (auto it = task.requested.find(arch); it != task.requested.end()) requested = it->second;
  for (const auto& r : requested) {
    if (std::find(families.begin(), families.end(), r) == families.end()) families.push_back(r);
  }
  std::vector<FamilyEvidence> evidence;
  for (const auto& family : families) {
    evidence.push_back(FamilyEvidence{
        .family = family,
        .requested = std::find(requested.begin(), requested.end(), family) != requested.end(),
        .static_count = sass.family_count(family)});
  }
  return evidence;
}

namespace {

// Each stage below records its seconds and outcome in `e`; a stage that fails sets the verdict
// (fail) and the caller stops.

// 1. extract: the code of a reply's fenced block, or the source file as given.
std::optional<std::string> extract_stage(Evaluation& e, const CandidateInput& input) {
  const auto start = Clock::now();
  std::optional<std::string> code =
      input.is_markdown ? extract::extract_code(input.text) : std::optional(input.text);
  if (code && code->find_first_not_of(" \t\r\n") == std::string::npos) code.reset();
  e.stage(Stage::kExtract).seconds = seconds_since(start);
  if (!code) {
    fail(e, Stage::kExtract, Verdict::kNoCode,
         input.is_markdown ? "the response has no fenced code block" : "the source file is empty");
    return std::nullopt;
  }
  e.source_hash = util::hash_hex(*code);
  pass(e, Stage::kExtract, 0,
       fmt::format("{} lines", std::count(code->begin(), code->end(), '\n') + 1));
  return code;
}

// 2a. lint, source pre-check (a clearer message; the object check is the authority).
bool source_lint_stage(Evaluation& e, const std::string& code) {
  const auto start = Clock::now();
  auto refused = compile::check_source_includes(code);
  e.stage(Stage::kLint).seconds = seconds_since(start);
  if (refused) fail(e, Stage::kLint, Verdict::kForbidden, *refused);
  return !refused;
}

// 3. compile
compile::CompileOutput compile_stage(Evaluation& e, const StaticContext& context, arch::Arch arch,
                                     const std::string& code,
                                     const std::filesystem::path& work_dir) {
  auto compiled = compile::compile_candidate(context.runner, context.compile, arch, code, work_dir);
  e.compile = CompileInfo{.command = compiled.command,
                          .seconds = compiled.seconds,
                          .log = compiled.log,
                          .log_truncated = compiled.log_truncated,
                          .cached = compiled.cached};
  e.stage(Stage::kCompile).seconds = compiled.seconds;
  if (!compiled.succeeded) {
    fail(e, Stage::kCompile, Verdict::kCompileError, compile_error_summary(compiled));
  } else {
    pass(e, Stage::kCompile, 0, fmt::format("{} kernels", compiled.kernels.size()));
  }
  return compiled;
}

// 2b. lint, what the object links and imports, and whether run() can be called at all.
bool object_lint_stage(Evaluation& e, const task::Task& task, const std::string& code,
                       const compile::CompileOutput& compiled,
                       const std::filesystem::path& work_dir) {
  auto start = Clock::now();
  auto imports = compile::read_elf_imports(compiled.shared_object);
  e.stage(Stage::kLint).seconds += seconds_since(start);
  if (!imports) {
    fail(e, Stage::kLint, Verdict::kInternalError, imports.error().message);
    return false;
  }
  start = Clock::now();
  auto includes = compile::resolved_includes(work_dir);
  if (!includes) {
    fail(e, Stage::kLint, Verdict::kInternalError, includes.error().message);
    return false;
  }
  auto forbidden = compile::check_resolved_includes(*includes);
  if (!forbidden) forbidden = compile::check_imports(*imports);
  // The exported run() must take the task's tensors: a call that cannot succeed is decided
  // here, on any machine (the worker's call would fail the same way).
  std::optional<std::string> mismatch;
  if (!forbidden)
    mismatch = signature_mismatch(task, read_run_signature(code, imports->defined_functions));
  e.stage(Stage::kLint).seconds += seconds_since(start);
  if (forbidden || mismatch) {
    if (forbidden) fail(e, Stage::kLint, Verdict::kForbidden, *forbidden);
    if (mismatch)
      fail(e, Stage::kLint, Verdict::kRuntimeError, "run() cannot be called: " + *mismatch);
    e.stage(Stage::kCompile).status = StageStatus::kPassed;  // it compiled; the lint refused it
    e.stage(Stage::kCompile).message = fmt::format("{} kernels", compiled.kernels.size());
    return false;
  }
  pass(e, Stage::kLint, 0, fmt::format("links {}", fmt::join(imports->needed, ", ")));
  return true;
}

// The static SASS stage's message: the families present and the requested ones absent.
std::string families_summary(const Evaluation& e, std::size_t kernels) {
  std::vector<std::string> present, missing;
  for (const auto& f : e.families) {
    if (f.static_count > 0) present.push_back(fmt::format("{} x{}", f.family, f.static_count));
    if (f.requested && f.static_count == 0) missing.push_back(f.family);
  }
  std::string summary =
      fmt::format("{} kernels; families: {}", kernels,
                  present.empty() ? "none" : fmt::format("{}", fmt::join(present, ", ")));
  if (!missing.empty())
    summary += fmt::format("; requested but absent: {}", fmt::join(missing, ", "));
  return summary;
}

// 4. static SASS: the kernels' resources and the instruction families in the disassembly.
std::optional<sass::SassModule> static_sass_stage(Evaluation& e, const task::Task& task,
                                                  arch::Arch arch, const StaticContext& context,
                                                  const compile::CompileOutput& compiled,
                                                  const std::filesystem::path& work_dir) {
  const auto start = Clock::now();
  auto sass = sass::disassemble(context.runner, compiled.shared_object, arch, work_dir);
  e.stage(Stage::kStaticSass).seconds = seconds_since(start);
  if (!sass) {
    fail(e, Stage::kStaticSass, Verdict::kInternalError,
         "disassembly failed: " + sass.error().message);
    return std::nullopt;
  }
  e.toolchain["disassembler"] = sass->tool_version;
  e.kernels = kernel_reports(compiled, *sass);
  e.families = static_family_evidence(task, arch, *sass);
  pass(e, Stage::kStaticSass, 0, families_summary(e, sass->kernels.size()));
  return std::move(*sass);
}

}  // namespace

StaticOutcome run_static_stages(const task::Task& task, arch::Arch arch,
                                const CandidateInput& input, const StaticContext& context,
                                const std::filesystem::path& work_dir) {
  StaticOutcome out;
  Evaluation& e = out.evaluation;
  e.task = task.name;
  e.arch = arch;
  e.source_name = input.source_name;
  e.toolchain = context.toolchain;
  for (int s = 0; s <= static_cast<int>(Stage::kTiming); ++s) e.stage(static_cast<Stage>(s));

  const auto code = extract_stage(e, input);
  if (!code || !source_lint_stage(e, *code)) return out;
  const auto compiled = compile_stage(e, context, arch, *code, work_dir);
  if (!compiled.succeeded || !object_lint_stage(e, task, *code, compiled, work_dir)) return out;
  // 4a. no device code at all (ptxas compiled no entry function): nothing to disassemble or
  // run, and the requested families cannot execute, on any machine.
  if (compiled.kernels.empty()) {
    e.families = static_family_evidence(task, arch, sass::SassModule{});
    fail(e, Stage::kStaticSass, Verdict::kInstructionsAbsent, no_device_code_message(e));
    return out;
  }
  auto sass = static_sass_stage(e, task, arch, context, compiled, work_dir);
  if (!sass) return out;
  e.verdict = Verdict::kNotRun;  // the GPU stages decide the rest
  out.compiled = CompiledCandidate{.shared_object = compiled.shared_object,
                                   .cubin = sass->cubin,
                                   .source_hash = e.source_hash,
                                   .sass = std::move(*sass)};
  return out;
}

}  // namespace ptxbench::eval
