// Compiler text goes back to the model and into the record: it must quote nothing of the host
// but the candidate's own file. A diagnostic located in any other file (toolkit or system
// headers, or a host file the candidate tried to include) keeps its message, loses its folder
// and the source lines quoted under it; the candidate folder's own path is made relative.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace ptxbench::compile {

inline constexpr std::string_view kOutsidePathMark = "<outside the candidate>/";

std::string scrub_compiler_log(std::string_view log, const std::filesystem::path& candidate_dir);

}  // namespace ptxbench::compile
