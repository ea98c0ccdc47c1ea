// What `ptxbench run --help` says about the providers that read files or run programs: the
// replay layouts (model/replay_provider.cpp reads them) and the `command` protocol
// (model/command_provider.cpp speaks it). The tables are data so that tests can hold them
// against the code that implements them (tests/cli/provider_help_test.cpp).
#pragma once
#include <span>
#include <string>
#include <string_view>

namespace ptxbench::cli {

struct HelpRow {
  std::string_view what;     // a path pattern, a variable, a field
  std::string_view meaning;  // one line
};

// The files a replay `path` may name, most specific reply key first.
std::span<const HelpRow> replay_layouts();
// The replay keys a call looks under, in the order it tries them (placeholders in <>).
std::span<const std::string_view> replay_key_patterns();
// The `command` provider: what the program gets (stdin JSON fields, environment) and prints.
std::span<const HelpRow> command_protocol();

// All of the above as the footer of `run --help`.
std::string providers_help();

}  // namespace ptxbench::cli
