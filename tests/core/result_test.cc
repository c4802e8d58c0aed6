#include "core/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace diagd {
namespace {

Result<int> Half(int n) {
  if (n % 2 != 0) return Error::InvalidArgument("odd");
  return n / 2;
}

TEST(Result, HoldsValueOrError) {
  auto ok = Half(4);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(*ok, 2);
  auto bad = Half(3);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.error().ToString(), "INVALID_ARGUMENT: odd");
  EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(Result, CarriesCustomErrorTypeThroughUnexpected) {
  struct Why {
    std::string field;
  };
  Result<std::string, Why> r = Unexpected(Why{"input.sql"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().field, "input.sql");
}

TEST(Result, MovesOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  std::unique_ptr<int> owned = std::move(r).value();
  EXPECT_EQ(*owned, 7);
}

TEST(Status, DefaultsToOk) {
  Status ok;
  EXPECT_TRUE(ok.has_value());
  Status bad = Error::Unavailable("down");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace diagd
