#include "ptxbench/eval/worker/info_protocol.hpp"

#include "ptxbench/eval/worker/protocol_fields.hpp"

namespace ptxbench::eval::worker {

nlohmann::json to_json(const InfoReply& r) {
  return nlohmann::json{{"device", r.device},
                        {"name", r.name},
                        {"uuid", r.uuid},
                        {"cc_major", r.cc_major},
                        {"cc_minor", r.cc_minor},
                        {"sm_count", r.sm_count},
                        {"l2_bytes", r.l2_bytes},
                        {"memory_bytes", r.memory_bytes},
                        {"free_memory_bytes", r.free_memory_bytes},
                        {"max_sm_clock_mhz", r.max_sm_clock_mhz},
                        {"fingerprint", r.fingerprint},
                        {"toolchain", r.toolchain}};
}

util::Expected<InfoReply> info_reply_from_json(const nlohmann::json& j) {
  return parse_protocol("the info reply", [&] {
    InfoReply r;
    r.device = optional_or(j, "device", 0);
    r.name = required<std::string>(j, "name");
    r.uuid = optional_or(j, "uuid", std::string());
    r.cc_major = required<int>(j, "cc_major");
    r.cc_minor = required<int>(j, "cc_minor");
    r.sm_count = optional_or(j, "sm_count", 0);
    r.l2_bytes = optional_or(j, "l2_bytes", std::int64_t{0});
    r.memory_bytes = optional_or(j, "memory_bytes", std::int64_t{0});
    r.free_memory_bytes = optional_or(j, "free_memory_bytes", std::int64_t{0});
    r.max_sm_clock_mhz = optional_or(j, "max_sm_clock_mhz", 0);
    r.fingerprint = optional_or(j, "fingerprint", std::string());
    r.toolchain = optional_or(j, "toolchain", std::map<std::string, std::string>{});
    return r;
  });
}

}  // namespace ptxbench::eval::worker
