#include "ptxbench/eval/proof/ncu_counts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "ptxbench/util/check.hpp"

namespace ptxbench::eval {
namespace {

// One CSV line; fields may be quoted, with "" for a quote inside.
std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  return fields;
}

// "1,234" or "1234" or "1234.0"; nullopt for anything else ("n/a", "").
std::optional<std::int64_t> parse_count(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c != ',' && c != ' ') digits += c;
  }
  if (digits.empty()) return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || value < 0) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(value + 0.5);
}

std::optional<std::size_t> column(const std::vector<std::string>& header, std::string_view name) {
  const auto it = std::find(header.begin(), header.end(), name);
  if (it == header.end()) return std::nullopt;
  return static_cast<std::size_t>(it - header.begin());
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

}  // namespace

std::optional<std::map<std::string, std::int64_t>> parse_ncu_opcode_instances(
    std::string_view cell) {
  const auto open = cell.find('(');
  const auto total = parse_count(trimmed(cell.substr(0, open)));
  if (!total) return std::nullopt;
  std::map<std::string, std::int64_t> counts;
  if (open == std::string_view::npos) {
    if (*total == 0) return counts;
    return std::nullopt;
  }
  std::string_view list = trimmed(cell.substr(open + 1));
  if (list.empty() || list.back() != ')') return std::nullopt;
  list.remove_suffix(1);
  std::int64_t sum = 0;
  while (!list.empty()) {
    const auto end = std::min(list.find(';'), list.size());
    const std::string_view entry = trimmed(list.substr(0, end));
    list = end == list.size() ? std::string_view{} : list.substr(end + 1);
    const auto colon = entry.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string_view opcode = trimmed(entry.substr(0, colon));
    const auto count = parse_count(trimmed(entry.substr(colon + 1)));
    if (opcode.empty() || !count) return std::nullopt;
    counts[std::string(opcode)] += *count;
    sum += *count;
  }
  if (sum != *total) return std::nullopt;
  return counts;
}

util::Expected<std::vector<NcuKernelCounts>> parse_ncu_raw_csv(std::string_view text) {
  std::istringstream lines{std::string(text)};
  std::string line;
  std::vector<std::string> header;
  while (std::getline(lines, line)) {
    if (line.rfind("\"ID\",", 0) == 0) {
      header = split_csv_line(line);
      break;
    }
  }
  if (header.empty()) return util::make_error("ncu printed no raw CSV header");
  const auto name = column(header, "Kernel Name");
  const auto gmma = column(header, kNcuGmmaMetric);
  const auto tma = column(header, kNcuTmaMetric);
  const auto executed = column(header, kNcuExecutedMetric);
  const auto per_opcode = column(header, kNcuPerOpcodeMetric);
  if (!name || !gmma || !tma || !executed) {
    return util::make_error("the ncu CSV lacks the kernel name or a requested metric column");
  }
  std::map<std::string, NcuKernelCounts> by_kernel;
  std::vector<std::string> order;
  while (std::getline(lines, line)) {
    const std::vector<std::string> fields = split_csv_line(line);
    // The units row and any trailing program output have no launch ID.
    if (fields.size() != header.size() || !all_digits(fields[0])) continue;
    const auto g = parse_count(fields[*gmma]);
    const auto t = parse_count(fields[*tma]);
    const auto x = parse_count(fields[*executed]);
    auto [it, inserted] = by_kernel.try_emplace(fields[*name]);
    if (inserted) order.push_back(fields[*name]);
    NcuKernelCounts& counts = it->second;
    counts.kernel = fields[*name];
    // "n/a" for one launch (ncu could not collect it) spoils that kernel only, not the others.
    if (!g || !t || !x) {
      ++counts.unreadable_launches;
      continue;
    }
    ++counts.launches;
    counts.gmma += *g;
    counts.tma += *t;
    counts.executed += *x;
    const auto opcodes =
        per_opcode ? parse_ncu_opcode_instances(fields[*per_opcode]) : std::nullopt;
    if (!opcodes) {
      ++counts.launches_without_opcodes;
      continue;
    }
    for (const auto& [opcode, count] : *opcodes) counts.per_opcode[opcode] += count;
  }
  std::vector<NcuKernelCounts> out;
  for (const auto& kernel : order) out.push_back(by_kernel.at(kernel));
  return out;
}

std::filesystem::path resolve_ncu(const std::filesystem::path& ncu) {
  const std::string name = ncu.string();
  if (name.empty() || name.find('/') != std::string::npos) return ncu;
  if (auto in_path = util::find_in_path(name)) return *in_path;
  std::vector<std::filesystem::path> roots;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    roots.emplace_back(home);
  }
  roots.emplace_back("/usr/local/cuda");
  for (const auto& root : roots) {
    const std::filesystem::path candidate = root / "bin" / name;
    if (util::find_in_path(candidate.string())) return candidate;
  }
  return ncu;  // not found: the spawn reports it
}

std::vector<std::string> ncu_arguments(const NcuRequest& request) {
  std::vector<std::string> args{
      resolve_ncu(request.ncu).string(), "--clock-control", "none", "--metrics",
      fmt::format("{},{},{},{}", kNcuGmmaMetric, kNcuTmaMetric, kNcuExecutedMetric,
                  kNcuPerOpcodeMetric),
      "--print-metric-instances", "details", "--csv", "--page", "raw", "--print-units", "base",
      // Mangled names join with the disassembly's kernel names.
      "--print-kernel-base", "mangled"};
  args.insert(args.end(), request.program_argv.begin(), request.program_argv.end());
  return args;
}

std::vector<std::filesystem::path> ncu_installation_dirs(
    const std::filesystem::path& ncu, const std::vector<std::filesystem::path>& search_roots) {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  const std::filesystem::path resolved = resolve_ncu(ncu);
  const std::filesystem::path real = std::filesystem::canonical(resolved, ec);
  if (!ec) dirs.push_back(real.parent_path());
  for (const auto& root : search_roots) {
    if (std::filesystem::is_directory(root, ec)) dirs.push_back(root);
  }
  return dirs;
}

util::Expected<std::vector<NcuKernelCounts>> run_ncu_counts(util::ProcessRunner& runner,
                                                            const NcuRequest& request,
                                                            double* seconds) {
  PTXBENCH_CHECK(!request.program_argv.empty(), "run_ncu_counts without a program");
  util::ProcessSpec spec;
  spec.argv = ncu_arguments(request);
  spec.stdin_text = request.program_stdin;
  spec.timeout = request.timeout;
  spec.env = request.env;
  spec.read_paths = request.read_paths;
  for (auto& dir : ncu_installation_dirs(request.ncu)) spec.read_paths.push_back(std::move(dir));
  spec.loopback_ip_sockets = true;  // ncu reaches its target over TCP on loopback
  const util::ProcessResult result = runner.run(spec);
  if (seconds != nullptr) *seconds = std::chrono::duration<double>(result.wall).count();
  if (!result.started) return util::make_error("ncu could not start: " + result.spawn_error);
  if (result.timed_out) return util::make_error("ncu ran past its deadline");
  auto counts = parse_ncu_raw_csv(result.stdout_text);
  if (!counts) {
    // ncu's own reason ("==ERROR== ERR_NVGPUCTRPERM ..."), first of its error lines, bounded.
    std::string reason;
    for (const std::string* text : {&result.stdout_text, &result.stderr_text}) {
      const auto at = text->find("==ERROR==");
      if (at == std::string::npos || !reason.empty()) continue;
      reason = text->substr(at, std::min<std::size_t>(text->find('\n', at) - at, 240));
    }
    if (reason.empty()) {  // e.g. a failure of the ncu launcher itself
      std::string_view err = result.stderr_text;
      while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.remove_suffix(1);
      const auto line_start = err.rfind('\n');
      err = line_start == std::string_view::npos ? err : err.substr(line_start + 1);
      reason = std::string(err.substr(0, 240));
    }
    return util::make_error(fmt::format("{} ({}){}", counts.error().message, result.describe_end(),
                                        reason.empty() ? "" : ": " + reason));
  }
  return counts;
}

namespace {

// Hopper's warpgroup MMAs: bf16/fp16/int8 (GMMA) and FP8 (QGMMA). One ncu op metric counts both.
bool is_warpgroup_mma(const std::string& family) {
  return family == "GMMA" || family == "QGMMA";
}

// FLOPs of `executions` warp-level executions of `family` from the kernel's static shapes of that
// family, weighted by their static counts; nullopt when a shape is unreadable or the family is
// absent. `mixed` tells whether shapes differ.
std::optional<double> mma_flops_from_static_shapes(const std::string& family,
                                                   std::int64_t executions,
                                                   const sass::SassKernel& kernel, arch::Arch arch,
                                                   bool& mixed) {
  double static_flops = 0;
  std::int64_t static_count = 0;
  std::set<std::string> shapes;
  for (const auto& instruction : kernel.instructions) {
    const std::string of =
        instruction.family.empty() ? sass::family_of(instruction.opcode, arch) : instruction.family;
    if (of != family) continue;
    ++static_count;
    const auto flops = sass::flops_per_execution(instruction.opcode);
    if (!flops) return std::nullopt;
    static_flops += *flops;
    shapes.insert(instruction.opcode);
  }
  mixed = shapes.size() > 1;
  if (static_count == 0) return std::nullopt;
  const double per_instruction = static_flops / static_cast<double>(static_count);
  return static_cast<double>(executions) * per_instruction / warps_per_tensor_core_op(family);
}

// The warpgroup MMA family of the kernel's static SASS: QGMMA when it has FP8 MMAs only, else
// GMMA (the op metric cannot tell them apart, so a kernel with both is counted as GMMA).
std::string static_warpgroup_mma(const sass::SassKernel& kernel, arch::Arch arch) {
  bool gmma = false, qgmma = false;
  for (const auto& instruction : kernel.instructions) {
    const std::string family =
        instruction.family.empty() ? sass::family_of(instruction.opcode, arch) : instruction.family;
    gmma = gmma || family == "GMMA";
    qgmma = qgmma || family == "QGMMA";
  }
  return qgmma && !gmma ? "QGMMA" : "GMMA";
}

void add_note(KernelExecution& out, const std::string& note) {
  if (!out.note.empty()) out.note += "; ";
  out.note += note;
}

// Per-opcode counts: every family measured, warpgroup MMA FLOPs from each executed shape.
void count_every_family(const NcuKernelCounts& counts, const sass::SassKernel& kernel,
                        arch::Arch arch, KernelExecution& out) {
  out.measured_families.reset();
  std::map<std::string, double> mma_flops;
  std::map<std::string, std::int64_t> without_shape;
  for (const auto& [opcode, count] : counts.per_opcode) {
    const std::string family = sass::family_of(opcode, arch);
    if (family.empty()) continue;
    out.executions[family] += count;
    if (!is_warpgroup_mma(family)) continue;
    if (const auto flops = sass::flops_per_execution(opcode)) {
      mma_flops[family] += static_cast<double>(count) * *flops / warps_per_tensor_core_op(family);
    } else {
      without_shape[family] += count;
    }
  }
  add_note(out, "measured by ncu (every family, from its per-opcode counts)");
  for (const auto& [family, flops] : mma_flops) {
    if (flops > 0 && !without_shape.contains(family)) out.tensor_core_flops[family] = flops;
  }
  // ncu named an MMA without its shape: the static shapes stand in for those executions.
  for (const auto& [family, executions] : without_shape) {
    bool mixed = false;
    const auto estimate = mma_flops_from_static_shapes(family, executions, kernel, arch, mixed);
    if (!estimate) {
      add_note(out, family + " without a readable shape: FLOPs unknown");
      continue;
    }
    out.tensor_core_flops[family] = mma_flops[family] + *estimate;
    add_note(out, family + " FLOPs of executions without a shape estimated from the static shapes");
  }
}

// The op metrics only: the warpgroup MMA (GMMA, or QGMMA for an FP8-only kernel) and TMA
// measured, every other family left unmeasured.
void count_gmma_and_tma(const NcuKernelCounts& counts, const sass::SassKernel& kernel,
                        arch::Arch arch, KernelExecution& out) {
  const std::string mma = static_warpgroup_mma(kernel, arch);
  out.measured_families = std::set<std::string>{mma, "TMA"};
  out.executions[mma] = counts.gmma;
  out.executions["TMA"] = counts.tma;
  add_note(out, fmt::format("measured by ncu ({} and TMA only: no per-opcode counts)", mma));
  if (counts.gmma == 0) return;
  bool mixed = false;
  const auto flops = mma_flops_from_static_shapes(mma, counts.gmma, kernel, arch, mixed);
  if (!flops) {
    add_note(out, mma + " without a readable static shape: FLOPs unknown");
    return;
  }
  out.tensor_core_flops[mma] = *flops;
  if (mixed)
    add_note(out, mma + " FLOPs estimated from the static shapes weighted by their counts");
}

}  // namespace

KernelExecution execution_from_ncu(const std::vector<NcuKernelCounts>& counts,
                                   const sass::SassKernel& kernel, arch::Arch arch) {
  KernelExecution out;
  out.kernel = kernel.name;
  out.method = "ncu";
  const auto found = std::find_if(counts.begin(), counts.end(), [&](const NcuKernelCounts& c) {
    return c.kernel == kernel.name;
  });
  if (found == counts.end()) {
    out.note = "ncu did not report this kernel";
    return out;
  }
  if (found->unreadable_launches > 0) {
    out.note = fmt::format("ncu could not count {} of its {} launches", found->unreadable_launches,
                           found->unreadable_launches + found->launches);
    return out;
  }
  out.evidence = ExecutionEvidence::kMeasured;
  if (found->launches_without_opcodes == 0 && !found->per_opcode.empty()) {
    count_every_family(*found, kernel, arch, out);
  } else {
    count_gmma_and_tma(*found, kernel, arch, out);
  }
  return out;
}

void fill_inconclusive_with_ncu(util::ProcessRunner& runner, const NcuRequest& request,
                                const sass::SassModule& module, arch::Arch arch,
                                std::vector<KernelExecution>& kernels, double* ncu_seconds) {
  const bool needed = std::any_of(kernels.begin(), kernels.end(), [](const KernelExecution& k) {
    return k.evidence == ExecutionEvidence::kInconclusive;
  });
  if (!needed) return;
  const auto counts = run_ncu_counts(runner, request, ncu_seconds);
  for (KernelExecution& execution : kernels) {
    if (execution.evidence != ExecutionEvidence::kInconclusive) continue;
    if (!counts) {
      execution.note += (execution.note.empty() ? "" : "; ") + ("ncu: " + counts.error().message);
      continue;
    }
    const auto kernel =
        std::find_if(module.kernels.begin(), module.kernels.end(),
                     [&](const sass::SassKernel& k) { return k.name == execution.kernel; });
    if (kernel == module.kernels.end()) continue;
    KernelExecution measured = execution_from_ncu(*counts, *kernel, arch);
    if (measured.evidence == ExecutionEvidence::kMeasured) {
      measured.note = "probe: " + execution.note + "; " + measured.note;
      execution = std::move(measured);
    } else {
      execution.note += "; ncu: " + measured.note;
    }
  }
}

}  // namespace ptxbench::eval
