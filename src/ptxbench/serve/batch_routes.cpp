#include "ptxbench/serve/batch_routes.hpp"

#include <httplib.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>

#include "ptxbench/serve/route_helpers.hpp"

namespace ptxbench::serve {
namespace {

using httplib::Request;
using httplib::Response;
using nlohmann::json;

constexpr int kMaxWaitSeconds = 60;
constexpr int kRetryRefusedSeconds = 5;
constexpr const char* kBatchId = "(b[0-9a-f]{16})";

std::optional<int> wait_seconds(const Request& req, Response& res) {
  if (!req.has_param("wait_s")) return 0;
  const auto text = req.get_param_value("wait_s");
  int seconds = -1;
  if (text.size() <= 3 && !text.empty() &&
      text.find_first_not_of("0123456789") == std::string::npos)
    seconds = std::stoi(text);
  if (seconds < 0 || seconds > kMaxWaitSeconds) {
    reply_error(res, 400, fmt::format("wait_s: expected a whole number 0-{}", kMaxWaitSeconds));
    return std::nullopt;
  }
  return seconds;
}

void stream_batch(BatchStore& batches, JobQueue& queue, Batch batch, Response& res) {
  auto sent = std::make_shared<std::set<std::size_t>>();
  auto shared = std::make_shared<Batch>(std::move(batch));
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream", [&batches, &queue, sent, shared](std::size_t, httplib::DataSink& sink) {
        std::string events;
        const BatchItem* pending = nullptr;
        for (std::size_t i = 0; i < shared->items.size(); ++i) {
          if (sent->count(i)) continue;
          const auto& item = shared->items[i];
          if (!batches.finished(item)) {
            if (!pending) pending = &item;
            continue;
          }
          sent->insert(i);
          events += fmt::format("event: result\ndata: {}\n\n",
                                batches.item_json(item, shared->reward, false).dump());
        }
        if (!pending) {
          events += fmt::format("event: done\ndata: {}\n\n",
                                json{{"id", shared->id}, {"total", shared->items.size()}}.dump());
          const bool ok = sink.write(events.data(), events.size());
          sink.done();
          return ok;
        }
        if (!events.empty()) return sink.write(events.data(), events.size());
        if (queue.draining()) {
          const std::string draining = "event: draining\ndata: {}\n\n";
          sink.write(draining.data(), draining.size());
          sink.done();
          return true;
        }
        if (auto snapshot = queue.find(pending->evaluation_id))
          queue.wait_for_change(pending->evaluation_id, snapshot->state, kStreamKeepAlive);
        const std::string keep_alive = ": waiting\n\n";
        return sink.write(keep_alive.data(), keep_alive.size());
      });
}

}  // namespace

void register_batch_routes(httplib::Server& server, ApiContext& api, BatchStore& batches) {
  server.Post(
      "/v1/batches", authenticated_body(api, [&batches](const Request&, const std::string& body,
                                                        Response& res, const Client& client) {
        auto request = parse_batch(body);
        if (!request) return reply_error(res, 400, request.error().message);
        auto batch = batches.submit(std::move(*request), client);
        const bool any_refused_for_now = std::any_of(
            batch.items.begin(), batch.items.end(),
            [](const BatchItem& i) { return i.refused_status == 429 || i.refused_status == 503; });
        if (any_refused_for_now)
          res.set_header("Retry-After", std::to_string(kRetryRefusedSeconds));
        res.set_header("Location", "/v1/batches/" + batch.id);
        reply_json(res, 202, batches.to_json(batch, false));
      }));
  server.Get(
      fmt::format("/v1/batches/{}", kBatchId),
      authenticated(api, [&batches](const Request& req, Response& res, const Client& client) {
        auto batch = batches.find(req.matches[1].str(), client);
        if (!batch) return reply_error(res, 404, "batch: not found");
        auto wait = wait_seconds(req, res);
        if (!wait) return;
        if (*wait > 0) batches.wait(*batch, std::chrono::seconds(*wait));
        const bool records = req.has_param("records") && req.get_param_value("records") == "1";
        reply_json(res, 200, batches.to_json(*batch, records));
      }));
  server.Get(
      fmt::format("/v1/batches/{}/stream", kBatchId),
      authenticated(api, [&api, &batches](const Request& req, Response& res, const Client& client) {
        auto batch = batches.find(req.matches[1].str(), client);
        if (!batch) return reply_error(res, 404, "batch: not found");
        stream_batch(batches, api.queue, std::move(*batch), res);
      }));
}

}  // namespace ptxbench::serve
