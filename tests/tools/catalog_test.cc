// The agent-facing definitions and the business input rules of each tool.
#include "tools/tool_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <mutex>
#include <thread>

#include "core/clock.h"
#include "core/json.h"

namespace diagd::tools {
namespace {

// Options with these topics and datasources (lookback 60 of at most 1440).
CatalogOptions Options(std::vector<std::string> topics, std::vector<std::string> datasources,
                       bool english) {
  CatalogOptions options;
  options.logs = {std::move(topics), 60, 1440};
  options.mysql.datasources = std::move(datasources);
  options.english = english;
  return options;
}

ToolCatalog Catalog(bool english = false) {
  return ToolCatalog(Options({"gateway", "order-service"}, {"orders"}, english));
}

// Walks a schema: every object schema is closed and fully typed.
void ExpectClosedEverywhere(const boost::json::value& schema, const std::string& path) {
  const auto& object = schema.as_object();
  ASSERT_TRUE(object.contains("type")) << path << " has no type";
  if (object.at("type") == "object") {
    EXPECT_EQ(object.at("additionalProperties"), false) << path;
    ASSERT_TRUE(object.contains("properties")) << path << " is a generic object";
    for (const auto& property : object.at("properties").as_object()) {
      ExpectClosedEverywhere(property.value(), path + "." + std::string(property.key()));
    }
  }
  if (object.at("type") == "array") {
    ASSERT_TRUE(object.contains("items")) << path;
    ExpectClosedEverywhere(object.at("items"), path + "[]");
  }
}

TEST(ToolCatalog, OffersThreeToolsWithClosedEnvelopeSchemas) {
  auto catalog = Catalog();
  ASSERT_EQ((*catalog.Definitions()).size(), 3u);
  std::vector<std::string> names;
  for (const auto& definition : (*catalog.Definitions())) {
    names.push_back(definition.name);
    auto schema = json::Parse(definition.parameters_schema);
    ASSERT_TRUE(schema.has_value());
    ExpectClosedEverywhere(*schema, definition.name);
    const auto& properties = schema->at("properties").as_object();
    EXPECT_EQ(properties.size(), 2u);
    EXPECT_EQ(schema->at("required"), boost::json::array{"input"});
    EXPECT_EQ(properties.at("previous_observation").at("properties").at("information_gain").at(
                  "enum"),
              (boost::json::array{"GAINED", "NO_GAIN"}));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"search_documents", "query_logs", "query_mysql"}));
}

TEST(ToolCatalog, NamesConfiguredTopicsAndDatasourcesAsEnums) {
  auto catalog = Catalog(true);
  auto logs = json::Parse((*catalog.Definitions())[1].parameters_schema);
  auto mysql = json::Parse((*catalog.Definitions())[2].parameters_schema);
  EXPECT_EQ(logs->at("properties").at("input").at("properties").at("topic").at("enum"),
            (boost::json::array{"gateway", "order-service"}));
  EXPECT_EQ(mysql->at("properties").at("input").at("properties").at("datasource").at("enum"),
            boost::json::array{"orders"});
  EXPECT_NE((*catalog.Definitions())[1].description.find("gateway, order-service"),
            std::string::npos);
}

TEST(ToolCatalog, TheLogsDescriptionNamesTheTimeBoundsWithAnExampleAndTheOrder) {
  for (bool english : {false, true}) {
    ToolCatalog catalog = Catalog(english);
    auto definitions = catalog.Definitions();  // the snapshot the description lives in
    const std::string& description = (*definitions)[1].description;
    for (const char* part : {"after:2026-11-29T09:55:00Z", "before:2026-11-29T10:10:00Z",
                             "RFC 3339", english ? "oldest first" : "最早在前"}) {
      EXPECT_NE(description.find(part), std::string::npos) << part << " in " << description;
    }
  }
}

TEST(ToolCatalog, TheDescriptionNamesEachDatasourcesSqlDialect) {
  CatalogOptions options;
  options.mysql.datasources = {"orders", "prod"};
  options.mysql.dialects = {"SQLite", "MySQL"};
  ToolCatalog catalog(options);
  EXPECT_NE((*catalog.Definitions())[2].description.find("orders (SQLite), prod (MySQL)"),
            std::string::npos)
      << (*catalog.Definitions())[2].description;
  auto mysql = json::Parse((*catalog.Definitions())[2].parameters_schema);
  EXPECT_EQ(mysql->at("properties").at("input").at("properties").at("datasource").at("enum"),
            (boost::json::array{"orders", "prod"}))
      << "the enum holds the names alone";
}

TEST(ToolCatalog, OffersQueryMetricsOnlyWhereItIsConfigured) {
  auto without = Catalog();
  EXPECT_FALSE(without.ParseInput(metrics::kQueryMetrics, {{"query", "up"}}))
      << "not offered, not accepted";
  CatalogOptions options = Options({"gateway"}, {"orders"}, true);
  options.metrics = metrics::MetricsRules{};
  ToolCatalog with(options);
  const auto& definitions = *with.Definitions();
  ASSERT_EQ(definitions.size(), 4u);
  EXPECT_EQ(definitions.back().name, "query_metrics");
  auto schema = json::Parse(definitions.back().parameters_schema);
  ASSERT_TRUE(schema.has_value());
  ExpectClosedEverywhere(*schema, "query_metrics");
  auto parsed =
      with.ParseInput(metrics::kQueryMetrics, {{"query", "up"}, {"lookback_minutes", 60}});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(ToolCatalog::ToolOf(*parsed), metrics::kQueryMetrics);
  auto refused = with.ParseInput(metrics::kQueryMetrics, {{"query", ""}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field, "input.query");
}

TEST(ToolCatalog, DescriptionsNeverMentionLimitsOrBudgets) {
  for (bool english : {false, true}) {
    ToolCatalog catalog = Catalog(english);
    for (const auto& definition : (*catalog.Definitions())) {
      for (const char* word : {"budget", "threshold", "counter", "预算", "阈值", "计数"}) {
        EXPECT_EQ(definition.description.find(word), std::string::npos) << word;
        EXPECT_EQ(definition.parameters_schema.find(word), std::string::npos) << word;
      }
    }
  }
}

struct InputCase {
  ToolName tool;
  const char* input;
  const char* field;
  const char* reason;
};

TEST(ToolCatalog, RejectsBadInputNamingFieldAndReason) {
  auto catalog = Catalog();
  const InputCase cases[] = {
      {tools::documents::kSearchDocuments, R"({})", "input.query", "MISSING_FIELD"},
      {tools::documents::kSearchDocuments, R"({"query":""})", "input.query", "EMPTY"},
      {tools::documents::kSearchDocuments, R"({"query":"   "})", "input.query", "EMPTY"},
      {tools::documents::kSearchDocuments, R"({"query":42})", "input.query", "WRONG_TYPE"},
      {tools::documents::kSearchDocuments, R"({"query":"x","top_k":5})", "input.top_k", "UNKNOWN_FIELD"},
      {tools::logs::kQueryLogs, R"({"topic":"gateway"})", "input.query", "MISSING_FIELD"},
      {tools::logs::kQueryLogs, R"({"topic":"nginx","query":""})", "input.topic", "UNKNOWN_TOPIC"},
      {tools::logs::kQueryLogs, R"({"topic":"gateway","query":"","lookback_minutes":-5})",
       "input.lookback_minutes", "OUT_OF_RANGE"},
      {tools::logs::kQueryLogs, R"({"topic":"gateway","query":"","lookback_minutes":2.5})",
       "input.lookback_minutes", "WRONG_TYPE"},
      {tools::logs::kQueryLogs, R"({"topic":"gateway","query":"","lookback_minutes":"60"})",
       "input.lookback_minutes", "WRONG_TYPE"},
      {tools::mysql::kQueryMysql, R"({"datasource":"billing","sql":"SELECT 1"})", "input.datasource",
       "UNKNOWN_DATASOURCE"},
      {tools::mysql::kQueryMysql, R"({"datasource":"orders","sql":"UPDATE orders SET x=1"})",
       "input.sql", "NOT_READ_ONLY"},
      {tools::mysql::kQueryMysql, R"({"datasource":"orders","sql":"SELECT 1; DROP TABLE orders"})",
       "input.sql", "MULTIPLE_STATEMENTS"},
      {tools::mysql::kQueryMysql, R"({"datasource":"orders","sql":"SELECT ? , ?","params":[1]})",
       "input.params", "PARAM_COUNT_MISMATCH"},
      {tools::mysql::kQueryMysql, R"({"datasource":"orders","sql":"SELECT ?","params":[{"a":1}]})",
       "input.params[0]", "WRONG_TYPE"},
      {tools::mysql::kQueryMysql, R"({"datasource":"orders","sql":"SELECT 1","params":"x"})",
       "input.params", "WRONG_TYPE"},
  };
  for (const auto& c : cases) {
    auto input = json::Parse(c.input);
    ASSERT_TRUE(input.has_value()) << c.input;
    auto parsed = catalog.ParseInput(c.tool, input->as_object());
    ASSERT_FALSE(parsed.has_value()) << c.input;
    EXPECT_EQ(parsed.error().field, c.field) << c.input;
    EXPECT_EQ(parsed.error().reason, c.reason) << c.input;
  }
}

TEST(ToolCatalog, QueryOfFiveHundredCharactersIsAcceptedAndOneMoreIsTooLong) {
  auto catalog = Catalog();
  std::string ok;
  for (int i = 0; i < 500; ++i) ok += "超";
  EXPECT_TRUE(catalog.ParseInput(tools::documents::kSearchDocuments, {{"query", ok}}));
  auto long_one = catalog.ParseInput(tools::documents::kSearchDocuments, {{"query", ok + "时"}});
  ASSERT_FALSE(long_one);
  EXPECT_EQ(long_one.error().reason, "TOO_LONG");
}

TEST(ToolCatalog, UnknownTopicsArePlainNamesWhenTopicsAreNotKnown) {
  ToolCatalog catalog(Options({}, {}, false));
  EXPECT_TRUE(catalog.ParseInput(tools::logs::kQueryLogs, {{"topic", "any-topic.v2"}, {"query", ""}}));
  for (const char* bad : {"../secrets", "a/b", ".hidden", "x y"}) {
    auto parsed = catalog.ParseInput(tools::logs::kQueryLogs, {{"topic", bad}, {"query", ""}});
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().reason, "INVALID_NAME");
  }
}

TEST(ToolCatalog, MatchesDatasourceCaseInsensitivelyAndKeepsConfiguredName) {
  auto parsed = Catalog().ParseInput(
      tools::mysql::kQueryMysql,
      {{"datasource", "ORDERS"}, {"sql", "SELECT * FROM t WHERE a = ? AND b = ?"},
       {"params", {nullptr, true}}});
  ASSERT_TRUE(parsed);
  const auto& request = std::get<MysqlRequest>(*parsed);
  EXPECT_EQ(request.datasource, "orders");
  ASSERT_EQ(request.params.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(request.params[0]));
  EXPECT_EQ(std::get<bool>(request.params[1]), true);
}

TEST(ToolCatalog, ErrorsNeverEchoTheValue) {
  auto parsed = Catalog().ParseInput(tools::mysql::kQueryMysql,
                                     {{"datasource", "orders"}, {"sql", "DELETE FROM secret_table"}});
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().field.find("secret"), std::string::npos);
  EXPECT_EQ(parsed.error().reason.find("secret"), std::string::npos);
}

// The topic enum of a query_logs definition, as names.
std::vector<std::string> OfferedTopics(const ToolCatalog& catalog) {
  auto schema = json::Parse((*catalog.Definitions())[1].parameters_schema);
  std::vector<std::string> topics;
  for (const auto& topic : schema->at("properties").at("input").at("properties").at("topic").at(
           "enum").as_array()) {
    topics.emplace_back(topic.as_string());
  }
  return topics;
}

bool AcceptsTopic(const ToolCatalog& catalog, const char* topic) {
  return catalog.ParseInput(tools::logs::kQueryLogs, {{"topic", topic}, {"query", "timeout"}})
      .has_value();
}

TEST(ToolCatalog, TopicsListedAgainAreOfferedAndAcceptedOnceTheIntervalHasPassed) {
  ManualClock clock;
  std::vector<std::string> on_disk{"gateway", "order-service"};
  int listings = 0;
  ToolCatalog catalog(Options(on_disk, {"orders"}, true),
                      {[&](CatalogOptions& options) {
                         ++listings;
                         options.logs.topics = on_disk;  // a backend lists them sorted
                         std::sort(options.logs.topics.begin(), options.logs.topics.end());
                       },
                       &clock, std::chrono::milliseconds(5000)});
  auto before = catalog.Definitions();
  on_disk.push_back("billing");  // a topic file appears while the server runs

  clock.Advance(std::chrono::milliseconds(4999));
  EXPECT_FALSE(AcceptsTopic(catalog, "billing"));
  EXPECT_EQ(listings, 0) << "listed before the interval";

  clock.Advance(std::chrono::milliseconds(1));
  EXPECT_EQ(OfferedTopics(catalog),
            (std::vector<std::string>{"billing", "gateway", "order-service"}));
  EXPECT_TRUE(AcceptsTopic(catalog, "billing"));
  EXPECT_NE((*catalog.Definitions())[1].description.find("billing, gateway, order-service"),
            std::string::npos);
  EXPECT_EQ(listings, 1) << "listed once per interval, however often asked";
  // What a run took at its start stays as it was.
  EXPECT_EQ((*before)[1].description.find("billing"), std::string::npos);

  on_disk = {"gateway"};  // and one that goes away is no longer offered
  clock.Advance(std::chrono::milliseconds(5000));
  EXPECT_EQ(OfferedTopics(catalog), (std::vector<std::string>{"gateway"}));
  EXPECT_FALSE(AcceptsTopic(catalog, "order-service"));
}

TEST(ToolCatalog, ConcurrentRunsSeeWholeSnapshotsWhileTheTopicsChange) {
  // Runs read the catalog while the topics on disk change and are listed
  // again: each snapshot's schema and description agree (also run under
  // ThreadSanitizer, scripts/tsan).
  ManualClock clock;
  std::mutex disk_mu;
  std::vector<std::string> on_disk{"gateway"};
  ToolCatalog catalog(Options(on_disk, {"orders"}, true),
                      {[&](CatalogOptions& options) {
                         std::lock_guard lock(disk_mu);
                         options.logs.topics = on_disk;
                       },
                       &clock, std::chrono::milliseconds(1)});
  std::atomic<int> inconsistent{0};
  std::vector<std::thread> runs;
  for (int r = 0; r < 4; ++r) {
    runs.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        auto definitions = catalog.Definitions();
        bool in_schema = (*definitions)[1].parameters_schema.find("billing") != std::string::npos;
        bool in_description = (*definitions)[1].description.find("billing") != std::string::npos;
        if (in_schema != in_description) ++inconsistent;
        (void)AcceptsTopic(catalog, "billing");
      }
    });
  }
  for (int flip = 0; flip < 200; ++flip) {
    {
      std::lock_guard lock(disk_mu);
      on_disk = flip % 2 == 0 ? std::vector<std::string>{"billing", "gateway"}
                              : std::vector<std::string>{"gateway"};
    }
    clock.Advance(std::chrono::milliseconds(1));
  }
  for (auto& run : runs) run.join();
  EXPECT_EQ(inconsistent.load(), 0);
}

TEST(ToolCatalog, WithoutARefreshTheTopicsAreFixed) {
  ToolCatalog catalog = Catalog(true);
  EXPECT_EQ(OfferedTopics(catalog), (std::vector<std::string>{"gateway", "order-service"}));
  EXPECT_FALSE(AcceptsTopic(catalog, "billing"));
}

}  // namespace
}  // namespace diagd::tools
