// The bounds the service's front (http_front.hpp) keeps on clients: connections, their time, the
// bytes of a request. A header of its own, free of cpp-httplib, for the command's flags.
#pragma once
#include <chrono>
#include <cstddef>

namespace ptxbench::serve {

struct FrontLimits {
  int threads = 32;                                  // requests being answered at once
  std::size_t max_connections = 1024;                // open connections, all peers together
  std::size_t max_connections_per_peer = 64;         // open connections of one peer address
  std::chrono::milliseconds header_timeout{10'000};  // idle keep-alive + one request head
  std::chrono::milliseconds body_timeout{60'000};    // one request body, after its head
  std::size_t max_header_bytes = 16 * 1024;
  // Raw bytes of one request body as sent (chunk framing included); the decoded body's own limit
  // is the API's (ApiContext::max_body_bytes), this one bounds memory and time whatever the
  // framing.
  std::size_t max_body_wire_bytes = 2 << 20;
  std::size_t max_requests_per_connection = 100;
};

}  // namespace ptxbench::serve
