// Every observation the harness can produce, serialized and checked against
// the whitelist of docs/specs/tool-contracts.md: a key outside it fails the test.
#include <gtest/gtest.h>

#include <set>

#include "interceptor_fixture.h"

namespace diagd::harness {
namespace {

using testing::Args;
using testing::DocsInput;
using testing::InterceptorTest;
using testing::LogsInput;

const std::set<std::string>& AllowedKeys() {
  static const std::set<std::string> keys = {
      // results (union of the three per-tool whitelists)
      "tool_call_id", "query", "evidence_status", "evidence", "relevance_level", "truncated",
      "topic", "lookback_minutes", "events", "datasource", "sql", "params", "columns", "rows",
      // stop
      "stop_required", "reason",
      // harness observations
      "error_code", "repair_required", "violation_type", "missing_field",
      "expected_previous_tool_call_id", "allowed_information_gain", "field",
      "duplicate_of_tool_call_id", "message"};
  return keys;
}

const std::set<std::string>& ItemKeys() {
  static const std::set<std::string> keys = {"document_id", "source", "title", "breadcrumb",
                                             "excerpt",     "timestamp", "level", "service",
                                             "message"};
  return keys;
}

void ExpectOnlyWhitelisted(const std::string& observation) {
  auto parsed = json::Parse(observation);
  ASSERT_TRUE(parsed && parsed->is_object()) << observation;
  const auto& object = parsed->as_object();
  for (const auto& member : object) {
    EXPECT_TRUE(AllowedKeys().count(std::string(member.key())))
        << "key `" << member.key() << "` leaked into " << observation;
  }
  // Per-tool: a result's keys are exactly within its own tool's whitelist.
  if (object.contains("evidence_status") && !object.contains("error_code")) {
    std::optional<tools::ToolName> tool;
    if (object.contains("evidence")) tool = tools::documents::kSearchDocuments;
    if (object.contains("events")) tool = tools::logs::kQueryLogs;
    if (object.contains("rows")) tool = tools::mysql::kQueryMysql;
    ASSERT_TRUE(tool.has_value()) << observation;
    const auto& whitelist = tools::ObservationWhitelist(*tool);
    for (const auto& member : object) {
      std::string_view key = member.key();
      bool allowed = key == "stop_required" || key == "reason" ||
                     std::find(whitelist.begin(), whitelist.end(), key) != whitelist.end();
      EXPECT_TRUE(allowed) << key << " in " << observation;
    }
    for (const char* list : {"evidence", "events"}) {
      if (!object.contains(list)) continue;
      for (const auto& item : object.at(list).as_array()) {
        for (const auto& member : item.as_object()) {
          EXPECT_TRUE(ItemKeys().count(std::string(member.key())))
              << member.key() << " in " << observation;
        }
      }
    }
  }
  for (const char* forbidden : {"returned_count", "score", "run_id", "threshold", "budget",
                                "consecutive", "scope", "trace", "raw"}) {
    EXPECT_EQ(observation.find(std::string("\"") + forbidden), std::string::npos)
        << forbidden << " in " << observation;
  }
}

TEST_F(InterceptorTest, EveryObservationKindHoldsOnlyWhitelistedKeys) {
  // Results of each tool, found and empty, an error with a message, and every
  // harness observation.
  Call("c1", "search_documents", Args(DocsInput("连接池")));
  Call("c2", "query_logs", Args(LogsInput("gateway", "timeout"), "c1", "GAINED"));
  Call("c3", "query_mysql", Args(R"({"datasource":"orders","sql":"SELECT 1"})", "c2", "GAINED"));
  mysql_.PushFailure(tools::ToolErrorCode::kQueryFailed, "Unknown column");
  Call("c4", "query_mysql", Args(R"({"datasource":"orders","sql":"SELECT 2"})", "c3", "GAINED"));
  Call("c5", "query_logs", Args(LogsInput("gateway", "timeout")));            // duplicate
  Call("c6", "query_logs", Args(LogsInput("gateway", "x"), "c0", "GAINED"));  // unexpected
  Call("c7", "query_logs", Args(LogsInput("gateway", "y")));
  Call("c8", "query_mysql",
       Args(R"({"datasource":"orders","sql":"DROP TABLE orders"})", "c7", "NO_GAIN"));  // invalid
  Call("c9", "query_logs", Args(LogsInput("gateway", "z")));
  Call("c10", "query_logs", Args(LogsInput("gateway", "q")));                  // missing grade
  Call("c11", "query_logs", Args(LogsInput("gateway", "w"), "c9", "GAINED"));
  Call("c12", "nope", "{}");                                                  // unknown tool
  docs_.PushEmpty(tools::DocumentsRequest{"x"});
  logs_.PushEmpty(tools::LogsRequest{"gateway", "x", 60});
  Call("c13", "search_documents", Args(DocsInput("空"), "c11", "NO_GAIN"));
  Call("c14", "query_logs", Args(LogsInput("gateway", "空")));                // stop on result
  EXPECT_EQ(tracker_.stop_reason(), StopReason::kInformationSaturated);
  ASSERT_EQ(observations_.size(), 14u);
  for (const auto& observation : observations_) ExpectOnlyWhitelisted(observation);
  // The stop arrived somewhere along the way, as an observation like any other.
  EXPECT_TRUE(tracker_.IsSaturated());
}

}  // namespace
}  // namespace diagd::harness
