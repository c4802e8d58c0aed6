#include "core/secrets.h"

#include <gtest/gtest.h>

namespace diagd {
namespace {

TEST(SecretsTest, EveryOccurrenceOfTheSecretIsMasked) {
  EXPECT_EQ(ScrubSecret("key abc123 and again abc123.", "abc123"), "key *** and again ***.");
  EXPECT_EQ(ScrubSecret("nothing to hide", ""), "nothing to hide");
}

TEST(SecretsTest, BearerTokensAndProviderKeysAreMaskedWithoutTheSecretGiven) {
  EXPECT_EQ(ScrubCredentials("Authorization: Bearer eyJhbGciOi.x-y_z", {}),
            "Authorization: Bearer ***");
  EXPECT_EQ(ScrubCredentials("Incorrect API key provided: sk-proj-AbCdEf123456", {}),
            "Incorrect API key provided: sk-***");
  // Not a key: too short after sk-, or inside a word.
  EXPECT_EQ(ScrubCredentials("sk-abc and disk-full-alert-00000000", {}),
            "sk-abc and disk-full-alert-00000000");
}

TEST(SecretsTest, TheConfiguredSecretIsMaskedEvenWhenItLooksLikeNothing) {
  EXPECT_EQ(ScrubCredentials("the server echoed hunter2 back", "hunter2"),
            "the server echoed *** back");
}

}  // namespace
}  // namespace diagd
