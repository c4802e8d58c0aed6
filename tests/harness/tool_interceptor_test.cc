#include "harness/tool_interceptor.h"

#include <gtest/gtest.h>

#include "interceptor_fixture.h"

namespace diagd::harness {
namespace {

using testing::Args;
using testing::DocsInput;
using testing::InterceptorTest;
using testing::LogsInput;
using tools::ToolErrorCode;

TEST_F(InterceptorTest, FirstCallRunsWithoutPreviousObservationAndBecomesPending) {
  auto obs = Obj(Call("call_1", "search_documents", Args(DocsInput("连接池 耗尽"))));
  EXPECT_EQ(obs.at("evidence_status"), "EVIDENCE_FOUND");
  EXPECT_EQ(obs.at("tool_call_id"), "call_1");
  EXPECT_EQ(ToolRuns(), 1);
  ASSERT_TRUE(tracker_.Pending().has_value());
  EXPECT_EQ(tracker_.Pending()->tool_call_id, "call_1");
}

TEST_F(InterceptorTest, PendingResultRequiresPreviousObservation) {
  Call("call_1", "search_documents", Args(DocsInput("连接池")));
  auto obs = Obj(Call("call_2", "query_logs", Args(LogsInput("gateway", "timeout"))));
  EXPECT_EQ(obs.at("error_code"), "INVALID_PROGRESS_PROTOCOL");
  EXPECT_EQ(obs.at("violation_type"), "MISSING_PREVIOUS_OBSERVATION");
  EXPECT_EQ(obs.at("missing_field"), "previous_observation");
  EXPECT_EQ(obs.at("expected_previous_tool_call_id"), "call_1");
  EXPECT_EQ(obs.at("repair_required"), true);
  EXPECT_EQ(obs.at("allowed_information_gain"), (boost::json::array{"GAINED", "NO_GAIN"}));
  EXPECT_EQ(ToolRuns(), 1) << "a violation never runs the tool";
  auto state = tracker_.Snapshot();
  EXPECT_EQ(state.consecutive_protocol_violations, 1);
  EXPECT_EQ(state.consecutive_no_gain, 0) << "a violation does not touch NO_GAIN";
  ASSERT_TRUE(state.pending.has_value()) << "the pending call stays pending";
  EXPECT_EQ(state.pending->tool_call_id, "call_1");
}

TEST_F(InterceptorTest, GradeOfAnotherCallIsIdMismatch) {
  Call("call_1", "search_documents", Args(DocsInput("连接池")));
  auto obs = Obj(Call("call_2", "query_logs",
                      Args(LogsInput("gateway", "timeout"), "call_0", "GAINED")));
  EXPECT_EQ(obs.at("violation_type"), "PREVIOUS_TOOL_CALL_ID_MISMATCH");
  EXPECT_EQ(obs.at("expected_previous_tool_call_id"), "call_1");
  EXPECT_EQ(ToolRuns(), 1);
}

TEST_F(InterceptorTest, GradeOutsideGainedAndNoGainIsInvalid) {
  Call("call_1", "search_documents", Args(DocsInput("连接池")));
  for (std::string gain : {"USEFUL", "gained", ""}) {
    tracker_.ResetProtocolViolations();
    std::string args = R"({"previous_observation":{"tool_call_id":"call_1","information_gain":")" +
                       gain + R"("},"input":)" + LogsInput("gateway", "x") + "}";
    auto obs = Obj(Call("call_2", "query_logs", args));
    EXPECT_EQ(obs.at("violation_type"), "INVALID_INFORMATION_GAIN") << gain;
  }
  auto missing = Obj(Call("call_3", "query_logs",
                          R"({"previous_observation":{"tool_call_id":"call_1"},"input":)" +
                              LogsInput("gateway", "x") + "}"));
  EXPECT_TRUE(missing.contains("stop_required")) << "second consecutive violation stops";
  EXPECT_EQ(ToolRuns(), 1);
}

TEST_F(InterceptorTest, PreviousObservationWithNothingPendingIsUnexpected) {
  auto obs = Obj(Call("call_1", "search_documents", Args(DocsInput("连接池"), "call_0", "GAINED")));
  EXPECT_EQ(obs.at("violation_type"), "UNEXPECTED_PREVIOUS_OBSERVATION");
  EXPECT_FALSE(obs.contains("expected_previous_tool_call_id"));
  EXPECT_EQ(ToolRuns(), 0);
}

TEST_F(InterceptorTest, MalformedEnvelopesAreViolations) {
  struct Case {
    const char* args;
    bool missing_input;
  };
  for (Case c : {Case{"not json", false}, Case{"[]", false}, Case{R"({"query":"x"})", false},
                 Case{R"({"input":{"query":"x"},"extra":1})", false},
                 Case{R"({"input":"query x"})", false}, Case{R"({})", true},
                 Case{R"({"previous_observation":"call_1","input":{"query":"x"}})", false},
                 Case{R"({"previous_observation":{"tool_call_id":"c","information_gain":"GAINED",)"
                      R"("reason":"x"},"input":{"query":"x"}})",
                      false}}) {
    tracker_.ResetProtocolViolations();
    auto obs = Obj(Call("call_1", "search_documents", c.args));
    EXPECT_EQ(obs.at("violation_type"), "MALFORMED_ENVELOPE") << c.args;
    EXPECT_EQ(obs.contains("missing_field"), c.missing_input) << c.args;
  }
  EXPECT_EQ(ToolRuns(), 0);
}

TEST_F(InterceptorTest, NullPreviousObservationCountsAsOmitted) {
  auto obs = Obj(Call("call_1", "search_documents",
                      R"({"previous_observation":null,"input":{"query":"连接池"}})"));
  EXPECT_EQ(obs.at("evidence_status"), "EVIDENCE_FOUND");
}

TEST_F(InterceptorTest, ViolationsAtThresholdStopWithProtocolViolated) {
  Call("call_1", "search_documents", "garbage");
  auto obs = Obj(Call("call_2", "search_documents", "garbage"));
  EXPECT_EQ(obs.at("stop_required"), true);
  EXPECT_EQ(obs.at("reason"), "PROGRESS_PROTOCOL_VIOLATED");
  EXPECT_FALSE(obs.contains("repair_required"));
  EXPECT_EQ(tracker_.stop_reason(), StopReason::kProgressProtocolViolated);
  EXPECT_TRUE(tracker_.StopDelivered());
  EXPECT_NE(Trace().find("TOOL_REQUEST_REJECTED tool_call_id=call_2 tool=search_documents "
                         "error_code=INVALID_PROGRESS_PROTOCOL violation_type=MALFORMED_ENVELOPE "
                         "repair_prompt_delivered=false consecutive_protocol_violations=2 "
                         "stop_reason=PROGRESS_PROTOCOL_VIOLATED"),
            std::string::npos)
      << Trace();
}

TEST_F(InterceptorTest, AValidRequestResetsTheViolationCount) {
  Call("call_1", "search_documents", "garbage");
  Call("call_2", "search_documents", Args(DocsInput("连接池")));
  EXPECT_EQ(tracker_.Snapshot().consecutive_protocol_violations, 0);
  auto obs = Obj(Call("call_3", "query_logs", Args(LogsInput("gateway", "x"))));
  EXPECT_EQ(obs.at("violation_type"), "MISSING_PREVIOUS_OBSERVATION")
      << "one violation after a reset repairs, it does not stop";
}

TEST_F(InterceptorTest, UnknownToolIsAnsweredAndCountedAsViolation) {
  auto obs = Obj(Call("call_1", "drop_database", Args(DocsInput("x"))));
  EXPECT_EQ(obs, (boost::json::object{{"tool_call_id", "call_1"}, {"error_code", "UNKNOWN_TOOL"}}));
  EXPECT_EQ(tracker_.Snapshot().consecutive_protocol_violations, 1);
  auto stop = Obj(Call("call_2", "shell", "{}"));
  EXPECT_EQ(stop.at("reason"), "PROGRESS_PROTOCOL_VIOLATED");
  EXPECT_EQ(ToolRuns(), 0);
}

TEST_F(InterceptorTest, GainedResetsAndNoGainCountsTowardsSaturation) {
  Call("call_1", "search_documents", Args(DocsInput("a")));
  Call("call_2", "search_documents", Args(DocsInput("b"), "call_1", "NO_GAIN"));
  Call("call_3", "search_documents", Args(DocsInput("c"), "call_2", "NO_GAIN"));
  EXPECT_EQ(tracker_.Snapshot().consecutive_no_gain, 2);
  Call("call_4", "search_documents", Args(DocsInput("d"), "call_3", "GAINED"));
  EXPECT_EQ(tracker_.Snapshot().consecutive_no_gain, 0);
  EXPECT_FALSE(tracker_.IsSaturated());
}

TEST_F(InterceptorTest, ThirdNoGainSaturatesAndTheCurrentToolDoesNotRun) {
  Call("call_1", "search_documents", Args(DocsInput("a")));
  Call("call_2", "search_documents", Args(DocsInput("b"), "call_1", "NO_GAIN"));
  Call("call_3", "search_documents", Args(DocsInput("c"), "call_2", "NO_GAIN"));
  auto obs = Obj(Call("call_4", "search_documents", Args(DocsInput("d"), "call_3", "NO_GAIN")));
  EXPECT_EQ(obs, (boost::json::object{{"tool_call_id", "call_4"},
                                      {"stop_required", true},
                                      {"reason", "INFORMATION_SATURATED"}}));
  EXPECT_EQ(ToolRuns(), 3);
  EXPECT_EQ(tracker_.stop_reason(), StopReason::kInformationSaturated);
  EXPECT_NE(Trace().find("PROGRESS_EVALUATED tool_call_id=call_3 tool=search_documents "
                         "information_gain=NO_GAIN producer=MODEL consecutive_no_gain=3 "
                         "collection_state=SATURATED stop_reason=INFORMATION_SATURATED\n"
                         "TOOL_REQUEST_REJECTED tool_call_id=call_4 tool=search_documents "
                         "error_code=INFORMATION_SATURATED"),
            std::string::npos)
      << Trace();
}

TEST_F(InterceptorTest, NoEvidenceIsGradedByTheHarnessAndNeedsNoGrade) {
  docs_.PushEmpty(tools::DocumentsRequest{"x"});
  auto obs = Obj(Call("call_1", "search_documents", Args(DocsInput("无关内容"))));
  EXPECT_EQ(obs.at("evidence_status"), "NO_EVIDENCE");
  EXPECT_EQ(obs.at("evidence"), boost::json::array{});
  EXPECT_EQ(obs.at("query"), "无关内容");
  EXPECT_FALSE(tracker_.Pending().has_value());
  EXPECT_EQ(tracker_.Snapshot().consecutive_no_gain, 1);
  EXPECT_NE(Trace().find("PROGRESS_EVALUATED tool_call_id=call_1 tool=search_documents "
                         "information_gain=NO_GAIN producer=HARNESS"),
            std::string::npos);
  // Nothing pending: the next call may omit the grade.
  auto next = Obj(Call("call_2", "query_logs", Args(LogsInput("gateway", "timeout"))));
  EXPECT_EQ(next.at("evidence_status"), "EVIDENCE_FOUND");
}

TEST_F(InterceptorTest, NoEvidenceReachingTheThresholdCarriesTheStopOnTheResult) {
  for (int i = 0; i < 3; ++i) docs_.PushEmpty(tools::DocumentsRequest{"x"});
  Call("call_1", "search_documents", Args(DocsInput("a")));
  Call("call_2", "search_documents", Args(DocsInput("b")));
  auto obs = Obj(Call("call_3", "search_documents", Args(DocsInput("c"))));
  EXPECT_EQ(obs.at("evidence_status"), "NO_EVIDENCE");
  EXPECT_EQ(obs.at("stop_required"), true);
  EXPECT_EQ(obs.at("reason"), "INFORMATION_SATURATED");
  EXPECT_TRUE(tracker_.StopDelivered());
}

TEST_F(InterceptorTest, DuplicateScopeIsAHarnessNoGainAndNeverReachesTheBoundary) {
  Call("call_1", "query_logs", Args(LogsInput("gateway", "timeout  error")));
  auto obs = Obj(Call("call_2", "query_logs",
                      Args(R"({"topic":"gateway","query":" timeout error ","lookback_minutes":60})",
                           "call_1", "GAINED")));
  EXPECT_EQ(obs, (boost::json::object{{"tool_call_id", "call_2"},
                                      {"error_code", "DUPLICATE_SCOPE"},
                                      {"duplicate_of_tool_call_id", "call_1"}}));
  EXPECT_EQ(ToolRuns(), 1);
  EXPECT_EQ(budget_.admitted(), 1) << "a rejected call never reaches the tool-call budget";
  EXPECT_FALSE(store_.Get("run-1", "call_2")->has_value()) << "nor the canonical store";
  EXPECT_EQ(tracker_.Snapshot().consecutive_no_gain, 1);
  EXPECT_NE(Trace().find("PROGRESS_EVALUATED tool_call_id=call_2 tool=query_logs "
                         "information_gain=NO_GAIN producer=HARNESS consecutive_no_gain=1"),
            std::string::npos)
      << Trace();
  EXPECT_NE(Trace().find("TOOL_REQUEST_REJECTED tool_call_id=call_2 tool=query_logs "
                         "error_code=DUPLICATE_SCOPE"),
            std::string::npos);
}

TEST_F(InterceptorTest, DuplicateScopeReachingTheThresholdStops) {
  Call("call_1", "query_logs", Args(LogsInput("gateway", "timeout")));
  Call("call_2", "query_logs", Args(LogsInput("gateway", "timeout"), "call_1", "NO_GAIN"));
  Call("call_3", "query_logs", Args(LogsInput("gateway", "timeout")));
  EXPECT_EQ(tracker_.Snapshot().consecutive_no_gain, 3);
  EXPECT_EQ(ToolRuns(), 1);
  EXPECT_EQ(Obj(observations_.back()).at("reason"), "INFORMATION_SATURATED");
}

TEST_F(InterceptorTest, ErrorIsNotGradedAndTheSameScopeMayBeRetried) {
  logs_.PushFailure(ToolErrorCode::kToolTimeout);
  auto obs = Obj(Call("call_1", "query_logs", Args(LogsInput("gateway", "timeout"))));
  EXPECT_EQ(obs, (boost::json::object{{"tool_call_id", "call_1"},
                                      {"evidence_status", "ERROR"},
                                      {"error_code", "TOOL_TIMEOUT"}}));
  auto state = tracker_.Snapshot();
  EXPECT_FALSE(state.pending.has_value());
  EXPECT_EQ(state.consecutive_no_gain, 0);
  EXPECT_EQ(state.executed_scopes, 0u);
  ASSERT_EQ(state.completed.size(), 1u) << "an ERROR call is in the index";
  auto record = store_.Get("run-1", "call_1");
  ASSERT_TRUE(record.has_value() && record->has_value());
  EXPECT_EQ(tools::EvidenceStatusOf((*record)->result), tools::EvidenceStatus::kError);
  auto retry = Obj(Call("call_2", "query_logs", Args(LogsInput("gateway", "timeout"))));
  EXPECT_EQ(retry.at("evidence_status"), "EVIDENCE_FOUND");
}

TEST_F(InterceptorTest, QueryFailedCarriesOnlyTheBoundedMessage) {
  mysql_.PushFailure(ToolErrorCode::kQueryFailed, "Unknown column 'statu' in 'field list'");
  auto obs = Obj(Call("call_1", "query_mysql",
                      Args(R"({"datasource":"orders","sql":"SELECT statu FROM orders"})")));
  EXPECT_EQ(obs.at("error_code"), "QUERY_FAILED");
  EXPECT_EQ(obs.at("message"), "Unknown column 'statu' in 'field list'");
  EXPECT_EQ(obs.size(), 4u);
}

TEST_F(InterceptorTest, InvalidInputIsNeverExecutedAndCountsAsViolation) {
  auto obs = Obj(Call("call_1", "query_mysql",
                      Args(R"({"datasource":"orders","sql":"DELETE FROM orders"})")));
  EXPECT_EQ(obs, (boost::json::object{{"tool_call_id", "call_1"},
                                      {"error_code", "INVALID_TOOL_INPUT"},
                                      {"repair_required", true},
                                      {"field", "input.sql"},
                                      {"reason", "NOT_READ_ONLY"}}));
  EXPECT_EQ(tracker_.Snapshot().consecutive_protocol_violations, 1);
  auto topic = Obj(Call("call_2", "query_logs", Args(LogsInput("../etc/passwd", "x"))));
  EXPECT_EQ(topic.at("reason"), "PROGRESS_PROTOCOL_VIOLATED");
  EXPECT_EQ(ToolRuns(), 0);
  EXPECT_EQ(budget_.admitted(), 0);
  EXPECT_NE(Trace().find("TOOL_REQUEST_REJECTED tool_call_id=call_1 tool=query_mysql "
                         "error_code=INVALID_TOOL_INPUT repair_prompt_delivered=true "
                         "consecutive_protocol_violations=1"),
            std::string::npos)
      << Trace();
}

TEST_F(InterceptorTest, InvalidInputAfterAGradeKeepsTheGradeApplied) {
  Call("call_1", "search_documents", Args(DocsInput("a")));
  auto obs = Obj(Call("call_2", "query_logs",
                      Args(LogsInput("no-such-topic", "x"), "call_1", "NO_GAIN")));
  EXPECT_EQ(obs.at("reason"), "UNKNOWN_TOPIC");
  auto state = tracker_.Snapshot();
  EXPECT_FALSE(state.pending.has_value()) << "step 3 ran before step 5";
  EXPECT_EQ(state.consecutive_no_gain, 1);
}

TEST_F(InterceptorTest, LookbackAboveTheMaximumIsClampedAndShown) {
  auto obs = Obj(Call("call_1", "query_logs",
                      Args(R"({"topic":"gateway","query":"x","lookback_minutes":99999})")));
  EXPECT_EQ(obs.at("lookback_minutes"), 1440);
  auto below = Obj(Call("call_2", "query_logs",
                        Args(R"({"topic":"gateway","query":"y","lookback_minutes":0})", "call_1",
                             "GAINED")));
  EXPECT_EQ(below.at("reason"), "OUT_OF_RANGE");
}

TEST_F(InterceptorTest, StopIsDeliveredOnceThenAnyToolCallEndsCollection) {
  Call("call_1", "search_documents", "garbage");
  Call("call_2", "search_documents", "garbage");
  ASSERT_TRUE(tracker_.StopDelivered());
  ToolCallRequest again{"call_3", "query_logs", Args(LogsInput("gateway", "x"))};
  try {
    interceptor_.HandleTurn(std::span(&again, 1));
    FAIL() << "expected CollectionStoppedError";
  } catch (const CollectionStoppedError& stopped) {
    EXPECT_EQ(stopped.reason(), StopReason::kProgressProtocolViolated);
  }
  EXPECT_THROW(interceptor_.HandleTurn(std::span(&again, 1)), CollectionStoppedError);
  std::string trace = Trace();
  EXPECT_NE(trace.find("TOOL_REQUEST_REJECTED tool_call_id=call_3 tool=query_logs "
                       "error_code=COLLECTION_STOPPED"),
            std::string::npos);
  std::size_t first = trace.find("COLLECTION_STOPPED stop_reason=PROGRESS_PROTOCOL_VIOLATED");
  ASSERT_NE(first, std::string::npos) << trace;
  EXPECT_EQ(trace.find("\nCOLLECTION_STOPPED", first + 1), std::string::npos)
      << "COLLECTION_STOPPED is traced once";
  EXPECT_EQ(ToolRuns(), 0);
}

TEST_F(InterceptorTest, CallsAfterTheStopInTheSameResponseGetTheSameStop) {
  Call("call_1", "search_documents", "garbage");
  TurnResult turn = Turn({{"call_2", "search_documents", "garbage"},
                          {"call_3", "query_logs", Args(LogsInput("gateway", "x"))},
                          {"call_4", "search_documents", Args(DocsInput("y"))}});
  ASSERT_EQ(turn.responses.size(), 3u);
  for (const auto& response : turn.responses) {
    auto obs = Obj(response.ObservationJson());
    EXPECT_EQ(obs.at("tool_call_id").as_string(), response.tool_call_id);
    EXPECT_EQ(obs.at("stop_required"), true);
    EXPECT_EQ(obs.at("reason"), "PROGRESS_PROTOCOL_VIOLATED");
  }
  EXPECT_EQ(ToolRuns(), 0);
  EXPECT_NE(Trace().find("TOOL_REQUEST_REJECTED tool_call_id=call_4 tool=search_documents "
                         "error_code=INFORMATION_SATURATED"),
            std::string::npos);
}

TEST_F(InterceptorTest, SecondCallInOneResponseIsRejectedWhileTheFirstIsPending) {
  TurnResult turn = Turn({{"call_1", "search_documents", Args(DocsInput("a"))},
                          {"call_2", "query_logs", Args(LogsInput("gateway", "x"))}});
  ASSERT_EQ(turn.responses.size(), 2u);
  EXPECT_EQ(Obj(turn.responses[0].ObservationJson()).at("evidence_status"), "EVIDENCE_FOUND");
  auto second = Obj(turn.responses[1].ObservationJson());
  EXPECT_EQ(second.at("violation_type"), "MISSING_PREVIOUS_OBSERVATION");
  EXPECT_EQ(second.at("expected_previous_tool_call_id"), "call_1");
  EXPECT_EQ(ToolRuns(), 1);
}

TEST_F(InterceptorTest, ExhaustedBudgetEndsTheTurnWithoutRunningTheTool) {
  tools::testing::CountingBudget empty(0);
  ToolInterceptor interceptor({"run-1", catalog_, boundary_, empty, tracker_, trace_, {}});
  std::vector<ToolCallRequest> calls{{"call_1", "search_documents", Args(DocsInput("a"))},
                                     {"call_2", "search_documents", Args(DocsInput("b"))}};
  TurnResult turn = interceptor.HandleTurn(calls);
  EXPECT_TRUE(turn.budget_exhausted);
  EXPECT_TRUE(turn.responses.empty());
  EXPECT_EQ(ToolRuns(), 0);
  EXPECT_TRUE(tracker_.Snapshot().completed.empty());
}

TEST_F(InterceptorTest, StoresTheCanonicalRecordOfEveryExecutedCall) {
  Call("call_1", "query_mysql",
       Args(R"({"datasource":"ORDERS","sql":"SELECT status, COUNT(*) n FROM orders WHERE )"
            R"(created_at > ? GROUP BY status","params":["2026-11-29"]})"));
  auto record = store_.Get("run-1", "call_1");
  ASSERT_TRUE(record.has_value() && record->has_value());
  const auto& r = **record;
  EXPECT_EQ(r.tool, tools::mysql::kQueryMysql);
  EXPECT_EQ(r.request_json,
            R"({"datasource":"orders","sql":"SELECT status, COUNT(*) n FROM orders WHERE )"
            R"(created_at > ? GROUP BY status","params":["2026-11-29"]})");
  EXPECT_EQ(r.raw_response, R"({"rows":1})");
  EXPECT_EQ(r.scope.summary.find("2026-11-29"), std::string::npos)
      << "the scope summary never shows SQL parameters";
  EXPECT_EQ(tools::ToolCallIdOf(r.result), "call_1");
}

TEST_F(InterceptorTest, TracesAWholeInvestigationInOrder) {
  Call("call_1", "search_documents", Args(DocsInput("连接池")));
  Call("call_2", "query_logs", Args(LogsInput("gateway", "timeout"), "call_1", "GAINED"));
  EXPECT_EQ(Trace(),
            "TOOL_CALL_COMPLETED tool_call_id=call_1 tool=search_documents scope_summary=连接池 "
            "evidence_status=EVIDENCE_FOUND returned_count=1 truncated=false duration_ms=0\n"
            "PROGRESS_EVALUATED tool_call_id=call_1 tool=search_documents information_gain=GAINED "
            "producer=MODEL consecutive_no_gain=0 collection_state=COLLECTING stop_reason=null\n"
            "TOOL_CALL_COMPLETED tool_call_id=call_2 tool=query_logs "
            "scope_summary=gateway: timeout (60m) evidence_status=EVIDENCE_FOUND "
            "returned_count=1 truncated=false duration_ms=0\n");
}

}  // namespace
}  // namespace diagd::harness

namespace diagd::harness {
namespace {

using testing::InterceptorTest;

class RecordingObserver final : public ToolProgressObserver {
 public:
  void OnToolProgress(const ToolProgress& p) override {
    lines += std::to_string(p.index) + " " + p.tool + " [" + p.scope + "] " +
             ProgressStatusString(p.status) + "\n";
  }
  std::string lines;
};

TEST_F(InterceptorTest, ReportsEachCallStartedThenHowItEnded) {
  RecordingObserver observer;
  ToolInterceptor interceptor({"run-1", catalog_, boundary_, budget_, tracker_, trace_, {}, &observer});
  auto call = [&](std::string id, std::string tool, std::string args) {
    ToolCallRequest request{std::move(id), std::move(tool), std::move(args)};
    interceptor.HandleTurn(std::span(&request, 1));
  };
  logs_.PushEmpty(tools::LogsRequest{"gateway", "x", 60});
  call("c1", "search_documents", testing::Args(testing::DocsInput("连接池")));
  call("c2", "query_logs", testing::Args(testing::LogsInput("gateway", "timeout"), "c1", "GAINED"));
  call("c3", "query_logs", testing::Args(testing::LogsInput("gateway", "timeout")));
  call("c4", "nope", "{}");
  EXPECT_EQ(observer.lines,
            "1 search_documents [连接池] STARTED\n"
            "1 search_documents [连接池] EVIDENCE_FOUND\n"
            "2 query_logs [gateway: timeout (60m)] STARTED\n"
            "2 query_logs [gateway: timeout (60m)] NO_EVIDENCE\n"
            "3 query_logs [gateway: timeout (60m)] STARTED\n"
            "3 query_logs [gateway: timeout (60m)] REJECTED\n"
            "4 nope [] STARTED\n"
            "4 nope [] REJECTED\n");
}

}  // namespace
}  // namespace diagd::harness
