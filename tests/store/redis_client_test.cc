#include "store/redis_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "testing/eventually.h"
#include "testing/free_port.h"
#include "testing/redis_server.h"

namespace diagd::store {
namespace {

using diagd::testing::Eventually;

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

RedisEndpoint Endpoint(const std::string& url) {
  auto endpoint = ParseRedisUrl(url);
  EXPECT_TRUE(endpoint) << endpoint.error().ToString();
  return endpoint ? *endpoint : RedisEndpoint{};
}

TEST(RedisUrl, ReadsHostPortDatabaseAndCredentials) {
  RedisEndpoint plain = Endpoint("redis://cache");
  EXPECT_EQ(plain.host, "cache");
  EXPECT_EQ(plain.port, 6379);
  EXPECT_EQ(plain.db, 0);
  EXPECT_TRUE(plain.password.empty());

  RedisEndpoint full = Endpoint("redis://alice:s3cret@cache.internal:6380/2");
  EXPECT_EQ(full.host, "cache.internal");
  EXPECT_EQ(full.port, 6380);
  EXPECT_EQ(full.db, 2);
  EXPECT_EQ(full.user, "alice");
  EXPECT_EQ(full.password, "s3cret");

  RedisEndpoint password_only = Endpoint("redis://:pw@10.0.0.1/15");
  EXPECT_EQ(password_only.user, "");
  EXPECT_EQ(password_only.password, "pw");
  EXPECT_EQ(password_only.host, "10.0.0.1");
  EXPECT_EQ(password_only.db, 15);

  RedisEndpoint v6 = Endpoint("redis://[::1]:7000/3");
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 7000);
  EXPECT_EQ(v6.db, 3);
  EXPECT_EQ(v6.Describe(), "[::1]:7000/3");

  EXPECT_EQ(Endpoint("redis://u:p@ss/w@h:1").password, "p@ss/w") << "the last '@' ends the password";
  EXPECT_EQ(Endpoint("redis://u:a%40b%2Fc@h").password, "a@b/c") << "percent-encoding is decoded";
}

TEST(RedisUrl, BadUrlsSayWhatIsWrongAndNeverEchoThePassword) {
  struct Case {
    const char* url;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"http://cache", "scheme"},
           {"rediss://:hunter2@cache", "TLS"},
           {"redis://", "host is missing"},
           {"redis://:hunter2@", "host is missing"},
           {"redis://:hunter2@:6379", "host is missing"},
           {"redis://cache:0", "port"},
           {"redis://cache:65536", "port"},
           {"redis://cache:", "port"},
           {"redis://cache:63x9", "port"},
           {"redis://cache/", "database"},
           {"redis://cache/x", "database"},
           {"redis://cache/10000", "database"},
           {"redis://cache/1/2", "database"},
           {"redis://hunter2@cache", "needs a password"},
           {"redis://u:@cache", "password after ':' is empty"},
           {"redis://u:hunter2%4@cache", "%XX"},
           {"redis://[::1:6379", "']'"},
           {"redis://cache?db=1", "query"},
           {"redis://ca che", "spaces"},
       }) {
    auto parsed = ParseRedisUrl(c.url);
    ASSERT_FALSE(parsed) << c.url;
    EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument) << c.url;
    EXPECT_THAT(parsed.error().message, AllOf(HasSubstr(c.says), Not(HasSubstr("hunter2"))))
        << c.url;
  }
}

TEST(RedisConnection, RunsCommandsWithBinarySafeArgumentsAndTypedReplies) {
  DIAGD_SHARED_REDIS(server);
  RedisConnection connection(Endpoint(server->Url()), {});
  std::string value("a\0b\r\n", 5);
  ASSERT_TRUE(connection.Command({"SET", "client-test:binary", value}));
  auto got = connection.Command({"GET", "client-test:binary"});
  ASSERT_TRUE(got) << got.error().ToString();
  EXPECT_EQ(got->type, RedisReply::Type::kString);
  EXPECT_EQ(got->text, value);

  auto missing = connection.Command({"GET", "client-test:missing"});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->type, RedisReply::Type::kNil);

  auto deleted = connection.Command({"DEL", "client-test:binary", "client-test:missing"});
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->type, RedisReply::Type::kInteger);
  EXPECT_EQ(deleted->integer, 1);

  auto refused = connection.Command({"NOSUCHCOMMAND"});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
  EXPECT_THAT(refused.error().message, HasSubstr("NOSUCHCOMMAND"));
  EXPECT_TRUE(connection.connected()) << "an error reply leaves the connection usable";
  EXPECT_TRUE(connection.Command({"PING"}));
}

TEST(RedisConnection, PipelinesCommandsAndReturnsEachReply) {
  DIAGD_SHARED_REDIS(server);
  RedisConnection connection(Endpoint(server->Url()), {});
  auto replies = connection.Pipeline({{"DEL", "client-test:list"},
                                      {"RPUSH", "client-test:list", "x", "y"},
                                      {"LRANGE", "client-test:list", "0", "-1"},
                                      {"HGET", "client-test:list", "f"}});
  ASSERT_TRUE(replies) << replies.error().ToString();
  ASSERT_EQ(replies->size(), 4u);
  EXPECT_EQ((*replies)[1].integer, 2);
  ASSERT_EQ((*replies)[2].elements.size(), 2u);
  EXPECT_EQ((*replies)[2].elements[1].text, "y");
  EXPECT_TRUE((*replies)[3].is_error()) << "WRONGTYPE comes back as a reply, in its place";
}

TEST(RedisConnection, SelectsTheDatabaseOfTheUrl) {
  DIAGD_SHARED_REDIS(server);
  RedisConnection db3(Endpoint(server->Url(3)), {});
  RedisConnection db0(Endpoint(server->Url(0)), {});
  ASSERT_TRUE(db3.Command({"SET", "client-test:db", "three"}));
  auto in_db0 = db0.Command({"GET", "client-test:db"});
  ASSERT_TRUE(in_db0);
  EXPECT_EQ(in_db0->type, RedisReply::Type::kNil);
  auto in_db3 = db3.Command({"GET", "client-test:db"});
  ASSERT_TRUE(in_db3);
  EXPECT_EQ(in_db3->text, "three");
}

TEST(RedisConnection, AuthenticatesAndAWrongPasswordIsAnErrorWithoutIt) {
  auto started = testing::RedisServer::Start({.password = "hunter2-right"});
  if (!started && started.error().code == ErrorCode::kFailedPrecondition) {
    GTEST_SKIP() << started.error().message;
  }
  ASSERT_TRUE(started) << started.error().ToString();
  auto& server = **started;
  RedisConnection good(Endpoint(server.Url()), {});
  EXPECT_TRUE(good.Command({"PING"}));
  ASSERT_TRUE(good.Command({"ACL", "SETUSER", "alice", "on", ">alices-pw", "~*", "&*", "+@all"}));
  RedisConnection alice(
      Endpoint("redis://alice:alices-pw@127.0.0.1:" + std::to_string(server.port())), {});
  EXPECT_TRUE(alice.Command({"PING"}));

  for (const std::string& url :
       {"redis://:hunter2-wrong@127.0.0.1:" + std::to_string(server.port()),
        "redis://alice:hunter2-wrong@127.0.0.1:" + std::to_string(server.port())}) {
    RedisConnection bad(Endpoint(url), {});
    auto refused = bad.Command({"PING"});
    ASSERT_FALSE(refused) << url;
    EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
    EXPECT_THAT(refused.error().message, AllOf(HasSubstr("AUTH"), Not(HasSubstr("hunter2")),
                                               Not(HasSubstr("alice"))));
    EXPECT_FALSE(bad.connected());
  }
  RedisConnection none(Endpoint("redis://127.0.0.1:" + std::to_string(server.port())), {});
  auto unauthenticated = none.Command({"GET", "x"});
  ASSERT_FALSE(unauthenticated);
  EXPECT_THAT(unauthenticated.error().message, HasSubstr("NOAUTH"));
}

TEST(RedisPool, AnUnreachableRedisIsAnErrorAndThenFailsFastWithoutDialling) {
  int closed_port = testing::FreeLoopbackPort();
  ASSERT_NE(closed_port, 0);
  RedisPool pool(Endpoint("redis://:hunter2@127.0.0.1:" + std::to_string(closed_port)),
                 {.backoff = std::chrono::milliseconds(60'000)});
  auto first = pool.Command({"PING"});
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().code, ErrorCode::kUnavailable);
  EXPECT_THAT(first.error().message, AllOf(HasSubstr("connect"), Not(HasSubstr("hunter2"))));
  auto second = pool.Command({"PING"});
  ASSERT_FALSE(second);
  EXPECT_THAT(second.error().message, HasSubstr("not tried again yet"))
      << "inside the back-off a caller is refused at once";
}

TEST(RedisPool, TheBackOffGrowsWhileDialsKeepFailingAndEndsWhenOneWorks) {
  auto started = testing::RedisServer::Start();
  if (!started && started.error().code == ErrorCode::kFailedPrecondition) {
    GTEST_SKIP() << started.error().message;
  }
  ASSERT_TRUE(started) << started.error().ToString();
  auto& server = **started;
  RedisPool pool(Endpoint(server.Url()), {.backoff = 100ms, .max_backoff = 400ms});
  server.Stop();
  // Count the dials that fail (not the refusals inside a back-off) over a
  // stretch of time: with doubling they come ever further apart.
  auto refused = [](const Result<RedisReply>& r) {
    return !r && r.error().message.find("not tried again yet") != std::string::npos;
  };
  std::vector<std::chrono::steady_clock::time_point> dials;
  auto until = std::chrono::steady_clock::now() + 1500ms;
  while (std::chrono::steady_clock::now() < until) {
    auto reply = pool.Command({"PING"});
    ASSERT_FALSE(reply);
    if (!refused(reply)) dials.push_back(std::chrono::steady_clock::now());
    std::this_thread::sleep_for(5ms);
  }
  // 100 + 200 + 400 + 400 ... ms apart: 5 dials or so in 1.5 s, where a
  // fixed 100 ms would have made 15.
  EXPECT_GE(dials.size(), 2u);
  EXPECT_LE(dials.size(), 8u);
  ASSERT_TRUE(server.Restart());
  EXPECT_TRUE(Eventually([&] { return pool.Command({"PING"}).has_value(); }));
  server.Stop();
  auto first = pool.Command({"PING"});
  ASSERT_FALSE(first);
  EXPECT_FALSE(refused(first)) << "the success ended the back-off: this one dialled";
  ASSERT_TRUE(server.Restart());
}

TEST(RedisPool, ARedisStoppedMidUseGivesErrorsThenWorksAgainAfterRestart) {
  auto started = testing::RedisServer::Start();
  if (!started && started.error().code == ErrorCode::kFailedPrecondition) {
    GTEST_SKIP() << started.error().message;
  }
  ASSERT_TRUE(started) << started.error().ToString();
  auto& server = **started;
  RedisPool pool(Endpoint(server.Url()), {.backoff = 200ms});
  ASSERT_TRUE(pool.Command({"SET", "k", "v"}));

  server.Stop();
  auto down = pool.Command({"GET", "k"});
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().code, ErrorCode::kUnavailable);
  EXPECT_FALSE(pool.Command({"GET", "k"}));

  ASSERT_TRUE(server.Restart());
  EXPECT_TRUE(Eventually([&] { return pool.Command({"PING"}).has_value(); }))
      << "a broken connection is dropped and dialled again";
  auto after = pool.Command({"GET", "k"});
  ASSERT_TRUE(after);
  EXPECT_EQ(after->type, RedisReply::Type::kNil) << "the restarted Redis is empty";
}

TEST(RedisPool, AnIdleConnectionToARestartedRedisIsRedialledOnItsNextUse) {
  auto started = testing::RedisServer::Start();
  if (!started && started.error().code == ErrorCode::kFailedPrecondition) {
    GTEST_SKIP() << started.error().message;
  }
  ASSERT_TRUE(started) << started.error().ToString();
  auto& server = **started;
  RedisPool pool(Endpoint(server.Url()), {});
  ASSERT_TRUE(pool.Command({"PING"}));
  ASSERT_TRUE(server.Restart());
  auto reply = pool.Command({"PING"});
  EXPECT_TRUE(reply) << "the stale connection is retried once on a fresh one: "
                     << (reply ? "" : reply.error().ToString());
}

TEST(RedisConnection, ARedisThatStopsAnsweringIsATimeoutNotAHang) {
  auto started = testing::RedisServer::Start();
  if (!started && started.error().code == ErrorCode::kFailedPrecondition) {
    GTEST_SKIP() << started.error().message;
  }
  ASSERT_TRUE(started) << started.error().ToString();
  auto& server = **started;
  RedisConnection connection(Endpoint(server.Url()), {.command = 300ms});
  ASSERT_TRUE(connection.Command({"PING"}));
  ASSERT_EQ(kill(server.pid(), SIGSTOP), 0);  // the socket stays open; nothing answers
  auto silent = connection.Command({"PING"});
  kill(server.pid(), SIGCONT);
  ASSERT_FALSE(silent);
  EXPECT_EQ(silent.error().code, ErrorCode::kUnavailable);
  EXPECT_THAT(silent.error().message, HasSubstr("no answer within 300 ms"));
  EXPECT_FALSE(connection.connected()) << "a late reply must not be read as the next one's";
  EXPECT_TRUE(connection.Command({"PING"})) << "dialled again on the next use";
}

TEST(RedisConnection, WritingToARedisThatWentAwayIsAnErrorNotASigpipe) {
  auto started = testing::RedisServer::Start();
  if (!started && started.error().code == ErrorCode::kFailedPrecondition) {
    GTEST_SKIP() << started.error().message;
  }
  ASSERT_TRUE(started) << started.error().ToString();
  auto& server = **started;
  RedisConnection connection(Endpoint(server.Url()), {});
  ASSERT_TRUE(connection.Command({"PING"}));
  server.Stop();
  // Megabytes to a closed peer: the first write draws a reset, the next
  // ones EPIPE, which would raise SIGPIPE and end this process unblocked.
  std::string big(4 << 20, 'x');
  EXPECT_FALSE(connection.Command({"SET", "k", big}));
  ASSERT_TRUE(server.Restart());
  ASSERT_TRUE(connection.Command({"PING"}));
  server.Stop();
  EXPECT_FALSE(connection.Pipeline({{"SET", "k", big}, {"SET", "k", big}}));
  ASSERT_TRUE(server.Restart());
  ASSERT_TRUE(connection.Send({"PING"}));
  server.Stop();
  EXPECT_FALSE(connection.Send({"SET", "k", big}));
}

TEST(RedisPool, ConcurrentCallersShareAFewConnections) {
  DIAGD_SHARED_REDIS(server);
  RedisPool pool(Endpoint(server->Url()), {.max_connections = 2});
  ASSERT_TRUE(pool.Command({"DEL", "client-test:counter"}));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        if (!pool.Command({"INCR", "client-test:counter"})) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  auto count = pool.Command({"GET", "client-test:counter"});
  ASSERT_TRUE(count);
  EXPECT_EQ(count->text, "400");
}

}  // namespace
}  // namespace diagd::store
