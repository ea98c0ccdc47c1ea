#include "ptxbench/model/replay_provider.hpp"

#include <fmt/format.h>

#include <charconv>
#include <set>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::model {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> kReplyExtensions{".md", ".txt", ".cu", ".cuh"};

bool is_reply_file(const fs::directory_entry& entry) {
  auto name = entry.path().filename().string();
  return entry.is_regular_file() && !name.starts_with(".") &&
         kReplyExtensions.contains(entry.path().extension().string());
}

// "turn-3.md" -> 3
std::optional<int> turn_number(const fs::path& file) {
  std::string stem = file.stem().string();
  if (!stem.starts_with("turn-")) return std::nullopt;
  int turn = 0;
  auto [end, error] = std::from_chars(stem.data() + 5, stem.data() + stem.size(), turn);
  if (error != std::errc() || end != stem.data() + stem.size() || turn < 1) return std::nullopt;
  return turn;
}

util::Expected<RecordedReply> read_reply(const fs::path& file, std::size_t max_bytes) {
  auto text = util::read_file(file, max_bytes);
  if (!text) return text.error();
  return RecordedReply{.content = as_reply(*text, file), .source = file.string()};
}

// The turn-N files of a directory, as turns 1..n; gaps are an error.
util::Expected<std::vector<RecordedReply>> read_turns(const fs::path& dir, std::size_t max_bytes) {
  std::map<int, fs::path> turns;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!is_reply_file(entry)) continue;
    if (auto turn = turn_number(entry.path())) turns[*turn] = entry.path();
  }
  std::vector<RecordedReply> replies;
  for (const auto& [turn, file] : turns) {
    if (turn != static_cast<int>(replies.size()) + 1) {
      return util::make_error(fmt::format("{}: turn-{} missing", dir.string(), replies.size() + 1));
    }
    auto reply = read_reply(file, max_bytes);
    if (!reply) return reply.error();
    replies.push_back(std::move(*reply));
  }
  return replies;
}

// "gemm_a, gemm_b and 3 more": what the book does hold, for a message about a miss.
std::string describe_keys(const ReplayBook& book) {
  constexpr std::size_t kShown = 5;
  std::vector<std::string> keys;
  for (const auto& [key, replies] : book.entries()) {
    if (keys.size() == kShown) break;
    keys.push_back(key);
  }
  std::string out = keys.empty() ? "nothing" : fmt::format("{}", fmt::join(keys, ", "));
  if (book.size() > kShown) out += fmt::format(" and {} more", book.size() - kShown);
  return out;
}

}  // namespace

void ReplayBook::add(std::string key, std::vector<RecordedReply> replies) {
  replies_[std::move(key)] = std::move(replies);
}

std::vector<std::string> replay_keys(const CallContext& context) {
  std::string task_arch = fmt::format("{}__{}", context.task, context.arch);
  std::string with_level = fmt::format("{}__{}", task_arch, context.context_level);
  return {context.trajectory_id,
          fmt::format("{}__s{}", with_level, context.sample),
          with_level,
          task_arch,
          context.task,
          "*"};
}

const std::vector<RecordedReply>* ReplayBook::find(const CallContext& context) const {
  for (const auto& key : replay_keys(context)) {
    if (auto it = replies_.find(key); it != replies_.end()) return &it->second;
  }
  return nullptr;
}

std::string as_reply(const std::string& source_code, const fs::path& file) {
  auto extension = file.extension().string();
  if (extension != ".cu" && extension != ".cuh") return source_code;
  std::string code = source_code;
  if (!code.empty() && code.back() != '\n') code += '\n';
  return fmt::format("```cuda\n{}```\n", code);
}

namespace {

util::Expected<ReplayBook> load_book(const fs::path& path, std::size_t max_bytes) {
  std::error_code error;
  const auto status = fs::status(path, error);
  if (error || !fs::exists(status)) {
    return util::make_error(path.string() + ": " +
                            (error ? error.message() : std::string("no such file or directory")));
  }
  ReplayBook book;
  if (!fs::is_directory(status)) {
    auto reply = read_reply(path, max_bytes);
    if (!reply) return reply.error();
    book.add("*", {std::move(*reply)});
    return book;
  }
  if (fs::is_directory(path / "responses", error)) return load_book(path / "responses", max_bytes);

  auto shared = read_turns(path, max_bytes);
  if (!shared) return shared.error();
  if (!shared->empty()) book.add("*", std::move(*shared));
  for (const auto& entry : fs::directory_iterator(path)) {
    auto name = entry.path().filename().string();
    if (name.starts_with(".")) continue;
    if (entry.is_directory()) {
      auto turns = read_turns(entry.path(), max_bytes);
      if (!turns) return turns.error();
      if (!turns->empty()) book.add(name, std::move(*turns));
    } else if (is_reply_file(entry) && !turn_number(entry.path())) {
      auto reply = read_reply(entry.path(), max_bytes);
      if (!reply) return reply.error();
      book.add(entry.path().stem().string(), {std::move(*reply)});
    }
  }
  if (book.size() == 0) return util::make_error(path.string() + ": no recorded replies found");
  return book;
}

}  // namespace

util::Expected<ReplayBook> load_replay_book(const fs::path& path, std::size_t max_bytes) {
  try {
    return load_book(path, max_bytes);
  } catch (const fs::filesystem_error& e) {
    // A symlink loop or an unreadable directory inside the replay path.
    return util::make_error(fmt::format("{}: {}", path.string(), e.code().message()));
  }
}

CallResult ReplayProvider::complete(const Conversation&, const CallContext& context) {
  const auto* replies = book_.find(context);
  if (replies == nullptr) {
    return ProviderError{
        .message = fmt::format(
            "replay: no reply recorded for {} (looked for a file or directory named {}, with "
            ".md, .txt or .cu; found {})",
            context.trajectory_id, fmt::join(replay_keys(context), ", "), describe_keys(book_)),
        .exhausted = true};
  }
  if (context.turn < 1 || static_cast<std::size_t>(context.turn) > replies->size()) {
    return ProviderError{.message = fmt::format("replay: {} has {} recorded turn(s)",
                                                context.trajectory_id, replies->size()),
                         .exhausted = true};
  }
  const RecordedReply& recorded = (*replies)[static_cast<std::size_t>(context.turn - 1)];
  return Reply{.content = recorded.content, .finish_reason = "replay", .source = recorded.source};
}

}  // namespace ptxbench::model
