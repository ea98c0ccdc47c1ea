#include "ptxbench/cli/provider_help.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace ptxbench::cli {
namespace {

constexpr std::array<std::string_view, 6> kReplayKeys{"<trajectory-id>",
                                                      "<task>__<arch>__<context>__s<sample>",
                                                      "<task>__<arch>__<context>",
                                                      "<task>__<arch>",
                                                      "<task>",
                                                      "*"};

constexpr std::array<HelpRow, 7> kReplayLayouts{{
    {"FILE", "one reply, turn 1 of every trajectory"},
    {"DIR/<key>.md",
     "turn 1 under <key>: DIR/<task>.md, DIR/<task>__<arch>__<context>.md, "
     "DIR/<trajectory-id>.md ... (also .txt, .cu, .cuh)"},
    {"DIR/<key>/turn-N.md", "turn N under <key> (turns 1..N without gaps)"},
    {"DIR/turn-N.md", "turn N of every trajectory"},
    {"RUN_DIR", "a previous run folder: its responses/ replayed turn by turn"},
    {".md, .txt", "a reply as it is"},
    {".cu, .cuh", "source code, sent as one ```cuda block"},
}};

constexpr std::array<HelpRow, 5> kCommandProtocol{{
    {"stdin",
     "JSON {\"model\", \"messages\": [{\"role\", \"content\"}], \"context\": "
     "{\"trajectory_id\", \"task\", \"arch\", \"context_level\", \"sample\", \"turn\"}}"},
    {"PTXBENCH_TRAJECTORY_ID",
     "environment: the trajectory's id, e.g. "
     "me__gemm_n7168_k5120__hopper__none__s0"},
    {"PTXBENCH_TURN", "environment: the turn, from 1"},
    {"stdout",
     "the reply as plain text, or JSON {\"content\", \"reasoning_content\"?, "
     "\"usage\"?, \"finish_reason\"?}"},
    {"exit status", "non-zero: a provider error (not retried); past timeout_s: killed and retried"},
}};

std::string rows(std::span<const HelpRow> table) {
  std::size_t width = 0;
  for (const auto& row : table) width = std::max(width, row.what.size());
  std::string out;
  for (const auto& row : table) out += fmt::format("  {:<{}}  {}\n", row.what, width, row.meaning);
  return out;
}

}  // namespace

std::span<const HelpRow> replay_layouts() {
  return kReplayLayouts;
}

std::span<const std::string_view> replay_key_patterns() {
  return kReplayKeys;
}

std::span<const HelpRow> command_protocol() {
  return kCommandProtocol;
}

std::string providers_help() {
  return fmt::format(
      "Provider `replay` (--replay PATH): recorded replies. A call takes the reply of its turn "
      "under the most specific key present:\n  {}\nPATH may be:\n{}"
      "Provider `command` (--command PROGRAM): the program runs once per turn (argv, no shell).\n"
      "{}"
      "docs/running.md has the whole reference.",
      fmt::join(kReplayKeys, ", "), rows(kReplayLayouts), rows(kCommandProtocol));
}

}  // namespace ptxbench::cli
