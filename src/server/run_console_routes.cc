// The routes of docs/console.md beside the run list (exchange.h): a page
// of a conversation's runs, a tool call's stored observation, and the cancel of
// a run executing here. Store calls run off the io thread (OffIoThread).
#include "app/run_record_json.h"
#include "core/json_writer.h"
#include "server/exchange.h"
#include "server/page_query.h"

namespace diagd::server {

asio::awaitable<bool> Conversation(Exchange& ex, const std::string& conversation_id,
                                   std::string_view query) {
  auto parsed = ParseConversationQuery(conversation_id, query);
  if (auto* error = std::get_if<ApiError>(&parsed)) co_return co_await ex.Fail(*error);
  const app::ConversationQuery& page_query = std::get<app::ConversationQuery>(parsed);
  app::RunStore& runs = *ex.server.service.runs;
  auto page = co_await OffIoThread(ex.server, [&] { return runs.ConversationPage(page_query); });
  if (!page) co_return co_await StoreFailed(ex);
  if (page->runs.empty() && !page_query.after) {
    ApiError error = NotFound("no such conversation");
    co_return co_await ex.Fail(error);
  }
  std::optional<std::string> next;
  if (page->next) next = EncodeRunCursor(*page->next);
  Response response = JsonResponse(200, app::ConversationJson(conversation_id, page->runs, next));
  co_return co_await ex.Reply(std::move(response));
}

asio::awaitable<bool> Observation(Exchange& ex, const std::string& run_id,
                                  const std::string& tool_call_id) {
  app::RunStore& runs = *ex.server.service.runs;
  auto found = co_await OffIoThread(ex.server,
                                    [&] { return runs.GetObservation(run_id, tool_call_id); });
  if (!found) co_return co_await StoreFailed(ex);
  if (!found->has_value()) {
    // Unknown, a rejected request (it never ran), still running (stored
    // with the finished run), or past storage.observation_retention_days.
    ApiError error = NotFound("no stored observation for this run and tool call");
    co_return co_await ex.Fail(error);
  }
  // Stored as the model got it: one JSON object, sent as it is.
  Response response = JsonResponse(200, std::move(**found));
  co_return co_await ex.Reply(std::move(response));
}

namespace {

asio::awaitable<bool> CancelAccepted(Exchange& ex, const std::string& run_id) {
  json::JsonWriter body(96);
  body.BeginObject().Key("run_id").String(run_id).Key("cancel").String("ACCEPTED").EndObject();
  Response response = JsonResponse(202, body.Take());
  co_return co_await ex.Reply(std::move(response));
}

}  // namespace

asio::awaitable<bool> CancelRun(Exchange& ex, const std::string& run_id) {
  if (auto live = ex.server.live.Find(run_id); live != nullptr && live->Cancel()) {
    ex.server.log.Info("run_cancel_requested", {{"run_id", run_id}});
    co_return co_await CancelAccepted(ex, run_id);
  }
  // Not executing here: ended (or ending), unknown, or executing on another
  // instance, which the run bus reaches (docs/deploy.md).
  app::RunStore& runs = *ex.server.service.runs;
  auto stored = co_await OffIoThread(ex.server, [&] { return runs.GetRun(run_id); });
  if (!stored) co_return co_await StoreFailed(ex);
  if (!stored->has_value()) {
    ApiError error = NotFound("no such run");
    co_return co_await ex.Fail(error);
  }
  bool running = (*stored)->status == "RUNNING";
  if (running && ex.server.bus != nullptr) {
    app::RunBus& bus = *ex.server.bus;
    Status published = co_await OffIoThread(ex.server, [&] { return bus.PublishCancel(run_id); });
    if (!published) {
      ApiError error{503, "RUN_BUS_UNAVAILABLE",
                     "the instance executing the run cannot be reached now; try again"};
      co_return co_await ex.Fail(error);
    }
    ex.server.log.Info("run_cancel_requested", {{"run_id", run_id}, {"to", "another instance"}});
    co_return co_await CancelAccepted(ex, run_id);
  }
  ApiError error = NotRunning(running ? "the run is not executing on this instance"
                                      : "the run has ended");
  co_return co_await ex.Fail(error);
}

}  // namespace diagd::server
