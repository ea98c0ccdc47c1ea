#include "ptxbench/serve/client_tokens.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <sstream>

#include "ptxbench/util/fs.hpp"

namespace ptxbench::serve {
namespace {

// Compares without an early exit so response time says nothing about how much of a token matched.
bool same_token(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}

}  // namespace

std::optional<Client> ClientTokens::authenticate(std::string_view header) const {
  constexpr std::string_view kScheme = "Bearer ";
  if (!header.starts_with(kScheme)) return std::nullopt;
  const auto token = header.substr(kScheme.size());
  if (token.empty()) return std::nullopt;
  for (const auto& client : clients_) {
    if (same_token(client.token, token)) return client;
  }
  return std::nullopt;
}

util::Expected<ClientTokens> parse_client_tokens(std::string_view text, const std::string& where) {
  std::vector<Client> clients;
  std::istringstream lines{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::istringstream fields(line);
    std::vector<std::string> words;
    for (std::string word; fields >> word;) words.push_back(word);
    if (words.empty() || words.front().starts_with('#')) continue;
    const auto at = fmt::format("{}:{}", where, number);
    if (words.size() < 2 || words.size() > 3)
      return util::make_error(at + ": expected NAME TOKEN [MAX_IN_FLIGHT]");
    Client client{.name = words[0], .token = words[1]};
    if (client.token.size() < 16)
      return util::make_error(at + ": token: shorter than 16 characters");
    if (words.size() == 3) {
      const auto& limit = words[2];
      auto [end, error] =
          std::from_chars(limit.data(), limit.data() + limit.size(), client.max_in_flight);
      if (error != std::errc() || end != limit.data() + limit.size() || client.max_in_flight < 1)
        return util::make_error(at + ": MAX_IN_FLIGHT: expected a whole number >= 1");
    }
    for (const auto& other : clients) {
      if (other.name == client.name)
        return util::make_error(fmt::format("{}: name: {} appears twice", at, client.name));
      if (other.token == client.token)
        return util::make_error(fmt::format("{}: token: also the token of {}", at, other.name));
    }
    clients.push_back(std::move(client));
  }
  if (clients.empty()) return util::make_error(where + ": no clients");
  return ClientTokens(std::move(clients));
}

util::Expected<ClientTokens> load_client_tokens(const std::filesystem::path& path) {
  auto text = util::read_file(path);
  if (!text) return text.error();
  return parse_client_tokens(*text, path.string());
}

}  // namespace ptxbench::serve
