// FindAllowingPlaceholders: a runbook's placeholder stands for a log's value.
// ContainsCamelName and Identifiers: what a log line names.
#include "model/offline/text_match.h"

#include <gtest/gtest.h>

namespace diagd::model::offline {
namespace {

constexpr auto npos = std::string_view::npos;

TEST(FindAllowingPlaceholders, APlaceholderStandsForOneValue) {
  std::string_view runbook = "现象：TLS handshake with <域名>:443 failed，银行拒绝握手。";
  std::string_view log = "TLS handshake with api.unionbank.example.com:443 failed";
  EXPECT_EQ(FindAllowingPlaceholders(runbook, log), runbook.find("TLS"));
  EXPECT_EQ(FindAllowingPlaceholders("disk full on <host>: No space left", "disk full on web-3: No space left"),
            0u);
  EXPECT_EQ(FindAllowingPlaceholders("restart ${service} now", "restart order-api now"), 0u);
  EXPECT_EQ(FindAllowingPlaceholders("{service} threads busy", "order-api threads busy"), 0u);
}

TEST(FindAllowingPlaceholders, EverythingElseMustMatchExactly) {
  EXPECT_EQ(FindAllowingPlaceholders("TLS handshake with <域名>:443 failed",
                                     "TLS handshake with api.example.com:8443 failed"),
            npos);
  EXPECT_EQ(FindAllowingPlaceholders("handshake with <域名> failed", "handshake with  failed"), npos)
      << "a placeholder stands for a value, not for nothing";
  EXPECT_EQ(FindAllowingPlaceholders("a <b c> d", "a x d"), npos) << "no spaces inside one";
  EXPECT_EQ(FindAllowingPlaceholders("plain text, no placeholder", "no placeholder"), 12u);
  EXPECT_EQ(FindAllowingPlaceholders("x < y and y > z", "x 1 and"), npos);
}

TEST(ContainsCamelName, AClassNamedAfterATopicNamesIt) {
  std::string_view line = "c.s.pay.channel.BankChannel - 银行卡支付失败 errorCode=CHANNEL_TLS_FAILED";
  EXPECT_TRUE(ContainsCamelName(line, "bank-channel"));
  EXPECT_TRUE(ContainsCamelName("at c.s.BankChannelClient.send", "bank-channel"));
  EXPECT_FALSE(ContainsCamelName("BankChannels reloaded", "bank-channel")) << "another word";
  EXPECT_FALSE(ContainsCamelName("c.s.MyBankChannel", "bank-channel")) << "another class";
  EXPECT_FALSE(ContainsCamelName("GatewayFilter rejected", "gateway"))
      << "a one-word topic's name is any class's prefix";
}

TEST(Identifiers, HostsAddressesAndPathsNotClassNames) {
  auto names = Identifiers(
      "TLS handshake with api.unionbank.example.com:443 failed: javax.net.ssl.SSLHandshakeException");
  EXPECT_EQ(names, std::vector<std::string>{"api.unionbank.example.com"});
  EXPECT_EQ(Identifiers("read udp 10.96.0.10:...->10.0.0.53:53: i/o timeout"),
            (std::vector<std::string>{"10.96.0.10", "10.0.0.53"}));
  EXPECT_EQ(Identifiers("Read timed out calling https://api.fastlogi.example.com/v2/waybills"),
            std::vector<std::string>{"api.fastlogi.example.com"});
  EXPECT_EQ(Identifiers("failed to persist order to spool /data/order-api/spool: No space"),
            std::vector<std::string>{"/data/order-api/spool"});
  EXPECT_EQ(Identifiers("host=app-node-07 mount=/data used=100.0%: filesystem full"),
            (std::vector<std::string>{"/data", "app-node-07"}))
      << "a host named by its field, after the names found by their shape";
  EXPECT_TRUE(Identifiers("version 1.2.3 of c.s.order.OrderService, ... and ..").empty());
  EXPECT_TRUE(Identifiers("ghost=abcdef").empty()) << "a field is named host, not ghost";
}

}  // namespace
}  // namespace diagd::model::offline
