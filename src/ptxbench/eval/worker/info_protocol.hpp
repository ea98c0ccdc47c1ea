// `ptxbench-worker info` (trusted, runs no candidate): the GPU, driver and libraries, for
// WorkerGpuStages::available(), the speed of light and the record's toolchain. This file is the
// one place its reply is written and read.
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
  std::string fingerprint;                       // what determines a baseline's algorithm choice
  std::map<std::string, std::string> toolchain;  // for the record: gpu, driver, libraries
};

nlohmann::json to_json(const InfoReply& reply);
util::Expected<InfoReply> info_reply_from_json(const nlohmann::json& body);

}  // namespace ptxbench::eval::worker
