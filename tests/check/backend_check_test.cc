// The backend part of the `diagd check` driver (RunChecks) over real
// backends: a temporary workspace (Markdown runbook, .jsonl topic, SQLite
// file), an upstream retrieval service on loopback, and the private MariaDB
// of tools/mysql's tests.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "check/check.h"
#include "check/check_workspace.h"
#include "testing/free_port.h"
#include "testing/loopback_http_server.h"
#include "tools/mysql/mariadb_server.h"
#include "tools/mysql/test_databases.h"

namespace diagd::check {
namespace {

namespace fs = std::filesystem;
using diagd::testing::LoopbackHttpServer;
using testing::CheckWorkspace;

constexpr const char* kOffline = "[model]\nprovider = \"offline\"\n";

class BackendCheckTest : public ::testing::Test {
 protected:
  CheckReport Check(const CheckWorkspace::Toml& toml) {
    auto config = workspace_.Load(toml);
    if (!config) {
      ADD_FAILURE() << config.error().message;
      return {};
    }
    CheckOptions options;
    options.config_source = "diagd.toml";
    return RunChecks(*config, options, SystemClock::Instance(), nullptr);
  }
  CheckReport Check() {
    CheckWorkspace::Toml toml;
    toml.tables = kOffline;
    return Check(toml);
  }

  // The row of `part` named `name`; a failure (and an empty row) when none.
  static CheckItem Row(const CheckReport& report, const std::string& part,
                       const std::string& name) {
    for (const CheckItem& item : report.checks) {
      if (item.part == part && item.name == name) return item;
    }
    ADD_FAILURE() << "no row " << part << " " << name << " in\n" << ReportTable(report);
    return {};
  }

  void Write(const fs::path& relative, const std::string& text) {
    fs::create_directories((workspace_.dir() / relative).parent_path());
    std::ofstream(workspace_.dir() / relative, std::ios::binary) << text;
  }

  std::string Path(const std::string& relative) const {
    return (workspace_.dir() / relative).lexically_normal().string();
  }

  CheckWorkspace workspace_;
};

TEST_F(BackendCheckTest, AGoodWorkspaceIsAllWellAndNothingButTheIndexIsWritten) {
  std::string data_before = diagd::testing::DirectoryFingerprint(workspace_.dir() / "data");
  std::string logs_before = diagd::testing::DirectoryFingerprint(workspace_.dir() / "logs");
  std::string docs_before = diagd::testing::DirectoryFingerprint(workspace_.dir() / "docs");
  CheckReport report = Check();
  ASSERT_TRUE(report.ok()) << ReportTable(report);
  EXPECT_EQ(Row(report, "config", "diagd.toml").detail,
            "valid; 1 datasource, 0 model endpoints to probe, fixed now 2026-11-29T10:30:00.000Z");
  EXPECT_EQ(Row(report, "documents", Path("docs")).detail, "1 Markdown file, 2 sections indexed");
  EXPECT_EQ(Row(report, "logs", Path("logs")).detail, "1 topic");
  EXPECT_EQ(Row(report, "logs", "app").detail,
            "3 events, 2026-11-29T10:00:00.000Z to 2026-11-29T10:20:00.000Z (jsonl)");
  EXPECT_EQ(Row(report, "datasource", "orders").detail,
            "reachable (SQLite), read-only enforced (a write was refused: not authorized), 3 "
            "tables and views");
  EXPECT_EQ(diagd::testing::DirectoryFingerprint(workspace_.dir() / "data"), data_before);
  EXPECT_EQ(diagd::testing::DirectoryFingerprint(workspace_.dir() / "logs"), logs_before);
  EXPECT_EQ(diagd::testing::DirectoryFingerprint(workspace_.dir() / "docs"), docs_before);

  // Again, from the index built the first time: the same counts.
  CheckReport again = Check();
  EXPECT_EQ(Row(again, "documents", Path("docs")).detail, "1 Markdown file, 2 sections indexed");
}

TEST_F(BackendCheckTest, AFolderWithoutMarkdownSaysWhereToPutTheRunbooks) {
  fs::remove(workspace_.dir() / "docs/runbook.md");
  Write("docs/notes.txt", "not Markdown");
  CheckReport report = Check();
  EXPECT_FALSE(report.ok());
  CheckItem row = Row(report, "documents", Path("docs"));
  EXPECT_FALSE(row.ok);
  EXPECT_EQ(row.detail, "0 Markdown files, 0 sections indexed");
  EXPECT_EQ(row.advice, "put your Markdown runbooks under " + Path("docs") +
                            ", or point tools.documents.path at the folder that holds them");
}

TEST_F(BackendCheckTest, AMissingDocumentsFolderIsARowAndTheOtherBackendsAreStillChecked) {
  CheckWorkspace::Toml toml;
  toml.documents = "[tools.documents]\npath = \"no-such-docs\"\ncache_path = \"cache\"\n";
  toml.tables = kOffline;
  CheckReport report = Check(toml);
  CheckItem row = Row(report, "documents", Path("no-such-docs"));
  EXPECT_FALSE(row.ok);
  EXPECT_NE(row.detail.find("does not exist"), std::string::npos) << row.detail;
  EXPECT_EQ(row.advice,
            "set tools.documents.path to the folder of your Markdown runbooks and documents");
  EXPECT_TRUE(Row(report, "logs", "app").ok);
  EXPECT_TRUE(Row(report, "datasource", "orders").ok);
}

TEST_F(BackendCheckTest, ALogsFolderWithoutTopicsSaysWhatFilesItNeeds) {
  fs::remove(workspace_.dir() / "logs/app.jsonl");
  Write("logs/app.txt", "2026-11-29 10:00:00 INFO started\n");
  CheckItem row = Row(Check(), "logs", Path("logs"));
  EXPECT_FALSE(row.ok);
  EXPECT_EQ(row.detail, "no topic files");
  EXPECT_EQ(row.advice, "put <topic>.jsonl or <topic>.log files in " + Path("logs") +
                            ", or point tools.logs.path at the folder that holds them");
}

TEST_F(BackendCheckTest, ATopicWithoutTimestampsHasNoEventsAndSaysHowToWriteThem) {
  Write("logs/worker.jsonl", "{\"level\":\"INFO\",\"message\":\"no time\"}\nnot json\n");
  CheckReport report = Check();
  CheckItem row = Row(report, "logs", "worker");
  EXPECT_FALSE(row.ok);
  EXPECT_EQ(row.detail, "no events in its jsonl file; 2 lines skipped (no event)");
  EXPECT_EQ(row.advice, "start each event of " + Path("logs/worker.jsonl") +
                            " with a timestamp diagd reads (ISO 8601 for .jsonl; "
                            "docs/log-query.md lists the .log formats)");
  EXPECT_TRUE(Row(report, "logs", "app").ok);
  EXPECT_EQ(Row(report, "logs", Path("logs")).detail, "2 topics");
}

TEST_F(BackendCheckTest, APlainTextTopicCountsItsEventsNotItsContinuationLines) {
  Write("logs/gateway.log",
        "2026-11-29 10:01:00 ERROR upstream timed out\n  at Handler.run\n  at Main\n"
        "2026-11-29 10:02:00 INFO recovered\n");
  CheckItem row = Row(Check(), "logs", "gateway");
  EXPECT_TRUE(row.ok) << row.detail;
  EXPECT_EQ(row.detail, "2 events, 2026-11-29T10:01:00.000Z to 2026-11-29T10:02:00.000Z (log)");
}

TEST_F(BackendCheckTest, ATopicShowsItsAliasesAndAliasesOfNoTopicAreAProblem) {
  CheckWorkspace::Toml toml;
  toml.logs += "[tools.logs.topics.app]\naliases = [\"应用服务\", \"应用\"]\n"
               "[tools.logs.topics.billing]\naliases = [\"计费\"]\n";
  toml.tables = kOffline;
  CheckReport report = Check(toml);
  CheckItem app = Row(report, "logs", "app");
  EXPECT_TRUE(app.ok) << app.detail;
  EXPECT_THAT(app.detail, ::testing::EndsWith("; aliases: 应用服务, 应用"));
  CheckItem billing = Row(report, "logs", "billing");
  EXPECT_FALSE(billing.ok);
  EXPECT_EQ(billing.detail, "configured under [tools.logs.topics] (aliases: 计费) but no topic file");
  EXPECT_EQ(billing.advice,
            "fix the topic name of [tools.logs.topics.billing] (a file name without .jsonl or "
            ".log), or add its file to " +
                Path("logs"));
}

TEST_F(BackendCheckTest, EventsNoQueryCanReachFromNowAreAProblem) {
  CheckWorkspace::Toml toml;
  toml.now = "2026-12-05T10:30:00Z";  // six days after the events, lookback at most a day
  toml.tables = kOffline;
  CheckItem row = Row(Check(toml), "logs", "app");
  EXPECT_FALSE(row.ok);
  EXPECT_NE(row.detail.find("now is 2026-12-05T10:30:00.000Z, a query reaches back 1440 min"),
            std::string::npos)
      << row.detail;
  EXPECT_EQ(row.advice,
            "for recorded data set `now` to a time just after its events; else raise "
            "tools.logs.max_lookback_minutes or check that " +
                Path("logs/app.jsonl") + " is still written");
}

TEST_F(BackendCheckTest, AMissingOrEmptySqliteFileIsNamedWithWhatToFix) {
  ASSERT_TRUE(diagd::testing::RunSqliteScript(workspace_.dir() / "data/empty.db",
                                              "PRAGMA user_version = 1;"));
  CheckWorkspace::Toml toml;
  toml.datasources +=
      "[tools.mysql.datasources.lost]\nurl = \"sqlite:data/missing.db\"\n"
      "[tools.mysql.datasources.blank]\nurl = \"sqlite:data/empty.db\"\n";
  toml.tables = kOffline;
  CheckReport report = Check(toml);
  CheckItem lost = Row(report, "datasource", "lost");
  EXPECT_FALSE(lost.ok);
  EXPECT_EQ(lost.advice,
            "fix tools.mysql.datasources.lost.url, or the database it points at (the file " +
                Path("data/missing.db") + " does not exist)");
  EXPECT_FALSE(fs::exists(workspace_.dir() / "data/missing.db")) << "never created";
  CheckItem blank = Row(report, "datasource", "blank");
  EXPECT_FALSE(blank.ok);
  EXPECT_NE(blank.detail.find("0 tables and views"), std::string::npos) << blank.detail;
  EXPECT_EQ(blank.advice,
            "point tools.mysql.datasources.blank.url at the database that holds your data");
  EXPECT_TRUE(Row(report, "datasource", "orders").ok);
}

LoopbackHttpServer::Response Answer(int status, std::string body) {
  LoopbackHttpServer::Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

CheckWorkspace::Toml HttpDocuments(const std::string& url) {
  CheckWorkspace::Toml toml;
  toml.documents = "[tools.documents]\nbackend = \"http\"\nurl = \"" + url + "\"\n";
  toml.tables = kOffline;
  return toml;
}

TEST_F(BackendCheckTest, AnHttpDocumentsServiceThatAnswersIsWell) {
  LoopbackHttpServer upstream([](const LoopbackHttpServer::Request&) {
    return Answer(200, R"({"documents":[{"document_id":"kb-1","source":"runbooks/pay.md",
      "title":"Payment","excerpt":"Raise the pool size","score":0.9}]})");
  });
  CheckReport report = Check(HttpDocuments(upstream.BaseUrl() + "/search"));
  CheckItem row = Row(report, "documents", upstream.BaseUrl() + "/search");
  EXPECT_TRUE(row.ok) << row.detail;
  EXPECT_EQ(row.detail, "answers: 1 document for the query \"diagd check\"");
  ASSERT_EQ(upstream.Requests().size(), 1u);
  EXPECT_EQ(boost::json::parse(upstream.Requests()[0].body),
            boost::json::parse(R"({"query":"diagd check"})"));
}

TEST_F(BackendCheckTest, AnHttpDocumentsServiceThatRefusesOrIsDownSaysWhatToFix) {
  LoopbackHttpServer upstream(
      [](const LoopbackHttpServer::Request&) { return Answer(404, R"({"detail":"Not Found"})"); });
  CheckItem refused = Row(Check(HttpDocuments(upstream.BaseUrl() + "/search")), "documents",
                          upstream.BaseUrl() + "/search");
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.detail.find("HTTP 404"), std::string::npos) << refused.detail;
  EXPECT_EQ(refused.advice,
            "make tools.documents.url answer POST {\"query\": ...} with {\"documents\": [...]} "
            "(docs/configuration.md), or fix the url");

  std::string down_url =
      "http://127.0.0.1:" + std::to_string(diagd::testing::FreeLoopbackPort()) + "/search";
  CheckItem down = Row(Check(HttpDocuments(down_url)), "documents", down_url);
  EXPECT_FALSE(down.ok);
  EXPECT_EQ(down.advice,
            "start the retrieval service at " + down_url + ", or fix tools.documents.url");
}

class MariadbCheckTest : public BackendCheckTest {
 protected:
  void SetUp() override {
    auto server = diagd::testing::SharedMariadbServer();
    ASSERT_TRUE(server) << server.error().message;
    server_ = *server;
    ASSERT_TRUE(diagd::testing::EnsureMariadbFixture(*server_));
  }
  CheckReport CheckMysql(const std::string& url) {
    CheckWorkspace::Toml toml;
    toml.datasources = "[tools.mysql.datasources.shop]\nurl = \"" + url + "\"\n";
    toml.tables = kOffline;
    return Check(toml);
  }
  diagd::testing::MariadbServer* server_ = nullptr;
};

TEST_F(MariadbCheckTest, AReachableDatabaseRefusesTheWriteAndCountsItsTables) {
  auto before = diagd::testing::MariadbFingerprint(*server_);
  ASSERT_TRUE(before);
  // The writer account may do anything: the session is read-only anyway.
  CheckReport report = CheckMysql(server_->WriterUrl());
  CheckItem row = Row(report, "datasource", "shop");
  EXPECT_TRUE(row.ok) << row.detail;
  EXPECT_EQ(row.detail.rfind("reachable (MySQL), read-only enforced (a write was refused: ", 0), 0u)
      << row.detail;
  EXPECT_NE(row.detail.find("), 4 tables and views"), std::string::npos) << row.detail;
  EXPECT_EQ(diagd::testing::MariadbFingerprint(*server_).value_or(""), *before);
  EXPECT_EQ(ReportJson(report).find(diagd::testing::MariadbServer::kWriterPassword),
            std::string::npos);
}

TEST_F(MariadbCheckTest, AWrongPasswordOrPortIsUnreachableWithoutThePassword) {
  std::string wrong = server_->Url(diagd::testing::MariadbServer::kReader, "not-the-password-123");
  CheckReport report = CheckMysql(wrong);
  CheckItem row = Row(report, "datasource", "shop");
  EXPECT_FALSE(row.ok);
  EXPECT_EQ(row.advice,
            "fix tools.mysql.datasources.shop.url, or the database it points at (cannot connect "
            "to 127.0.0.1:" +
                std::to_string(server_->port()) + " or log in to database diagd_test)");
  EXPECT_EQ(ReportJson(report).find("not-the-password-123"), std::string::npos);

  CheckItem closed =
      Row(CheckMysql("mysql://diagd_ro:pw-1@127.0.0.1:1/diagd_test"), "datasource", "shop");
  EXPECT_FALSE(closed.ok);
  EXPECT_NE(closed.advice.find("cannot connect to 127.0.0.1:1"), std::string::npos);
}

}  // namespace
}  // namespace diagd::check
