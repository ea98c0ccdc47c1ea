// `ptxbench-worker probe [--job FILE]`: the executed-instruction probe. Runs the candidate once,
// untimed, on the job's workload (trial 0's inputs) under CUPTI SASS metrics and answers with a
// ProbeReport (eval/probe_report.hpp) in its reply: per executed pc of ONE kernel function, the
// warp-level execution counts, with the cubin CRC that attributes them.
//
// Which kernel: the job's probe request names it (mangled, as in the cubin). The collection
// window opens from the launch callback just before that function's first launch, so whatever
// the candidate launched before it does not matter, and all its launches during the call
// accumulate. This CUPTI reports one function per process, so a candidate with several kernels
// is probed by one process per kernel (eval/dynamic_sass.hpp: prove_execution). Kernels inside
// CUDA graphs are not seen by name: the report then says graph_launches > 0 and the CPU side
// calls the kernel's evidence inconclusive.
//
// The process never traces CUPTI activity (that would silently zero the counts) and exits right
// after its reply, so no code of the candidate runs after it (static destructors included).
#pragma once

namespace ptxbench::eval::gpu {

int run_probe_mode(int argc, char** argv);

}  // namespace ptxbench::eval::gpu
