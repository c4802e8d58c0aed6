// Release against the in-process scripted model (the two release
// components), a memory canonical store filled directly with canonical
// records, and a real RunContext (budget, ledger, trace, tracker). The
// snapshot is projected from the run's tracker exactly as the agent does.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "agent/draft.h"
#include "core/clock.h"
#include "harness/progress_snapshot.h"
#include "model/testing/scripted_model.h"
#include "release/diagnosis_release.h"
#include "tools/canonical_store.h"

namespace diagd::release::testing {

// What every stored record carries but no output may ever show.
inline constexpr const char* kRawPayload = "RAW-UPSTREAM-PAYLOAD relevance_score=0.97";

inline tools::CanonicalRecord RecordOf(const std::string& run_id, tools::ToolResult result,
                                       const std::string& scope_summary) {
  tools::CanonicalRecord record;
  record.run_id = run_id;
  record.tool_call_id = tools::ToolCallIdOf(result);
  record.tool = tools::ToolOf(result);
  record.request_json = "{}";
  record.raw_response = kRawPayload;
  record.scope = {"identity:" + scope_summary, scope_summary};
  record.result = std::move(result);
  return record;
}

inline tools::LogsResult Logs(const std::string& id, std::vector<std::string> messages) {
  tools::LogsResult logs;
  logs.tool_call_id = id;
  logs.topic = "order-service";
  logs.query = "500";
  logs.lookback_minutes = 60;
  for (auto& message : messages) {
    logs.events.push_back({"2026-11-29T10:29:00.000Z", std::string("ERROR"),
                           std::string("order-service"), std::move(message)});
  }
  logs.returned_count = logs.events.size();
  logs.evidence_status = logs.events.empty() ? tools::EvidenceStatus::kNoEvidence
                                             : tools::EvidenceStatus::kEvidenceFound;
  return logs;
}

inline tools::DocumentsResult Docs(const std::string& id, const std::string& title,
                                   const std::string& excerpt) {
  tools::DocumentsResult docs;
  docs.tool_call_id = id;
  docs.query = "连接池";
  docs.evidence.push_back(
      {"runbook.md#2", "runbooks/order.md", title, "订单服务 Runbook > 连接池", excerpt});
  docs.returned_count = 1;
  docs.evidence_status = tools::EvidenceStatus::kEvidenceFound;
  return docs;
}

inline tools::MysqlResult Rows(const std::string& id) {
  tools::MysqlResult rows;
  rows.tool_call_id = id;
  rows.datasource = "orders";
  rows.sql = "SELECT status, n, ratio FROM timeouts WHERE day = ?";
  rows.params = {std::string("2026-11-29")};
  rows.columns = {"status", "n", "ratio"};
  rows.rows.push_back({std::string("TIMEOUT"), std::int64_t{1500}, 0.125});
  rows.returned_count = 1;
  rows.evidence_status = tools::EvidenceStatus::kEvidenceFound;
  return rows;
}

// The quotable texts of the standard records below.
inline constexpr const char* kLogMessage =
    "HikariPool-1 - Connection is not available, request timed out after 30000ms";
inline constexpr const char* kDocTitle = "订单服务 Runbook";
inline constexpr const char* kDocExcerpt = "连接池耗尽时，检查 payment-db 的慢查询并扩容连接池。";

class ReleaseTest : public ::testing::Test {
 protected:
  ReleaseTest() { Reset(harness::BudgetLimits{}); }

  // A new run (and a new script) with these limits; the store is kept.
  void Reset(harness::BudgetLimits limits) {
    model_ = std::make_unique<model::testing::ScriptedModel>();
    run_ =
        std::make_unique<harness::RunContext>("run-1", harness::RunLimits{limits, {3, 2}}, clock_);
  }

  // Stores `result` as a completed call of run-1 (in the tracker's index).
  void Complete(tools::ToolResult result, const std::string& scope_summary) {
    tools::ToolName tool = tools::ToolOf(result);
    std::string id = tools::ToolCallIdOf(result);
    tools::EvidenceStatus status = tools::EvidenceStatusOf(result);
    ASSERT_TRUE(store_.Put(RecordOf("run-1", std::move(result), scope_summary)));
    run_->tracker().RecordCompleted(tool, "identity:" + scope_summary, id, status);
  }

  // call_1 logs with evidence, call_2 a document, call_3 a row, call_4 logs
  // with nothing, call_5 a failed call; call_9 is another run's call.
  void CompleteStandardCalls() {
    Complete(Logs("call_1", {kLogMessage}), "order-service: 500 (60m)");
    Complete(Docs("call_2", kDocTitle, kDocExcerpt), "连接池");
    Complete(Rows("call_3"), "orders: SELECT status, n, ratio FROM timeouts");
    Complete(Logs("call_4", {}), "gateway: timeout (60m)");
    tools::LogsResult failed = Logs("call_5", {});
    failed.evidence_status = tools::EvidenceStatus::kError;
    Complete(failed, "payment: pool (60m)");
    ASSERT_TRUE(store_.Put(
        RecordOf("run-2", Logs("call_9", {"OTHER-RUN secret message text"}), "other run scope")));
  }

  harness::ProgressSnapshot Snapshot() {
    return harness::ProjectProgress("run-1", run_->tracker().Snapshot(), *store_ptr_,
                                    run_->trace());
  }

  // The execution of an agent that answered `draft_json` (must be valid).
  agent::DiagnosisAgentExecution WithDraft(const std::string& draft_json) {
    agent::DiagnosisAgentExecution execution;
    auto draft = agent::ParseDraft(draft_json);
    EXPECT_TRUE(draft.has_value()) << draft_json;
    if (draft) execution.draft = std::move(*draft);
    execution.snapshot = Snapshot();
    return execution;
  }

  agent::DiagnosisAgentExecution WithoutDraft() {
    agent::DiagnosisAgentExecution execution;
    execution.snapshot = Snapshot();
    return execution;
  }

  ReleaseDecision Release(const agent::DiagnosisAgentExecution& execution,
                          config::Language language = config::Language::kZh) {
    DiagnosisReleaseUseCase release({*model_, *store_ptr_, language, {}, {}});
    return release.Release(*run_, kQuestion, execution);
  }

  std::string Trace() const { return harness::RenderTrace(run_->trace().Events()); }

  // The RELEASE_DECIDED line of the trace ("" when absent).
  std::string DecidedLine() const {
    std::string trace = Trace();
    auto at = trace.find("RELEASE_DECIDED");
    if (at == std::string::npos) return "";
    return trace.substr(at, trace.find('\n', at) - at);
  }

  std::vector<model::Component> ModelComponents() const {
    std::vector<model::Component> components;
    for (const auto& request : model_->Requests()) components.push_back(request.component);
    return components;
  }

  static constexpr const char* kQuestion = "订单服务为什么报 500？";

  ManualClock clock_;
  tools::MemoryCanonicalStore store_{std::chrono::seconds(3600), clock_};
  tools::CanonicalInvocationStore* store_ptr_ = &store_;  // tests may swap in a faulty store
  std::unique_ptr<model::testing::ScriptedModel> model_;
  std::unique_ptr<harness::RunContext> run_;
};

// A draft whose conclusion cites `citations` ({id, quote} pairs).
inline std::string DraftWith(const std::vector<std::pair<std::string, std::string>>& citations,
                             const std::string& findings = "[]",
                             const std::string& missing_info = "[]") {
  std::string evidence;
  for (const auto& [id, quote] : citations) {
    if (!evidence.empty()) evidence += ",";
    evidence += R"({"tool_call_id":")" + id + R"(","quote":")" + quote + R"("})";
  }
  return R"({"conclusion":{"root_cause":"payment-db 连接池耗尽导致订单服务超时","confidence":"HIGH","evidence":[)" +
         evidence + R"(]},"findings":)" + findings + R"(,"limitations":{"missing_info":)" +
         missing_info +
         R"(,"notes":["只查看了最近 60 分钟"]},"next_steps":["扩容 payment-db 连接池"]})";
}

inline std::string DraftCiting(const std::string& id, const std::string& quote) {
  return DraftWith({{id, quote}});
}

// A draft with `conclusion: null`.
inline std::string NoConclusion(const std::string& findings = "[]",
                                const std::string& missing_info = "[]") {
  return R"({"conclusion":null,"findings":)" + findings + R"(,"limitations":{"missing_info":)" +
         missing_info + R"(,"notes":[]},"next_steps":[]})";
}

inline constexpr const char* kSupported = R"({"verdict":"SUPPORTED"})";

// Every string of a decision, one per line: what a user could ever see.
inline std::string RenderDecision(const ReleaseDecision& decision) {
  std::string out = std::string(ReleaseOutcomeString(decision.outcome)) + "\n";
  auto process = [&](const std::vector<ProcessEntry>& entries) {
    for (const auto& e : entries) {
      out += e.tool_call_id + " " + tools::ToolNameString(e.tool) + " " + e.scope + " " +
             (e.evidence_status ? tools::EvidenceStatusString(*e.evidence_status) : "UNREADABLE") +
             "\n";
    }
  };
  auto findings = [&](const std::vector<PublishedFinding>& list) {
    for (const auto& f : list) {
      out += f.tool_call_id + " " + agent::FindingKindString(f.kind) + " " + f.statement + " " +
             f.quote.value_or("") + "\n";
    }
  };
  auto lines = [&](const std::vector<std::string>& list) {
    for (const auto& s : list) out += s + "\n";
  };
  process(decision.process);
  if (decision.diagnosis) {
    const Diagnosis& d = *decision.diagnosis;
    out += d.root_cause + " " + agent::ConfidenceString(d.confidence) + "\n";
    for (const auto& c : d.evidence) {
      out += c.tool_call_id + " " + tools::ToolNameString(c.tool) + " " + c.scope + " " + c.quote +
             "\n";
    }
    findings(d.findings);
    lines(d.next_steps);
    lines(d.limitations.missing_info);
    lines(d.limitations.notes);
  }
  if (decision.fallback) {
    const SafeFallback& f = *decision.fallback;
    out += std::string(FallbackCodeString(f.code)) + " " + f.message + "\n";
    process(f.checked);
    for (const auto& fact : f.observed_facts) {
      out += fact.tool_call_id + " " + tools::ToolNameString(fact.tool) + " " + fact.fact + "\n";
    }
    findings(f.findings);
    lines(f.missing_info);
    lines(f.limitations);
  }
  return out;
}

}  // namespace diagd::release::testing
