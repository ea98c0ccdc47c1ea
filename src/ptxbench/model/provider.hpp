// The one interface every model source implements: a conversation in, a reply (or an error
// value) out. Implementations: OpenAI-compatible chat completions, Anthropic Messages, an
// external command, and replay of recorded replies; LimitedProvider adds retries and limits.
#pragma once
#include <string>

#include "ptxbench/model/message.hpp"
#include "ptxbench/model/reply.hpp"

namespace ptxbench::model {

// Which trajectory and turn a call serves. Network providers ignore it; `command` passes it
// to the program and `replay` uses it to pick the recorded reply.
struct CallContext {
  std::string trajectory_id;
  std::string task;
  std::string arch;
  std::string context_level;
  int sample = 0;
  int turn = 1;
};

class Provider {
 public:
  virtual ~Provider() = default;
  // Must be safe to call from several threads at once.
  virtual CallResult complete(const Conversation& conversation, const CallContext& context) = 0;
};

}  // namespace ptxbench::model
