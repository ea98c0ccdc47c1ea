// Queries what the worker's GPU and libraries are (worker::InfoReply: the `info` call's reply,
// the record's toolchain and the part of every baseline cache key that says "this machine,
// these libraries").
#pragma once
#include "ptxbench/eval/worker/info_protocol.hpp"

namespace ptxbench::eval::gpu {

// Queries the current CUDA device (creates the context).
worker::InfoReply query_device_info();

}  // namespace ptxbench::eval::gpu
