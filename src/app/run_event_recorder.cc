#include "app/run_event_recorder.h"

#include "core/json_writer.h"

namespace diagd::app {

std::string RunErrorData(std::string_view code, std::string_view message) {
  json::JsonWriter w(128);
  w.BeginObject().Key("code").String(code).Key("message").String(message).EndObject();
  return w.Take();
}

void RunEventRecorder::OnRunStarted(const std::string& run_id, const std::string& conversation_id) {
  if (watcher_ != nullptr) watcher_->OnRunStarted(run_id, conversation_id);
  json::JsonWriter w(128);
  w.BeginObject().Key("run_id").String(run_id).Key("conversation_id").String(conversation_id);
  Deliver(Append("run", w.EndObject().Take()));
}

void RunEventRecorder::OnRouted(Route route) {
  if (watcher_ != nullptr) watcher_->OnRouted(route);
  json::JsonWriter w(64);
  w.BeginObject().Key("route").String(RouteString(route)).EndObject();
  Deliver(Append("route", w.Take()));
}

void RunEventRecorder::OnToolProgress(const harness::ToolProgress& progress) {
  if (watcher_ != nullptr) watcher_->OnToolProgress(progress);
  json::JsonWriter w(256);
  w.BeginObject()
      .Key("index").Int(progress.index)
      .Key("tool").String(progress.tool)
      .Key("scope").String(progress.scope)
      .Key("status").String(harness::ProgressStatusString(progress.status))
      .EndObject();
  Deliver(Append("progress", w.Take()));
}

void RunEventRecorder::OnRunRecorded(const RunRecord& run) {
  if (watcher_ != nullptr) watcher_->OnRunRecorded(run);
}

void RunEventRecorder::OnRunNotStored(const RunRecord& run, const Error& why) {
  if (watcher_ == nullptr) return;
  watcher_->OnRunNotStored(run, why);
  // The record (kept for a later write) holds result and done; the
  // watcher is shown why it gets neither yet.
  auto id = static_cast<std::int64_t>(delivered_) + 1;
  watcher_->OnRunEvent({id, "error",
                        RunErrorData(kRunNotStored,
                                     "the run finished but its record could not be stored "
                                     "yet; diagd keeps trying, and the run shows its result "
                                     "once it is stored")});
  watcher_->OnRunEvent({id + 1, "done", "{}"});
  delivered_ = events_.size();
}

void RunEventRecorder::CloseWithResult(const std::string& result_json) {
  Append("result", result_json);
  Append("done", "{}");
}

void RunEventRecorder::DeliverClosing() {
  while (delivered_ < events_.size()) Deliver(events_[delivered_]);
}

const RunEvent& RunEventRecorder::Append(std::string name, std::string data) {
  auto id = static_cast<std::int64_t>(events_.size()) + 1;
  events_.push_back({id, std::move(name), std::move(data)});
  return events_.back();
}

void RunEventRecorder::Deliver(const RunEvent& event) {
  ++delivered_;
  if (watcher_ != nullptr) watcher_->OnRunEvent(event);
}

}  // namespace diagd::app
