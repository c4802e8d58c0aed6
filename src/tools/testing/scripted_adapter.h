// Test doubles for the tool boundary's seams: an adapter that answers by a
// script (or echoes the request as evidence), and a budget that counts.
// Header-only; for tests and benchmarks.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>

#include "core/overloaded.h"
#include "tools/tool_adapter.h"
#include "tools/tool_boundary.h"

namespace diagd::tools::testing {

using AdapterAnswer = Result<AdapterOutput, AdapterFailure>;

// With an empty script it answers every request with one item that echoes
// the request (so a quote of the query is always exact), as EVIDENCE_FOUND.
class ScriptedAdapter final : public ToolAdapter {
 public:
  void Push(AdapterAnswer answer) {
    std::lock_guard<std::mutex> lock(mu_);
    script_.push_back(std::move(answer));
  }
  void PushEmpty(const ToolRequest& like) {
    AdapterOutput output = Echo(like).value();
    // A result of the request's tool that holds nothing but the request.
    output.result = VisitFace(like, [](auto face, const auto& q) -> ToolResult {
      typename decltype(face)::Result r;
      decltype(face)::Bind(r, q);
      return r;
    });
    Push(std::move(output));
  }
  void PushFailure(ToolErrorCode code, std::string message = {}) {
    Push(Unexpected(AdapterFailure{code, std::move(message)}));
  }
  int calls() const { return calls_.load(); }

  static AdapterAnswer Echo(const ToolRequest& request) {
    return std::visit(
        Overloaded{
            [](const DocumentsRequest& q) -> AdapterAnswer {
              DocumentsResult r;
              r.query = q.query;
              r.evidence.push_back({"runbook.md#1", "runbook.md", "订单服务 Runbook",
                                    "订单服务 Runbook > 连接池", "命中: " + q.query});
              return AdapterOutput{r, "{\"hits\":1}"};
            },
            [](const LogsRequest& q) -> AdapterAnswer {
              LogsResult r;
              r.topic = q.topic;
              r.query = q.query;
              r.lookback_minutes = q.lookback_minutes;
              r.events.push_back({"2026-11-29T10:29:00.000Z", std::string("ERROR"),
                                  std::string("order-service"),
                                  "HikariPool-1 - Connection is not available: " + q.query});
              return AdapterOutput{r, "{\"events\":1}"};
            },
            [](const MysqlRequest& q) -> AdapterAnswer {
              MysqlResult r;
              r.datasource = q.datasource;
              r.sql = q.sql;
              r.params = q.params;
              r.columns = {"status", "n"};
              r.rows.push_back({std::string("TIMEOUT"), std::int64_t{42}});
              return AdapterOutput{r, "{\"rows\":1}"};
            },
            // Any other tool: its empty result, bound to the request.
            [](const auto& q) -> AdapterAnswer {
              using Face = FaceFor<decltype(q)>;
              typename Face::Result r;
              Face::Bind(r, q);
              return AdapterOutput{r, "{}"};
            },
        },
        request);
  }

 private:
  AdapterAnswer DoExecute(const ToolRequest& request, MonoTime, const std::stop_token&) override {
    ++calls_;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!script_.empty()) {
        AdapterAnswer answer = std::move(script_.front());
        script_.pop_front();
        return answer;
      }
    }
    return Echo(request);
  }

  std::mutex mu_;
  std::deque<AdapterAnswer> script_;
  std::atomic<int> calls_{0};
};

// Admits `max_calls` tool calls and counts bytes.
class CountingBudget final : public ToolBudget {
 public:
  explicit CountingBudget(int max_calls = 100) : max_calls_(max_calls) {}
  Status AdmitToolCall() override {
    if (admitted_ >= max_calls_) return Error::ResourceExhausted("tool calls");
    ++admitted_;
    return OkStatus();
  }
  void ChargeToolBytes(std::size_t bytes) override { bytes_ += bytes; }
  int admitted() const { return admitted_; }
  std::size_t bytes() const { return bytes_; }

 private:
  int max_calls_;
  int admitted_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace diagd::tools::testing
