// Text from a client that no run store could keep or look up exactly
// (invalid UTF-8, a NUL) is refused where it comes in, alike on SQLite and
// PostgreSQL (a private server, tests/testing/postgres_server.h): a search,
// a cursor, an id in the path, a question. And ids of any printable
// character are read back when the client percent-encodes them.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "server/json_body.h"
#include "server/server_fixture.h"
#include "testing/postgres_server.h"

namespace diagd::server::testing {
namespace {

enum class Store { kSqlite, kPostgres };

std::string StoreName(const ::testing::TestParamInfo<Store>& info) {
  return info.param == Store::kSqlite ? "Sqlite" : "Postgres";
}

// encodeURIComponent, as the console encodes an id into a path.
std::string EncodeComponent(std::string_view text) {
  constexpr std::string_view kKept = "-_.!~*'()";
  constexpr std::string_view kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0 || kKept.find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

std::string Hex(std::string_view raw) {
  constexpr std::string_view kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 0xf];
  }
  return out;
}

void ExpectRefusedNaming(const HttpReply& reply, const std::string& name, const std::string& what) {
  EXPECT_EQ(reply.status, 400) << what << ": " << reply.body;
  auto body = Json(reply.body);
  if (!body.contains("error")) return;
  EXPECT_EQ(body.at("error").at("code"), "INVALID_REQUEST") << what;
  std::string message(body.at("error").at("message").as_string());
  EXPECT_NE(message.find(name), std::string::npos) << what << ": " << message;
}

class ClientTextTest : public ::testing::TestWithParam<Store> {
 protected:
  void SetUp() override {
    FixtureOptions options;
    if (GetParam() == Store::kPostgres) {
      auto postgres = diagd::testing::SharedPostgresServer();
      if (!postgres && postgres.error().code == ErrorCode::kFailedPrecondition) {
        GTEST_SKIP() << postgres.error().message;
      }
      ASSERT_TRUE(postgres) << postgres.error().ToString();
      auto url = (*postgres)->CreateDatabase();
      ASSERT_TRUE(url) << url.error().ToString();
      options.runs_url = *url;
    }
    server_ = std::make_unique<ServerFixture>(options);
  }

  HttpReply Chat(const boost::json::object& body) {
    return server_->PostChat(boost::json::serialize(body));
  }
  // The store still answers, on a connection of its own: nothing above
  // was taken for a store failure.
  void ExpectStoreUp() {
    auto health = Json(server_->Get("/healthz").body);
    EXPECT_EQ(health.at("store").at("state"), "ok") << boost::json::serialize(health);
    EXPECT_EQ(server_->Get("/api/v1/runs").status, 200);
  }

  std::unique_ptr<ServerFixture> server_;
};

TEST_P(ClientTextTest, ASearchOrCursorNoStoreCanHoldIsRefusedNamingIt) {
  auto asked = Chat({{"message", "hello"}, {"route", "chat"}});
  ASSERT_EQ(asked.status, 200) << asked.body;
  for (const char* q : {"%ff%fe", "%C3%28", "%ED%A0%80", "%00", "a%00b"}) {
    ExpectRefusedNaming(server_->Get(std::string("/api/v1/runs?q=") + q), "q", q);
  }
  std::string cursor = "2026-12-07T00:00:00.000Z\x1f";
  for (const std::string& id : {std::string("\xff"), std::string("a\0b", 3)}) {
    std::string query = "before=" + Hex(cursor + id);
    ExpectRefusedNaming(server_->Get("/api/v1/runs?" + query), "before", query);
  }
  ExpectStoreUp();
  // Text that a store can hold is searched as before.
  auto found = Json(server_->Get("/api/v1/runs?q=hel").body);
  EXPECT_EQ(found.at("runs").as_array().size(), 1u);
}

TEST_P(ClientTextTest, AnIdNoStoreCanHoldIsNotFound) {
  for (const std::string& path :
       {std::string("/api/v1/runs/%FF"), std::string("/api/v1/runs/\xff"),
        std::string("/api/v1/runs/%00"), std::string("/api/v1/runs/%C3%28/events"),
        std::string("/api/v1/runs/run-1/observations/%ff"),
        std::string("/api/v1/conversations/%ff%fe"), std::string("/api/v1/conversations/a%00")}) {
    auto reply = server_->Get(path);
    EXPECT_EQ(reply.status, 404) << path << ": " << reply.body;
  }
  EXPECT_EQ(server_->Post("/api/v1/runs/%ff/cancel").status, 404);
  ExpectStoreUp();
}

TEST_P(ClientTextTest, AQuestionWithAnEscapedNulIsRefusedNotStoredCut) {
  ExpectRefusedNaming(server_->PostChat(R"({"message":"NUL\u0000inside","route":"chat"})"),
                      "message", "NUL inside");
  auto list = Json(server_->Get("/api/v1/runs").body);
  EXPECT_TRUE(list.at("runs").as_array().empty()) << "nothing stored";
  // Every other control character, and text beyond the BMP, is kept whole.
  std::string question = "tab\there \x01\x1f\x7f 😀 数据库";
  auto asked = Chat({{"message", question}, {"route", "chat"}});
  ASSERT_EQ(asked.status, 200) << asked.body;
  std::string run_id(Json(asked.body).at("run_id").as_string());
  auto record = Json(server_->Get("/api/v1/runs/" + run_id).body);
  EXPECT_EQ(record.at("question"), question.c_str());
  ExpectStoreUp();
}

TEST_P(ClientTextTest, AConversationIdWithUrlCharactersIsReadBackEncoded) {
  for (const std::string id : {"a/b", "why?", "x#y", "100%", "%2F", "a+b", "..."}) {
    auto asked = Chat({{"message", "hello"}, {"route", "chat"}, {"conversation_id", id}});
    ASSERT_EQ(asked.status, 200) << id << ": " << asked.body;
    auto reply = server_->Get("/api/v1/conversations/" + EncodeComponent(id));
    ASSERT_EQ(reply.status, 200) << id << ": " << reply.body;
    auto body = Json(reply.body);
    EXPECT_EQ(body.at("conversation_id"), id.c_str());
    EXPECT_EQ(body.at("runs").as_array().size(), 1u) << id;
  }
  // A client resolves these as dot segments: such an id could never be
  // read back, so it is refused when asked.
  for (const char* id : {".", ".."}) {
    ExpectRefusedNaming(Chat({{"message", "hello"}, {"conversation_id", id}}), "conversation_id",
                        id);
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, ClientTextTest,
                         ::testing::Values(Store::kSqlite, Store::kPostgres), StoreName);

}  // namespace
}  // namespace diagd::server::testing
