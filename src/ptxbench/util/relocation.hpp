// Paths configured at build time (the source tree's tasks/, the PyPI parts under .deps/, the
// build tree's executables) found again when the built tree was copied elsewhere, source and
// build together: a path that still exists is kept; otherwise its place relative to the root it
// was configured under is looked up from the running executable's folder upwards. So nothing
// absolute has to hold on the machine a built tree is copied to.
#pragma once
#include <filesystem>
#include <string_view>
#include <vector>

namespace ptxbench::util {

// The folder of /proc/self/exe; empty when it cannot be read.
std::filesystem::path running_executable_dir();

// `configured` when it exists; else, for the first of `roots` that `configured` lies under, the
// nearest ancestor A of `start` (default: the running executable's folder) where
// A / (configured relative to that root) exists; else `configured` unchanged.
std::filesystem::path relocated(const std::filesystem::path& configured,
                                const std::vector<std::filesystem::path>& roots,
                                const std::filesystem::path& start = {});

// The same as a C string that lives as long as the process (for test macros that expand to it).
const char* relocated_c_str(const char* configured, const char* source_root,
                            const char* binary_root);

}  // namespace ptxbench::util
