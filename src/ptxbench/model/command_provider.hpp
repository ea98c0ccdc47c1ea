// A model that is a program: any agent, script or person can take part. The program gets the
// conversation as JSON on stdin and prints its reply on stdout, either as plain text (the
// reply) or as a JSON object {"content", "reasoning_content"?, "usage"?, "finish_reason"?}.
// Environment: PTXBENCH_TRAJECTORY_ID and PTXBENCH_TURN.
#pragma once
#include <memory>

#include "ptxbench/model/provider.hpp"
#include "ptxbench/model/provider_config.hpp"
#include "ptxbench/util/process.hpp"

namespace ptxbench::model {

class CommandProvider final : public Provider {
 public:
  CommandProvider(ProviderConfig config, std::shared_ptr<util::ProcessRunner> runner);
  CallResult complete(const Conversation& conversation, const CallContext& context) override;

  // What the program reads on stdin: {"model", "messages": [{role, content}], "context": {...}}.
  nlohmann::json request_json(const Conversation& conversation, const CallContext& context) const;

 private:
  ProviderConfig config_;
  std::shared_ptr<util::ProcessRunner> runner_;
};

// The reply a program printed: JSON object with "content", else the text as it is.
Reply parse_command_output(const std::string& stdout_text);

}  // namespace ptxbench::model
