// FindAllowingPlaceholders: a runbook's placeholder stands for a log's value.
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

}  // namespace
}  // namespace diagd::model::offline
