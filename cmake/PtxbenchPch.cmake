# Precompiled headers. Most files include nlohmann/json, fmt and the same standard headers, and
# most tests GoogleTest too; parsing them is about 2 s of the 5-6 s a file takes on the 2-core
# machines the test command runs on. Each library parses them once, and the tests share one
# precompiled set. -DPTXBENCH_PRECOMPILED_HEADERS=OFF builds without.
option(PTXBENCH_PRECOMPILED_HEADERS "Precompile the common third-party and standard headers" ON)

set(PTXBENCH_PCH_HEADERS
    <algorithm> <atomic> <chrono> <cstddef> <cstdint> <filesystem> <functional> <map> <memory>
    <mutex> <optional> <set> <sstream> <string> <string_view> <thread> <utility> <vector>
    <fmt/format.h> <nlohmann/json.hpp>)

# The target's C++ files parse PTXBENCH_PCH_HEADERS once (its CUDA files, if any, as before).
function(ptxbench_precompile_headers target)
  if(NOT PTXBENCH_PRECOMPILED_HEADERS)
    return()
  endif()
  set(cxx_only "")
  foreach(header ${PTXBENCH_PCH_HEADERS})
    string(REPLACE ">" "$<ANGLE-R>" header "${header}")
    list(APPEND cxx_only "$<$<COMPILE_LANGUAGE:CXX>:${header}>")
  endforeach()
  target_precompile_headers(${target} PRIVATE ${cxx_only})
endfunction()
