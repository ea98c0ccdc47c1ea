// Who may call the service: a tokens file, one client a line,
//   NAME TOKEN [MAX_IN_FLIGHT]
// (MAX_IN_FLIGHT: evaluations the client may have queued or running at once, default 4; blank
// lines and lines starting with '#' are ignored). Requests carry "Authorization: Bearer TOKEN".
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxbench/util/expected.hpp"

namespace ptxbench::serve {

inline constexpr int kDefaultMaxInFlight = 4;

struct Client {
  std::string name;
  std::string token;
  int max_in_flight = kDefaultMaxInFlight;
};

class ClientTokens {
 public:
  explicit ClientTokens(std::vector<Client> clients) : clients_(std::move(clients)) {}
  // The client whose token the "Authorization" header value carries, if any.
  std::optional<Client> authenticate(std::string_view authorization_header) const;
  std::size_t size() const { return clients_.size(); }

 private:
  std::vector<Client> clients_;
};

// Errors name the file and line; duplicate names or tokens are errors.
util::Expected<ClientTokens> parse_client_tokens(std::string_view text, const std::string& where);
util::Expected<ClientTokens> load_client_tokens(const std::filesystem::path& path);

}  // namespace ptxbench::serve
