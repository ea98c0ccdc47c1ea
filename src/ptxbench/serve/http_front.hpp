// The service's own listener and connection handling in front of cpp-httplib's parser and
// router. cpp-httplib (0.11.4) reads a request's head on a pool thread with no deadline for the
// whole head (a client trickling header lines holds a thread for as long as it likes), reads a
// chunked body with no bound, and listens with SO_REUSEPORT (a second service shares the port).
// So the front binds the socket itself (a port in use is refused), collects every request head
// on one poll loop (no thread is held by a slow head: a head has `header_timeout` and
// `max_header_bytes`), admits a bounded number of connections in all and per peer address, and
// hands only complete heads to the worker threads, where httplib parses and routes them reading
// through a `GuardedStream` that bounds the body's bytes (whatever its encoding) and time.
// Between requests a kept-alive connection goes back to the poll loop.
#pragma once
#include <httplib.h>

#include <memory>
#include <string>

#include "ptxbench/serve/front_limits.hpp"
#include "ptxbench/util/expected.hpp"

namespace ptxbench::serve {

// httplib's Server with its request processing opened to the front: the front feeds it one
// request at a time through its own stream.
class Router : public httplib::Server {
 public:
  using httplib::Server::process_request;
  // httplib's chunked responses (event streams) end once this says the server stopped.
  void set_serving(bool serving) { svr_sock_ = serving ? 0 : INVALID_SOCKET; }
};

// For the router's handlers, about the connection whose request they answer (the request runs on
// the thread of its connection): after this response the connection closes (a request answered
// before its body was read leaves the body unread).
void close_connection_after_response();
// Whether the body being read went over the front's byte or time bound (httplib then answers
// 400; the error handler makes it 413 or 408).
enum class BodyProblem { kNone, kTooLarge, kTooSlow };
BodyProblem body_problem();

class HttpFront {
 public:
  HttpFront(Router& router, FrontLimits limits);
  ~HttpFront();
  HttpFront(const HttpFront&) = delete;
  HttpFront& operator=(const HttpFront&) = delete;

  // Binds and listens (no SO_REUSEPORT: a port another process listens on is an error); `port`
  // 0 takes a free one. The port bound.
  util::Expected<int> bind(const std::string& host, int port);
  // Serves until stop(): the requests being answered finish, then their connections close.
  void serve();
  void stop();  // from any thread, more than once; also before serve()

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ptxbench::serve
