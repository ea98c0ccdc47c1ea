# ptxbench_split_sources (cmake/PtxbenchSources.cmake) on a tree whose own path holds a folder
# named `gpu`: the core library keeps its sources, and only files under a `gpu/` folder of the
# tree go to the GPU library. Run with `cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<dir> -P`.
include(${SOURCE_DIR}/cmake/PtxbenchSources.cmake)

set(root ${WORK_DIR}/home/me/gpu/ptxbench/src)
file(REMOVE_RECURSE ${WORK_DIR}/home)
foreach(file ptxbench/cli/app.cpp ptxbench/eval/scheduler.cpp ptxbench/eval/worker/gpu/judge.cpp
             ptxbench/eval/correctness/gpu/reference.cu ptxbench/gpuinfo/probe.cpp)
  file(WRITE ${root}/${file} "// test\n")
endforeach()

ptxbench_split_sources(ROOT ${root} PATTERNS ptxbench/*.cpp ptxbench/*.cu CORE core GPU gpu)

set(expected_core ${root}/ptxbench/cli/app.cpp ${root}/ptxbench/eval/scheduler.cpp
                  ${root}/ptxbench/gpuinfo/probe.cpp)
set(expected_gpu ${root}/ptxbench/eval/correctness/gpu/reference.cu
                 ${root}/ptxbench/eval/worker/gpu/judge.cpp)
list(SORT expected_core)
list(SORT expected_gpu)
if(NOT core STREQUAL expected_core)
  message(FATAL_ERROR "core sources under a checkout in /gpu/:\n  got ${core}\n  want ${expected_core}")
endif()
if(NOT gpu STREQUAL expected_gpu)
  message(FATAL_ERROR "GPU sources under a checkout in /gpu/:\n  got ${gpu}\n  want ${expected_gpu}")
endif()
file(REMOVE_RECURSE ${WORK_DIR}/home)
message(STATUS "core ${core}; gpu ${gpu}")
