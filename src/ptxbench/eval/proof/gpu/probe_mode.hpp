// `ptxbench-worker probe [--job FILE]`: the executed-instruction probe. Prepares the job's
// workload (trial 0's inputs, poisoned outputs), then runs the candidate once, untimed, under
// CUPTI SASS metrics and answers with a ProbeReport (eval/proof/probe_protocol.hpp) in its reply:
// per executed pc of ONE kernel function, the warp-level execution counts, with the cubin CRC that
// attributes them.
//
// Which kernel: the first kernel function run() launches. This CUPTI reports one function per
// process; the window stayed empty when GPU work (a cudaMemset) ran between its config and the
// launch, and when it was enabled from a launch callback to pick a later kernel (H200 runs of
// tests/eval/proof/device), so the workload is prepared first and the window opened right
// before run(). The report lists every function run()
// launched, so the CPU side knows which kernels it could not observe (eval/dynamic_sass.hpp).
// Kernels inside CUDA graphs are not seen by name (graph_launches > 0).
//
// The process never traces CUPTI activity (that would silently zero the counts) and exits right
// after its reply, so no code of the candidate runs after it (static destructors included).
#pragma once

namespace ptxbench::eval::gpu {

int run_probe_mode(int argc, char** argv);

}  // namespace ptxbench::eval::gpu
