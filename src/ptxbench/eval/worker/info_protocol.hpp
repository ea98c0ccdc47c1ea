// `ptxbench-worker info` (trusted, runs no candidate): the GPU, driver and libraries, for
// StageSequence::available(), the speed of light and the record's toolchain. One type for the
// device's description: the worker fills it (gpu/device_info.hpp) and the trusted side reads it
// back; this file is the one place it is written and read as JSON.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::eval::worker {

struct InfoReply {
  int device = 0;
  std::string name;  // "NVIDIA H200"
  std::string uuid;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t free_memory_bytes = 0;
  int max_sm_clock_mhz = 0;
  // Everything that determines a baseline's algorithm choice, as one string (name, compute
  // capability, SMs, driver, CUDA, cuBLASLt and cuDNN versions): part of every baseline cache key.
  std::string fingerprint;
  std::map<std::string, std::string> toolchain;  // for the record: gpu, driver, libraries
};

nlohmann::json to_json(const InfoReply& reply);
util::Expected<InfoReply> info_reply_from_json(const nlohmann::json& body);

}  // namespace ptxbench::eval::worker
