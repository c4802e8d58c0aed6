// [tools.logs.topics.NAME] aliases (docs/specs/release.md): the names a question
// may call a topic by. Read per topic, sorted, and every bad value an error
// naming its key.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "config/config.h"

namespace diagd::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string ErrorOf(std::string_view text) {
  Result<Config> config = ParseConfig(text, "/etc/diagd", {});
  EXPECT_FALSE(config.has_value()) << "parsed:\n" << text;
  return config.has_value() ? "" : config.error().message;
}

TEST(TopicAliases, AreReadPerTopicSortedByName) {
  auto config = ParseConfig(R"([tools.logs.topics.payment-service]
aliases = ["支付服务"]
[tools.logs.topics.order-service]
aliases = ["订单服务", "订单"]
)",
                            "/etc/diagd", {});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const auto& topics = config->tools.logs.topics;
  ASSERT_EQ(topics.size(), 2u);
  EXPECT_EQ(topics[0].name, "order-service");
  EXPECT_THAT(topics[0].aliases, ElementsAre("订单服务", "订单"));
  EXPECT_EQ(topics[1].name, "payment-service");
}

TEST(TopicAliases, NoneByDefault) {
  auto config = ParseConfig("", "/etc/diagd", {});
  ASSERT_TRUE(config.has_value());
  EXPECT_THAT(config->tools.logs.topics, IsEmpty());
}

TEST(TopicAliases, ABlankOrNonStringAliasNamesItsKey) {
  EXPECT_THAT(ErrorOf("[tools.logs.topics.order-service]\naliases = [\"订单\", \"  \"]\n"),
              HasSubstr("diagd.toml:2: tools.logs.topics.order-service.aliases[1]: expected "
                        "text with something other than white space"));
  EXPECT_THAT(ErrorOf("[tools.logs.topics.order-service]\naliases = [\"\"]\n"),
              HasSubstr("tools.logs.topics.order-service.aliases[0]"));
  EXPECT_THAT(ErrorOf("[tools.logs.topics.order-service]\naliases = [3]\n"),
              HasSubstr("tools.logs.topics.order-service.aliases[0]: expected a string"));
  EXPECT_THAT(ErrorOf("[tools.logs.topics.order-service]\naliases = \"订单\"\n"),
              HasSubstr("tools.logs.topics.order-service.aliases: expected an array of strings"));
}

TEST(TopicAliases, AnAliasOfTwoTopicsIsAnError) {
  EXPECT_THAT(ErrorOf("[tools.logs.topics.a-service]\naliases = [\"订单\"]\n"
                      "[tools.logs.topics.b-service]\naliases = [\"订单\"]\n"),
              HasSubstr("tools.logs.topics.b-service.aliases: \"订单\" is already an alias of "
                        "topic \"a-service\""));
}

TEST(TopicAliases, ABadTopicNameOrKeyIsAnError) {
  EXPECT_THAT(ErrorOf("[tools.logs.topics.\"订单 服务\"]\naliases = [\"订单\"]\n"),
              HasSubstr("expected a topic name"));
  EXPECT_THAT(ErrorOf("[tools.logs.topics.order-service]\nalias = [\"订单\"]\n"),
              HasSubstr("tools.logs.topics.order-service.alias: unknown key"));
}

}  // namespace
}  // namespace diagd::config
