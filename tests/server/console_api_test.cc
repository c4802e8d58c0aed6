// docs/console.md over real sockets against an in-process server over the
// demo workspace with the offline provider (a rule-based agent, no model):
// the console's files and headers, auth on the API but not the console,
// the run list's filters and cursor, the question in records and lists, a
// conversation's runs and its pages, the heap given back after large
// answers, stored observations and their purge, and the cancel route's
// refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <set>
#include <thread>

#include "server/json_body.h"
#include "server/server_fixture.h"
#include "testing/eventually.h"

namespace diagd::server::testing {
namespace {

constexpr const char* kDiagnosis = "订单服务从 10 点左右开始大量 500，为什么？";

void ExpectError(const HttpReply& reply, int status, const std::string& code) {
  EXPECT_EQ(reply.status, status) << reply.body;
  auto body = Json(reply.body);
  ASSERT_TRUE(body.contains("error")) << reply.body;
  EXPECT_EQ(body.at("error").at("code"), code.c_str()) << reply.body;
}

void ExpectConsoleHeaders(const HttpReply& reply) {
  EXPECT_EQ(reply.headers.at("content-security-policy"),
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  EXPECT_EQ(reply.headers.at("x-content-type-options"), "nosniff");
  EXPECT_EQ(reply.headers.at("referrer-policy"), "no-referrer");
  EXPECT_EQ(reply.headers.at("x-frame-options"), "DENY");
}

std::string ChatBody(const std::string& message, const std::string& route = "",
                     const std::string& conversation_id = "") {
  boost::json::object body{{"message", message}};
  if (!route.empty()) body["route"] = route;
  if (!conversation_id.empty()) body["conversation_id"] = conversation_id;
  return boost::json::serialize(body);
}

class ConsoleApiTest : public ::testing::Test {
 protected:
  // A finished run's result.
  boost::json::value Ask(const std::string& message, const std::string& route = "",
                         const std::string& conversation_id = "") {
    auto reply = server_.PostChat(ChatBody(message, route, conversation_id));
    EXPECT_EQ(reply.status, 200) << reply.body;
    return Json(reply.body);
  }
  std::vector<std::string> ListIds(const std::string& query) {
    auto reply = server_.Get("/api/v1/runs?" + query);
    EXPECT_EQ(reply.status, 200) << reply.body;
    std::vector<std::string> ids;
    auto body = Json(reply.body);
    if (!body.contains("runs")) return ids;
    for (const auto& run : body.at("runs").as_array()) {
      ids.emplace_back(run.at("run_id").as_string());
    }
    return ids;
  }

  ServerFixture server_{{}};
};

TEST_F(ConsoleApiTest, TheConsoleIsServedWithItsSecurityHeadersAndAnEtag) {
  auto page = server_.Get("/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.headers.at("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("diagd console"), std::string::npos);
  EXPECT_NE(page.body.find(R"(<script type="module" src="/ui/app.js"></script>)"),
            std::string::npos);
  ExpectConsoleHeaders(page);
  EXPECT_EQ(page.headers.at("cache-control"), "no-cache");
  std::string etag = page.headers.at("etag");
  ASSERT_GE(etag.size(), 3u);
  EXPECT_EQ(etag.front(), '"');
  EXPECT_EQ(etag.back(), '"');

  auto index = server_.Get("/ui/index.html");
  EXPECT_EQ(index.body, page.body);
  EXPECT_EQ(index.headers.at("etag"), etag);
  auto script = server_.Get("/ui/app.js");
  ASSERT_EQ(script.status, 200);
  EXPECT_EQ(script.headers.at("content-type"), "text/javascript; charset=utf-8");
  ExpectConsoleHeaders(script);
  EXPECT_NE(script.headers.at("etag"), etag) << "a hash of each file's own content";
  auto style = server_.Get("/ui/style.css");
  ASSERT_EQ(style.status, 200);
  EXPECT_EQ(style.headers.at("content-type"), "text/css; charset=utf-8");
}

// The page reads <html lang> for its default language (i18n.js).
TEST_F(ConsoleApiTest, ThePageSpeaksTheServersLanguageWithAnEtagOfItsOwn) {
  auto chinese = server_.Get("/");
  ASSERT_EQ(chinese.status, 200);
  EXPECT_NE(chinese.body.find(R"(<html lang="zh-CN">)"), std::string::npos) << chinese.body;
  EXPECT_EQ(chinese.body.find(R"(lang="en")"), std::string::npos);

  ServerFixture english_server{{.language = config::Language::kEn}};
  auto english = english_server.Get("/");
  ASSERT_EQ(english.status, 200);
  EXPECT_NE(english.body.find(R"(<html lang="en">)"), std::string::npos) << english.body;
  ExpectConsoleHeaders(english);
  std::string english_tag = english.headers.at("etag");
  std::string chinese_tag = chinese.headers.at("etag");
  EXPECT_NE(english_tag, chinese_tag) << "one language's page never revalidates as the other's";
  EXPECT_EQ(english_server.Get("/", {{"If-None-Match", chinese_tag}}).status, 200);
  EXPECT_EQ(server_.Get("/", {{"If-None-Match", english_tag}}).status, 200);
  auto revalidated = server_.Get("/", {{"If-None-Match", chinese_tag}});
  EXPECT_EQ(revalidated.status, 304);
  EXPECT_EQ(revalidated.headers.at("etag"), chinese_tag);
  // Only the page changes: the scripts are the same bytes for both.
  EXPECT_EQ(english_server.Get("/ui/app.js").headers.at("etag"),
            server_.Get("/ui/app.js").headers.at("etag"));
}

TEST_F(ConsoleApiTest, ARevalidationWithTheCurrentEtagIsNotModified) {
  std::string etag = server_.Get("/ui/app.js").headers.at("etag");
  for (const std::string& header : {etag, "W/" + etag, "\"other\", " + etag, std::string("*")}) {
    auto reply = server_.Get("/ui/app.js", {{"If-None-Match", header}});
    EXPECT_EQ(reply.status, 304) << header;
    EXPECT_TRUE(reply.body.empty());
    EXPECT_EQ(reply.headers.at("etag"), etag);
    ExpectConsoleHeaders(reply);
  }
  auto stale = server_.Get("/ui/app.js", {{"If-None-Match", "\"stale\""}});
  EXPECT_EQ(stale.status, 200);
  EXPECT_FALSE(stale.body.empty());
  // Another file's tag is no match.
  std::string page_etag = server_.Get("/").headers.at("etag");
  EXPECT_EQ(server_.Get("/ui/app.js", {{"If-None-Match", page_etag}}).status, 200);
}

TEST_F(ConsoleApiTest, OnlyTheConsolesOwnFilesExist) {
  for (const char* path : {"/ui/", "/ui/nope.js", "/ui/../etc/passwd", "/ui/%2e%2e/etc/passwd",
                           "/ui//etc/passwd", "/ui/..%2fsrc%2fserver%2fserver.cc",
                           "/ui/app.js/", "/ui/APP.JS", "/ui/./app.js"}) {
    auto reply = server_.Get(path);
    EXPECT_EQ(reply.status, 404) << path;
    EXPECT_EQ(reply.body.find("root:"), std::string::npos);
    ExpectConsoleHeaders(reply);
  }
  ExpectError(Request(server_.port(), "POST", "/ui/app.js"), 405, "METHOD_NOT_ALLOWED");
}

TEST(ConsoleAuthTest, TheConsoleNeedsNoTokenButEveryApiRouteDoes) {
  ServerFixture server({.auth_tokens = {"s3cret-token"}});
  EXPECT_EQ(server.Get("/").status, 200);
  EXPECT_EQ(server.Get("/ui/app.js").status, 200);
  EXPECT_EQ(server.Get("/ui/missing.js").status, 404);
  EXPECT_EQ(server.Get("/healthz").status, 200);
  for (const char* path :
       {"/api/v1/runs", "/api/v1/runs/x", "/api/v1/runs/x/events", "/api/v1/conversations/c",
        "/api/v1/runs/x/observations/call_1", "/metrics", "/api/nothing"}) {
    auto reply = server.Get(path);
    ExpectError(reply, 401, "UNAUTHORIZED");
    EXPECT_EQ(reply.headers.at("www-authenticate"), "Bearer");
  }
  ExpectError(server.Post("/api/v1/runs/x/cancel"), 401, "UNAUTHORIZED");
  // RFC 9110: the scheme is case-insensitive; the token is not.
  for (const char* scheme : {"Bearer", "bearer", "BEARER", "bEaReR"}) {
    EXPECT_EQ(server.Get("/api/v1/runs", {{"Authorization", std::string(scheme) + " s3cret-token"}})
                  .status,
              200)
        << scheme;
  }
  for (const char* wrong : {"Bearer S3CRET-TOKEN", "Basic s3cret-token", "Bearers3cret-token",
                            "s3cret-token", "Bearer "}) {
    EXPECT_EQ(server.Get("/api/v1/runs", {{"Authorization", wrong}}).status, 401) << wrong;
  }
  Headers auth{{"Authorization", "bearer s3cret-token"}};
  ExpectError(server.Post("/api/v1/runs/no-such-run/cancel", auth), 404, "NOT_FOUND");
  ExpectError(server.Get("/api/v1/conversations/none", auth), 404, "NOT_FOUND");
}

TEST_F(ConsoleApiTest, TheRecordAndTheListCarryTheQuestionAndFinishedAt) {
  std::string long_question;
  for (int i = 0; i < 250; ++i) long_question += "问";  // 250 code points, 750 bytes
  auto result = Ask(long_question, "chat");
  std::string run_id(result.at("run_id").as_string());
  auto record = Json(server_.Get("/api/v1/runs/" + run_id).body);
  EXPECT_EQ(record.at("question"), long_question.c_str());
  auto list = Json(server_.Get("/api/v1/runs").body);
  ASSERT_EQ(list.at("runs").as_array().size(), 1u);
  const auto& entry = list.at("runs").at(0);
  std::string listed(entry.at("question").as_string());
  EXPECT_EQ(listed, long_question.substr(0, 200 * 3)) << "cut to 200 code points";
  EXPECT_TRUE(entry.at("finished_at").is_string());
  EXPECT_EQ(entry.at("finished_at"), record.at("finished_at"));
  EXPECT_TRUE(list.at("next").is_null());
}

TEST_F(ConsoleApiTest, PagesOfTheListHaveNoGapsAndNoDuplicates) {
  std::set<std::string> asked;
  for (int i = 0; i < 11; ++i) {
    asked.emplace(Ask("hello " + std::to_string(i), "chat").at("run_id").as_string());
  }
  std::vector<std::string> seen;
  std::vector<std::string> created;
  std::string query = "limit=3";
  int pages = 0;
  while (true) {
    auto page = Json(server_.Get("/api/v1/runs?" + query).body);
    for (const auto& run : page.at("runs").as_array()) {
      seen.emplace_back(run.at("run_id").as_string());
      created.emplace_back(run.at("created_at").as_string());
    }
    ++pages;
    if (page.at("next").is_null()) break;
    query = "limit=3&before=" + std::string(page.at("next").as_string());
    ASSERT_LT(pages, 10);
  }
  EXPECT_EQ(pages, 4);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), asked) << "no gap";
  EXPECT_EQ(seen.size(), asked.size()) << "no duplicate";
  EXPECT_TRUE(std::is_sorted(created.rbegin(), created.rend())) << "newest first";
  // The same order as one page of all of them (ties broken by run id).
  EXPECT_EQ(seen, ListIds("limit=200"));
}

TEST_F(ConsoleApiTest, TheListFiltersByRouteOutcomeStatusAndQuestion) {
  std::string diagnosis(Ask(kDiagnosis, "diagnosis").at("run_id").as_string());
  std::string knowledge(Ask("HikariCP 连接池耗尽怎么处理？", "knowledge").at("run_id").as_string());
  std::string chat(Ask("你好, 100% sure_thing \\o/", "chat").at("run_id").as_string());

  EXPECT_EQ(ListIds("route=diagnosis"), (std::vector<std::string>{diagnosis}));
  EXPECT_EQ(ListIds("route=knowledge"), (std::vector<std::string>{knowledge}));
  EXPECT_EQ(ListIds("route=chat"), (std::vector<std::string>{chat}));
  auto answers = ListIds("outcome=ANSWER");
  EXPECT_EQ(std::set<std::string>(answers.begin(), answers.end()),
            (std::set<std::string>{chat, knowledge}));
  EXPECT_EQ(ListIds("outcome=DIAGNOSIS"), (std::vector<std::string>{diagnosis}));
  EXPECT_EQ(ListIds("status=SUCCEEDED&route=chat"), (std::vector<std::string>{chat}));
  EXPECT_TRUE(ListIds("status=RUNNING").empty());
  EXPECT_TRUE(ListIds("outcome=FALLBACK").empty());
  // q: percent-encoded, matched literally and case-insensitively (ASCII).
  EXPECT_EQ(ListIds("q=hikaricp"), (std::vector<std::string>{knowledge}));
  EXPECT_EQ(ListIds("q=100%25"), (std::vector<std::string>{chat}));
  EXPECT_EQ(ListIds("q=%25"), (std::vector<std::string>{chat}));
  EXPECT_EQ(ListIds("q=e_t"), (std::vector<std::string>{chat}));
  EXPECT_TRUE(ListIds("q=sur_").empty()) << "_ is no wildcard";
  EXPECT_TRUE(ListIds("q=10%25s").empty()) << "% is no wildcard";
  EXPECT_EQ(ListIds("q=%5Co%2F"), (std::vector<std::string>{chat}));
  EXPECT_EQ(ListIds("q=%E8%BF%9E%E6%8E%A5%E6%B1%A0"), (std::vector<std::string>{knowledge}));
  EXPECT_EQ(ListIds("q=100%25+sure"), (std::vector<std::string>{chat}));
}

TEST_F(ConsoleApiTest, BadListParametersAreRefusedNamingTheParameter) {
  struct Bad {
    const char* query;
    const char* names;
  };
  for (const Bad& bad : {Bad{"route=DIAGNOSIS", "route"}, Bad{"route=sql", "route"},
                         Bad{"outcome=answer", "outcome"}, Bad{"outcome=", "outcome"},
                         Bad{"status=DONE", "status"}, Bad{"before=zz", "before"},
                         Bad{"before=", "before"}, Bad{"before=6869", "before"},
                         Bad{"q=%zz", "q"}, Bad{"q=%2", "q"}, Bad{"limit=0", "limit"},
                         Bad{"limit=1&limit=2", "limit"}, Bad{"page=2", "page"}}) {
    auto reply = server_.Get(std::string("/api/v1/runs?") + bad.query);
    ExpectError(reply, 400, "INVALID_REQUEST");
    std::string message(Json(reply.body).at("error").at("message").as_string());
    EXPECT_NE(message.find(bad.names), std::string::npos) << bad.query << ": " << message;
  }
  ExpectError(server_.Get("/api/v1/runs?q=" + std::string(1001, 'a')), 400, "INVALID_REQUEST");
}

TEST_F(ConsoleApiTest, AConversationListsItsRunsOldestFirst) {
  auto first = Ask("你好", "chat");
  std::string conversation(first.at("conversation_id").as_string());
  auto second = Ask("HikariCP 连接池耗尽怎么处理？", "knowledge", conversation);
  Ask("另一个对话", "chat");
  auto reply = server_.Get("/api/v1/conversations/" + conversation);
  ASSERT_EQ(reply.status, 200) << reply.body;
  auto body = Json(reply.body);
  EXPECT_EQ(body.at("conversation_id"), conversation.c_str());
  const auto& runs = body.at("runs").as_array();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].at("run_id"), first.at("run_id"));
  EXPECT_EQ(runs[0].at("question"), "你好");
  EXPECT_EQ(runs[0].at("route"), "SYSTEM_CHAT");
  EXPECT_EQ(runs[0].at("release_outcome"), "ANSWER");
  EXPECT_TRUE(runs[0].at("created_at").is_string());
  EXPECT_EQ(runs[1].at("run_id"), second.at("run_id"));
  EXPECT_EQ(runs[1].at("route"), "KNOWLEDGE");
  ExpectError(server_.Get("/api/v1/conversations/no-such-conversation"), 404, "NOT_FOUND");
  ExpectError(server_.Get("/api/v1/conversations/"), 404, "NOT_FOUND");
}

// A conversation of long follow-ups, stored as the server would: `count`
// runs of `question_bytes` each, a second apart; their ids, oldest first.
std::vector<std::string> StoreLongConversation(app::RunStore& runs, const std::string& conversation,
                                               int count, std::size_t question_bytes) {
  std::vector<std::string> ids;
  WallTime start = std::chrono::system_clock::now() - std::chrono::hours(1);
  for (int i = 0; i < count; ++i) {
    app::RunRecord run;
    run.run_id = "run-" + std::to_string(1000 + i);
    run.conversation_id = conversation;
    run.question = std::string(question_bytes, static_cast<char>('a' + i % 26));
    run.route = "SYSTEM_CHAT";
    run.status = "SUCCEEDED";
    run.internal_status = "COMPLETED";
    run.release_outcome = "ANSWER";
    run.created_at = start + std::chrono::seconds(i);
    run.finished_at = run.created_at + std::chrono::milliseconds(5);
    EXPECT_TRUE(runs.FinishRun(run));
    ids.push_back(run.run_id);
  }
  return ids;
}

TEST_F(ConsoleApiTest, AConversationIsReadInPagesOfBoundedSize) {
  // 60 follow-ups of 60 KB: 3.6 MB of questions in all.
  auto stored = StoreLongConversation(server_.runs(), "long-talk", 60, 60000);
  std::vector<std::string> seen;
  std::string query;
  int pages = 0;
  while (true) {
    auto reply = server_.Get("/api/v1/conversations/long-talk" + query);
    ASSERT_EQ(reply.status, 200) << reply.body.substr(0, 300);
    EXPECT_LE(reply.body.size(), (1u << 20) + 4096) << "a page holds about 1 MiB of questions";
    auto body = Json(reply.body);
    const auto& runs = body.at("runs").as_array();
    EXPECT_LE(runs.size(), 20u);
    EXPECT_FALSE(runs.empty());
    for (const auto& run : runs) {
      seen.emplace_back(run.at("run_id").as_string());
      EXPECT_EQ(run.at("question").as_string().size(), 60000u) << "each question whole";
    }
    ++pages;
    if (body.at("next").is_null()) break;
    query = "?after=" + std::string(body.at("next").as_string());
    ASSERT_LT(pages, 100);
  }
  EXPECT_EQ(seen, stored) << "every run once, oldest first";
  EXPECT_GE(pages, 4);
  // By count too: limit as in the run list.
  auto two = Json(server_.Get("/api/v1/conversations/long-talk?limit=2").body);
  ASSERT_EQ(two.at("runs").as_array().size(), 2u);
  EXPECT_EQ(two.at("runs").at(1).at("run_id"), stored[1].c_str());
  auto after = Json(server_.Get("/api/v1/conversations/long-talk?limit=2&after=" +
                                std::string(two.at("next").as_string()))
                        .body);
  EXPECT_EQ(after.at("runs").at(0).at("run_id"), stored[2].c_str());
}

TEST_F(ConsoleApiTest, BadConversationPageParametersAreRefusedNamingThem) {
  StoreLongConversation(server_.runs(), "talk", 1, 10);
  for (const char* query : {"limit=0", "limit=201", "limit=x", "after=zz", "after=", "before=00",
                            "limit=1&limit=2"}) {
    auto reply = server_.Get(std::string("/api/v1/conversations/talk?") + query);
    ExpectError(reply, 400, "INVALID_REQUEST");
    std::string message(Json(reply.body).at("error").at("message").as_string());
    std::string name = std::string(query).substr(0, std::string(query).find('='));
    EXPECT_NE(message.find(name), std::string::npos) << query << ": " << message;
  }
}

TEST(ConsoleHeapTest, TheHeapGoesBackOnceLargeAnswersStop) {
  std::atomic<int> returned{0};
  FixtureOptions options;
  options.heap_quiet = std::chrono::milliseconds(200);
  options.return_free_heap = [&returned] { ++returned; };
  ServerFixture server(options);
  StoreLongConversation(server.runs(), "long-talk", 10, 60000);
  // Small answers (a balancer's health checks) never count.
  for (int i = 0; i < 5; ++i) ASSERT_EQ(server.Get("/healthz").status, 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_EQ(returned.load(), 0);
  // Ten large reads at once, then quiet: the heap goes back.
  std::vector<std::thread> readers;
  for (int i = 0; i < 10; ++i) {
    readers.emplace_back(
        [&server] { EXPECT_EQ(server.Get("/api/v1/conversations/long-talk").status, 200); });
  }
  for (auto& reader : readers) reader.join();
  EXPECT_TRUE(diagd::testing::Eventually([&] { return returned.load() >= 1; }));
}

TEST_F(ConsoleApiTest, EveryExecutedToolCallHasItsObservationAndOthersNone) {
  auto result = Ask(kDiagnosis, "diagnosis");
  std::string run_id(result.at("run_id").as_string());
  auto record = Json(server_.Get("/api/v1/runs/" + run_id).body);
  std::set<std::string> executed;
  for (const auto& step : result.at("process").as_array()) {
    executed.emplace(step.at("tool_call_id").as_string());
  }
  ASSERT_FALSE(executed.empty());
  for (const auto& id : executed) {
    auto reply = server_.Get("/api/v1/runs/" + run_id + "/observations/" + id);
    ASSERT_EQ(reply.status, 200) << id;
    EXPECT_EQ(reply.headers.at("content-type"), "application/json; charset=utf-8");
    auto observation = Json(reply.body);
    EXPECT_EQ(observation.at("tool_call_id"), id.c_str());
    EXPECT_TRUE(observation.contains("evidence_status"));
    EXPECT_FALSE(observation.contains("returned_count")) << "never in the model's view";
  }
  ExpectError(server_.Get("/api/v1/runs/" + run_id + "/observations/call_999"), 404, "NOT_FOUND");
  ExpectError(server_.Get("/api/v1/runs/no-such-run/observations/call_1"), 404, "NOT_FOUND");
  ExpectError(server_.Get("/api/v1/runs/" + run_id + "/observations/"), 404, "NOT_FOUND");

  // Once purged (as the upkeep does after the retention), they are gone.
  auto purged = server_.runs().PurgeObservations(std::chrono::system_clock::now() +
                                                 std::chrono::hours(1));
  ASSERT_TRUE(purged);
  EXPECT_EQ(*purged, static_cast<std::int64_t>(executed.size()));
  ExpectError(server_.Get("/api/v1/runs/" + run_id + "/observations/" + *executed.begin()), 404,
              "NOT_FOUND");
  EXPECT_EQ(server_.Get("/api/v1/runs/" + run_id).status, 200) << "the run itself stays";
}

TEST(ObservationRetentionTest, TheStoreUpkeepPurgesObservationsPastTheRetention) {
  // Zero retention: every round of the upkeep (each second, with a 3 s
  // lease) purges what finished before it.
  ServerFixture server({.lease_seconds = 3, .observation_retention = std::chrono::hours(0)});
  auto reply = server.PostChat(ChatBody(kDiagnosis, "diagnosis"));
  ASSERT_EQ(reply.status, 200);
  auto result = Json(reply.body);
  std::string run_id(result.at("run_id").as_string());
  std::string call(result.at("process").at(0).at("tool_call_id").as_string());
  std::string path = "/api/v1/runs/" + run_id + "/observations/" + call;
  // Polled for up to two minutes: on a loaded machine an upkeep round, or
  // one request, may be slow. The purge is visible a moment before the
  // upkeep logs it (it failed once under ASan): the wait ends on both.
  int status = 0;
  bool logged = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (std::chrono::steady_clock::now() < give_up) {
    if (status != 404) status = server.Get(path).status;
    logged = server.Log().find("\"observations_purged\"") != std::string::npos;
    if (status == 404 && logged) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, 404) << "never purged (the last answer's status is shown)";
  EXPECT_TRUE(logged) << server.Log();
}

TEST_F(ConsoleApiTest, CancellingARunThatEndedOrNeverWasIsRefused) {
  std::string run_id(Ask("你好", "chat").at("run_id").as_string());
  ExpectError(server_.Post("/api/v1/runs/" + run_id + "/cancel"), 409, "NOT_RUNNING");
  ExpectError(server_.Post("/api/v1/runs/no-such-run/cancel"), 404, "NOT_FOUND");
  ExpectError(server_.Get("/api/v1/runs/" + run_id + "/cancel"), 405, "METHOD_NOT_ALLOWED");
  auto record = Json(server_.Get("/api/v1/runs/" + run_id).body);
  EXPECT_TRUE(record.at("stop_reason").is_null());
}

}  // namespace
}  // namespace diagd::server::testing
