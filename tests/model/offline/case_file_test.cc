// BuildCaseFile: which message leads a hop, which change is a cause, and
// which row of a table a runbook names confirms the cause it names, over
// investigation states written by hand.
#include "model/offline/case_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/offline/schema_discovery.h"

namespace diagd::model::offline {
namespace {

const std::vector<std::string> kTopics = {"gateway", "order-api", "shipping-service"};

CallRecord Logs(const std::string& topic, const std::string& query,
                const std::vector<EventItem>& events) {
  CallRecord call;
  call.id = "call_logs_" + query;
  call.tool = ToolKind::kLogs;
  call.input.topic = topic;
  call.input.query = query;
  call.outcome = Outcome::kEvidence;
  call.lookback_used = 60;
  call.events = events;
  return call;
}

CallRecord Rows(const std::string& sql, const std::vector<std::string>& columns,
                const std::vector<std::vector<std::string>>& rows) {
  CallRecord call;
  call.id = "call_sql_" + std::to_string(rows.size());
  call.tool = ToolKind::kMysql;
  call.input.datasource = "ops";
  call.input.sql = sql;
  call.outcome = Outcome::kEvidence;
  call.columns = columns;
  for (const auto& row : rows) {
    std::vector<Cell> cells;
    for (const auto& text : row) cells.push_back({text, true});
    call.rows.push_back(std::move(cells));
  }
  return call;
}

std::vector<EventItem> Repeat(const std::string& level, const std::string& message, int count,
                              int first_minute) {
  std::vector<EventItem> events;
  for (int i = count; i-- > 0;) {
    char time[32];
    std::snprintf(time, sizeof(time), "2026-11-22T02:%02d:00Z", first_minute + i);
    events.push_back({time, level, "shipping-service", message});
  }
  return events;
}

InvestigationState StateOf(std::vector<CallRecord> calls) {
  InvestigationState state;
  state.lang = Lang::kEn;
  state.topics = kTopics;
  state.calls = std::move(calls);
  return state;
}

const char* const kTimeout =
    "create waybill failed: java.net.SocketTimeoutException: Read timed out after 3000ms calling "
    "https://api.fastlogi.example.com/v2/waybills";

TableInfo VendorStatus() {
  return {"vendor_status", {"vendor", "api_host", "status", "started_at", "note"}};
}

TEST(ResourceRecord, TheRowAboutTheHostTheErrorsNameConfirmsTheCause) {
  auto state = StateOf(
      {Logs("shipping-service", "level:ERROR", Repeat("ERROR", kTimeout, 10, 5)),
       Rows(ResourceQuerySql(VendorStatus()), VendorStatus().columns,
            {{"swiftship", "api.swiftship.example.com", "operational", "2007-03-07 00:00:00", ""},
             {"fastlogi", "api.fastlogi.example.com", "maintenance", "2026-11-22 02:00:00",
              "database migration"}})});
  CaseFile file = BuildCaseFile(state, AnalyzeQuestion("Why is shipping failing?", kTopics));
  ASSERT_TRUE(file.resource.has_value());
  EXPECT_EQ(file.resource->table, "vendor_status");
  ASSERT_GE(file.resource->quotes.size(), 3u);
  EXPECT_EQ(file.resource->quotes[0], "api.fastlogi.example.com") << "the matching cell first";
  EXPECT_EQ(file.resource->quotes[1], "fastlogi");
  EXPECT_EQ(file.resource->quotes[2], "maintenance");
}

TEST(ResourceRecord, NoRowAboutIt_OrTwoThingsThatFit_ConfirmNothing) {
  auto other_host = StateOf(
      {Logs("shipping-service", "level:ERROR", Repeat("ERROR", kTimeout, 10, 5)),
       Rows(ResourceQuerySql(VendorStatus()), VendorStatus().columns,
            {{"swiftship", "api.swiftship.example.com", "maintenance", "2026-11-22 02:00:00", ""}})});
  EXPECT_FALSE(BuildCaseFile(other_host, AnalyzeQuestion("Why is shipping failing?", kTopics))
                   .resource.has_value());

  // The row about the host says it is well: no cause there.
  auto operational = StateOf(
      {Logs("shipping-service", "level:ERROR", Repeat("ERROR", kTimeout, 10, 5)),
       Rows(ResourceQuerySql(VendorStatus()), VendorStatus().columns,
            {{"fastlogi", "api.fastlogi.example.com", "operational", "2007-03-07 00:00:00", ""}})});
  EXPECT_FALSE(BuildCaseFile(operational, AnalyzeQuestion("Why is shipping failing?", kTopics))
                   .resource.has_value());
  // A certificate of that host that expires next year explains no handshake failure.
  TableInfo certificates{"certificates", {"common_name", "usage", "not_before", "not_after"}};
  const char* handshake =
      "TLS handshake with api.fastlogi.example.com:443 failed: SSLHandshakeException: "
      "Received fatal alert: certificate_expired";
  auto valid = StateOf({Logs("shipping-service", "level:ERROR", Repeat("ERROR", handshake, 10, 5)),
                        Rows(ResourceQuerySql(certificates), certificates.columns,
                             {{"api.fastlogi.example.com", "client", "2026-01-01 00:00:00",
                               "2027-01-01 00:00:00"}})});
  EXPECT_FALSE(BuildCaseFile(valid, AnalyzeQuestion("Why is shipping failing?", kTopics))
                   .resource.has_value());
  auto expired = valid;
  expired.calls[1].rows[0][3].text = "2026-11-22 02:00:00";
  EXPECT_TRUE(BuildCaseFile(expired, AnalyzeQuestion("Why is shipping failing?", kTopics))
                  .resource.has_value());

  // Two hosts with the same mount: the error's path says neither.
  TableInfo disk{"disk_usage", {"sampled_at", "host", "mount", "used_pct"}};
  const char* full = "failed to persist order to spool /data/order-api/spool: No space left";
  auto two_hosts =
      StateOf({Logs("order-api", "level:ERROR", Repeat("ERROR", full, 10, 5)),
               Rows(ResourceQuerySql(disk), disk.columns,
                    {{"2026-11-22 02:00:00", "app-node-07", "/data", "100.0"},
                     {"2026-11-22 02:00:00", "app-node-03", "/data", "51.4"}})});
  EXPECT_FALSE(BuildCaseFile(two_hosts, AnalyzeQuestion("Why does order-api fail?", kTopics))
                   .resource.has_value());
  // The errors also name the host: that picks out one of them.
  auto named_host = two_hosts;
  for (auto& event : named_host.calls[0].events) event.message += " host=app-node-07";
  auto picked = BuildCaseFile(named_host, AnalyzeQuestion("Why does order-api fail?", kTopics));
  ASSERT_TRUE(picked.resource.has_value());
  EXPECT_EQ(picked.resource->quotes[0], "app-node-07");
  // One host, sampled twice: one thing, confirmed.
  auto one_host =
      StateOf({Logs("order-api", "level:ERROR", Repeat("ERROR", full, 10, 5)),
               Rows(ResourceQuerySql(disk), disk.columns,
                    {{"2026-11-22 02:10:00", "app-node-07", "/data", "100.0"},
                     {"2026-11-22 02:00:00", "app-node-07", "/data", "98.4"}})});
  auto file = BuildCaseFile(one_host, AnalyzeQuestion("Why does order-api fail?", kTopics));
  ASSERT_TRUE(file.resource.has_value());
  EXPECT_EQ(file.resource->quotes[0], "/data");
}

TableInfo ConfigChanges() {
  return {"config_changes",
          {"data_id", "config_key", "old_value", "new_value", "pushed_at", "operator", "note"}};
}

TEST(ChangeRecord, AConfigPushWhoseKeyNamesTheFailureIsACause) {
  auto state = StateOf(
      {Logs("shipping-service", "level:ERROR", Repeat("ERROR", kTimeout, 10, 5)),
       Rows(ChangeQuerySql(ConfigChanges()), ConfigChanges().columns,
            {{"gateway.yaml", "log.access.sample-rate", "1.0", "0.5", "2026-11-22 02:01:00", "ops",
              "sampling"},
             {"shipping-service.yaml", "carrier.read-timeout-ms", "3000", "30",
              "2026-11-22 02:00:00", "liu", "unify timeouts"}})});
  CaseFile file = BuildCaseFile(state, AnalyzeQuestion("Why is shipping failing?", kTopics));
  ASSERT_TRUE(file.change.has_value());
  EXPECT_EQ(file.change->service, "shipping-service.yaml");
  EXPECT_EQ(file.change->key, "carrier.read-timeout-ms");
  EXPECT_EQ(file.change->old_value, "3000");
  EXPECT_EQ(file.change->new_value, "30");
}

TEST(ChangeRecord, AChangeAfterTheFailureWasSeenOrAboutSomethingElseIsNone) {
  TableInfo changes{"changes", {"service", "kind", "changed_at", "ticket", "summary"}};
  auto state = StateOf(
      {Logs("shipping-service", "level:ERROR", Repeat("ERROR", kTimeout, 10, 5)),
       Rows(ChangeQuerySql(changes), changes.columns,
            {{"shipping-service", "restart", "2026-11-22 02:30:00", "INC-1",
              "restart after the timeouts to api.fastlogi.example.com"},
             {"shipping-service", "deploy", "2026-11-22 02:00:00", "LOG-2",
              "logging library upgrade (log format only)"}})});
  CaseFile file = BuildCaseFile(state, AnalyzeQuestion("Why is shipping failing?", kTopics));
  EXPECT_FALSE(file.change.has_value())
      << "the restart came after the failure, the deploy is about logging only";
}

CallRecord Runbook(const std::string& excerpt) {
  CallRecord call;
  call.id = "call_docs";
  call.tool = ToolKind::kDocuments;
  call.input.query = "consume batch done";
  call.outcome = Outcome::kEvidence;
  call.docs.push_back({"d1", "runbooks/kafka.md", "Kafka 消费积压", "Kafka 消费积压 > 消费变慢", excerpt});
  return call;
}

TEST(ChangeRecord, ARunbookThatNamesAReleaseMakesTheFailingServicesReleaseBeforeTheOnsetACause) {
  const std::vector<std::string> topics = {"order-status-consumer", "risk-service"};
  const char* lag = "consume batch done topic=order-status records=500 cost=10234ms lag=48000";
  std::vector<EventItem> events;
  for (int i = 30; i-- > 0;) {
    events.push_back({"2026-11-26T21:" + std::to_string(10 + i) + ":00Z", "WARN",
                      "order-status-consumer", lag});
  }
  TableInfo changes{"changes", {"service", "version", "changed_at", "ticket", "summary"}};
  auto rows = Rows(ChangeQuerySql(changes), changes.columns,
                   {{"order-status-consumer", "v1.6.1", "2026-11-26 19:55:00", "LOG-1",
                     "日志字段调整（仅日志）"},
                    {"order-status-consumer", "v1.6.0", "2026-11-26 19:40:00", "ORD-3402",
                     "每条消息同步调用 risk-service"},
                    // "topic" is the name of a field of every batch line, no evidence.
                    {"kafka", "", "2026-11-26 19:30:00", "MQ-230", "分区重分配：topic user-behavior"}});
  auto question = AnalyzeQuestion("晚上 8 点左右开始，订单状态同步延迟越来越大，为什么？", topics);
  auto state = StateOf({Logs("order-status-consumer", "level:WARN,ERROR", events),
                        Runbook("症状：`consume batch done ... lag=<N>` 中 lag 持续上涨。"
                                "判断：对照消费者最近的发布，是否加入了同步远程调用。"),
                        rows});
  state.topics = topics;
  CaseFile file = BuildCaseFile(state, question);
  ASSERT_FALSE(file.docs.empty());
  ASSERT_TRUE(file.change.has_value())
      << "the runbook names a release; the one before 8 点 is on the failing service";
  EXPECT_EQ(file.change->ticket, "ORD-3402") << "a change that says it is logging only is none";

  // Without a section that names a release, a deploy whose content names
  // nothing the logs show is no cause.
  auto no_runbook = StateOf({Logs("order-status-consumer", "level:WARN,ERROR", events), rows});
  no_runbook.topics = topics;
  EXPECT_FALSE(BuildCaseFile(no_runbook, question).change.has_value());
}

// A change on a service outside the chain is a cause only when it names one
// thing the errors name (a host, a table, a class), not for sharing a word.
TEST(ChangeRecord, AChangeElsewhereMustNameWhatTheErrorsName) {
  TableInfo changes{"changes", {"service", "changed_at", "ticket", "summary"}};
  auto state = StateOf(
      {Logs("shipping-service", "level:ERROR", Repeat("ERROR", kTimeout, 10, 5)),
       Rows(ChangeQuerySql(changes), changes.columns,
            {{"label-printer", "2026-11-22 02:01:00", "LP-1", "waybill template cache tuning"}})});
  auto question = AnalyzeQuestion("Why is shipping failing?", kTopics);
  EXPECT_FALSE(BuildCaseFile(state, question).change.has_value());
  state.calls[1].rows[0][3].text = "route api.fastlogi.example.com through the new egress";
  auto file = BuildCaseFile(state, question);
  ASSERT_TRUE(file.change.has_value());
  EXPECT_EQ(file.change->ticket, "LP-1");
}

// A rate-limit change is a cause when it names the zone the limiting
// names, not for saying 限流.
TEST(ChangeRecord, TheMechanismsWordsAloneMakeNoSummaryACause) {
  const char* limiting =
      "limiting requests, excess: 18.610 by zone \"api_user\", client: 100.64.24.224, request: "
      "\"POST /api/v1/user/login HTTP/1.1\"";
  std::vector<EventItem> events;
  for (int i = 30; i-- > 0;) {
    events.push_back({"2026-11-28T20:" + std::to_string(10 + i) + ":00Z", "WARN", "gateway", limiting});
  }
  TableInfo changes{"changes", {"service", "changed_at", "ticket", "summary"}};
  auto question = AnalyzeQuestion("晚上 8 点以后很多用户登录失败，App 提示请求太频繁，为什么？", kTopics);
  auto other_zone = StateOf(
      {Logs("gateway", "level:WARN", events),
       Rows(ChangeQuerySql(changes), changes.columns,
            {{"gateway", "2026-11-28 20:00:00", "OPS-1", "限流改造：limit_req_zone api_admin 改为 50r/s"}})});
  EXPECT_FALSE(BuildCaseFile(other_zone, question).change.has_value());
  auto this_zone = other_zone;
  this_zone.calls[1].rows[0][3].text = "限流改造：limit_req_zone api_user 改为 50r/s";
  auto file = BuildCaseFile(this_zone, question);
  ASSERT_TRUE(file.change.has_value());
  EXPECT_EQ(file.change->ticket, "OPS-1");
}

TEST(BuildCaseFile, WarningsThatNameTheFailureLeadErrorsThatDoNot) {
  const char* rejected = "coupon CP48443 rejected: CouponExpiredException";
  const char* stuck =
      "thread http-nio-8080-exec-1 stuck for 270s at c.s.order.audit.AuditClient.send "
      "(readTimeout=0)";
  auto state = StateOf({Logs("order-api", "level:ERROR", Repeat("ERROR", rejected, 20, 10)),
                        Logs("order-api", "level:WARN", Repeat("WARN", stuck, 10, 10))});
  CaseFile timing_out = BuildCaseFile(
      state, AnalyzeQuestion("Why is the order-api answering 504 since 10:00?", kTopics));
  ASSERT_EQ(timing_out.hops.size(), 1u);
  EXPECT_EQ(timing_out.hops[0].key_message, stuck) << "a 504 is no coupon rejection";

  CaseFile any_error =
      BuildCaseFile(state, AnalyzeQuestion("order-api 为什么一直报错？", kTopics));
  EXPECT_EQ(any_error.hops[0].key_message, rejected) << "报错 is what any error shows";
}

}  // namespace
}  // namespace diagd::model::offline

namespace diagd::model::offline {
namespace {

// An inventory kept as a log: its line about the host the errors name,
// read as key=value fields, says the certificate expired before the
// failure; a line about a certificate valid for a year says nothing.
TEST(ResourceRecord, AnInventoryLineInALogSaysWhyByItsExpiry) {
  const char* failing =
      "TLS handshake with api.taxcloud.example.org:443 failed: "
      "javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_expired";
  auto inventory = [](const std::string& not_after) {
    return std::vector<EventItem>{
        {"2026-11-22T01:00:00Z", "INFO", "cert-inventory",
         "inventory: CN=ledger-client.example.cn usage=client (mTLS to api.taxcloud.example.org) "
         "used_by=ledger-service not_after=" + not_after + " renew=CERT-1 (open, unassigned)"}};
  };
  auto question = AnalyzeQuestion("Why is shipping-service failing since 02:10?", kTopics);
  auto expired = StateOf({Logs("shipping-service", "level:ERROR", Repeat("ERROR", failing, 10, 10)),
                          Logs("cert-inventory", "\"api.taxcloud.example.org\"",
                               inventory("2026-11-22 02:09:00"))});
  CaseFile file = BuildCaseFile(expired, question);
  ASSERT_TRUE(file.resource.has_value());
  EXPECT_TRUE(file.resource->says_why);
  EXPECT_EQ(file.resource->quotes.front(), "client (mTLS to api.taxcloud.example.org)");
  auto valid = StateOf({Logs("shipping-service", "level:ERROR", Repeat("ERROR", failing, 10, 10)),
                        Logs("cert-inventory", "\"api.taxcloud.example.org\"",
                             inventory("2027-11-22 02:09:00"))});
  EXPECT_FALSE(BuildCaseFile(valid, question).resource.has_value());
}

}  // namespace
}  // namespace diagd::model::offline
