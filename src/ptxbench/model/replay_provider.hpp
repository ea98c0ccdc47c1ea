// Recorded replies, for reproducible runs and tests. A ReplayBook maps keys to the replies of
// turns 1, 2, ...; a call takes the reply of its turn under the most specific key present:
//   <trajectory id>, <task>__<arch>__<context>__s<sample>, <task>__<arch>__<context>,
//   <task>__<arch>, <task>, *
// A call past the last recorded turn gets an `exhausted` error: the conversation ends there.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "ptxbench/model/provider.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::model {

struct RecordedReply {
  std::string content;
  std::string source;  // the file it came from, for the record
};

class ReplayBook {
 public:
  void add(std::string key, std::vector<RecordedReply> replies);
  // The replies under the most specific key for the call, or null.
  const std::vector<RecordedReply>* find(const CallContext& context) const;
  std::size_t size() const { return replies_.size(); }
  const std::map<std::string, std::vector<RecordedReply>>& entries() const { return replies_; }

 private:
  std::map<std::string, std::vector<RecordedReply>> replies_;
};

// Keys for a call, most specific first.
std::vector<std::string> replay_keys(const CallContext& context);

// Reads replies from disk:
//   FILE                      one reply (turn 1) for every trajectory
//   DIR/turn-N.md             turn N for every trajectory
//   DIR/<key>/turn-N.md       turn N under <key> (a run directory's responses/ has this form)
//   DIR/<key>.md              turn 1 under <key>
//   RUN_DIR                   its responses/ directory
// .md and .txt files are replies as they are; .cu/.cuh files are wrapped in a ```cuda block.
// Each reply file may hold at most max_reply_bytes.
util::Expected<ReplayBook> load_replay_book(const std::filesystem::path& path,
                                            std::size_t max_reply_bytes = kDefaultMaxReplyBytes);

// A source file as a model would answer it: the code in one fenced block.
std::string as_reply(const std::string& source_code, const std::filesystem::path& file);

class ReplayProvider final : public Provider {
 public:
  explicit ReplayProvider(ReplayBook book) : book_(std::move(book)) {}
  CallResult complete(const Conversation& conversation, const CallContext& context) override;

 private:
  ReplayBook book_;
};

}  // namespace ptxbench::model
