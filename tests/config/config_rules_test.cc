// The value rules on their own: the URL and address grammars, redaction and
// quoting of values in messages.
#include "config/config_rules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace diagd::config::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ConfigRules, HttpUrlAcceptsHostsPortsUserInfoAndIpv6) {
  for (const char* url :
       {"http://127.0.0.1:8000/v1", "https://api.example.com", "HTTPS://api.example.com/v1?x=1",
        "http://[::1]:8000/v1", "http://user:pass@llm.internal:443/v1", "http://llm#frag"}) {
    EXPECT_FALSE(CheckHttpUrl(url).has_value()) << url;
  }
}

TEST(ConfigRules, HttpUrlRejectsMissingHostOrScheme) {
  for (const char* url : {"", "http://", "https://:8080/v1", "http://[::1/v1", "llm:8000",
                          "http://host:99999", "http://host\n"}) {
    EXPECT_TRUE(CheckHttpUrl(url).has_value()) << url;
  }
}

TEST(ConfigRules, RunsUrlAcceptsSqliteAndPostgres) {
  for (const char* url : {"sqlite:data/diagd.db", "sqlite:/var/lib/diagd.db", "sqlite::memory:",
                          "postgresql://u:p@h:5432/db", "postgres://h/db", "postgresql://"}) {
    EXPECT_FALSE(CheckRunsUrl(url).has_value()) << url;
  }
}

TEST(ConfigRules, CanonicalUrlAcceptsMemoryAndRedis) {
  for (const char* url : {"memory:", "redis://cache", "redis://cache:6379", "redis://cache:6379/0",
                          "redis://[::1]:6379/15", "redis://10.0.0.1/3", "redis://:pw@cache",
                          "redis://user:pw@cache:6379/2", "redis://u:p@ss/w@cache/1",
                          "redis://u:a%40b@cache"}) {
    EXPECT_FALSE(CheckCanonicalUrl(url).has_value()) << url;
  }
}

TEST(ConfigRules, CanonicalUrlRefusesWhatTheRedisClientRefuses) {
  for (const char* url : {"redis://", "redis://user@cache", "redis://user:@cache",
                          "redis://:pw@", "redis://u:a%4@cache", "redis://cache?db=1",
                          "redis://cache/10000", "rediss://cache"}) {
    EXPECT_TRUE(CheckCanonicalUrl(url).has_value()) << url;
  }
}

TEST(ConfigRules, DatasourceUrlAcceptsSqliteAndMysql) {
  for (const char* url : {"sqlite:data/orders.db", "mysql://reader@db/orders",
                          "mysql://reader:pw@db:3306/orders", "mysql://r:p@ss@[::1]:3306/o"}) {
    EXPECT_FALSE(CheckDatasourceUrl(url).has_value()) << url;
  }
}

TEST(ConfigRules, DatasourceNamesAreAsciiWordsAndDashes) {
  EXPECT_FALSE(CheckDatasourceName("orders_v2-eu").has_value());
  EXPECT_TRUE(CheckDatasourceName("").has_value());
  EXPECT_TRUE(CheckDatasourceName("orders.eu").has_value());
  EXPECT_TRUE(CheckDatasourceName("订单").has_value());
}

TEST(ConfigRules, ListenNeedsHostAndPort) {
  EXPECT_FALSE(CheckListen("127.0.0.1:8080").has_value());
  EXPECT_FALSE(CheckListen("[::]:1").has_value());
  EXPECT_TRUE(CheckListen("127.0.0.1").has_value());
  EXPECT_TRUE(CheckListen("[zz]:80").has_value());
  EXPECT_TRUE(CheckListen("127.0.0.1:08080x").has_value());
}

TEST(ConfigRules, RedactUrlHidesOnlyThePassword) {
  EXPECT_EQ(RedactUrl("mysql://reader:pw@db:3306/o"), "mysql://reader:***@db:3306/o");
  EXPECT_EQ(RedactUrl("mysql://r:p@ss/w@db/o"), "mysql://r:***@db/o");
  EXPECT_EQ(RedactUrl("mysql://reader@db/o"), "mysql://reader@db/o");
  EXPECT_EQ(RedactUrl("http://llm:8000/v1"), "http://llm:8000/v1");
  EXPECT_EQ(RedactUrl("sqlite:data.db"), "sqlite:data.db");
}

TEST(ConfigRules, SecretRulesNeverEchoTheValue) {
  auto secret = CheckSecret("abc\x01hunter2");
  ASSERT_TRUE(secret.has_value());
  EXPECT_THAT(*secret, Not(HasSubstr("hunter2")));
  auto token = CheckToken("hunter2 x");
  ASSERT_TRUE(token.has_value());
  EXPECT_THAT(*token, Not(HasSubstr("hunter2")));
  EXPECT_FALSE(CheckSecret("").has_value());
  EXPECT_TRUE(CheckToken("").has_value());
}

TEST(ConfigRules, QuoteCutsLongValuesAndHidesControlCharacters) {
  EXPECT_EQ(Quote("a\nb"), "\"a?b\"");
  std::string quoted = Quote(std::string(200, 'x'));
  EXPECT_EQ(quoted, "\"" + std::string(80, 'x') + "...\"");
}

}  // namespace
}  // namespace diagd::config::internal
