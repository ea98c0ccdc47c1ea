// One message of a conversation with a model, as the chat APIs take it.
#pragma once
#include <string>
#include <vector>

namespace ptxbench::model {

struct Message {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

using Conversation = std::vector<Message>;

}  // namespace ptxbench::model
