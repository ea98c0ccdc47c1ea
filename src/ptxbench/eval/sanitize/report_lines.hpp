// The parts of compute-sanitizer's report lines the sanitizer stage reads: the summary counts
// and the code locations of an error. Plain scanning, not std::regex: libstdc++'s matcher
// recurses once per character, and a line of a megabyte (a program printing one, a huge kernel
// name) overflowed the stack and took the judging process down.
#pragma once
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxbench::eval {

// "ERROR SUMMARY: <count> error(s)" and nothing after it ("... errors were not printed" is not a
// count): the count as printed ("1,234"). `line` has no "========= " prefix.
std::optional<std::string_view> error_summary(std::string_view line);

// "RACECHECK SUMMARY: ... (<errors> error(s), <warnings> warning(s))", the last such parenthesis
// of the line: errors and warnings as printed.
std::optional<std::pair<std::string_view, std::string_view>> racecheck_summary(
    std::string_view line);

// The code locations of a report line: each <name> in "at <name>+0x<hex>" ("at" a whole word)
// and, with `device_frames`, in "Device Frame: <name>+0x<hex>", in order.
std::vector<std::string_view> located_names(std::string_view line, bool device_frames);

}  // namespace ptxbench::eval
