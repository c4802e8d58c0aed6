#include "store/run_codec.h"

#include <gtest/gtest.h>

namespace diagd::store {
namespace {

using harness::TraceEventType;
using harness::TraceField;

TEST(RunCodec, EveryTraceEventTypeNameParsesBack) {
  for (int i = 0; i <= static_cast<int>(TraceEventType::kRunFinished); ++i) {
    auto type = static_cast<TraceEventType>(i);
    EXPECT_EQ(harness::ParseTraceEventType(harness::TraceEventTypeString(type)), type) << i;
  }
  EXPECT_EQ(harness::ParseTraceEventType("model_call"), std::nullopt);
  EXPECT_EQ(harness::ParseTraceEventType(""), std::nullopt);
}

TEST(RunCodec, TraceFieldsKeepKeyOrderAndValueTypes) {
  std::vector<TraceField> fields = {{"z", std::int64_t{0}},
                                    {"a", std::string("0")},
                                    {"m", false},
                                    {"b", nullptr},
                                    {"big", std::int64_t{INT64_MIN}}};
  auto encoded = EncodeTraceFields(fields);
  ASSERT_TRUE(encoded);
  EXPECT_EQ(*encoded, R"({"z":0,"a":"0","m":false,"b":null,"big":-9223372036854775808})");
  auto decoded = DecodeTraceFields(*encoded);
  ASSERT_TRUE(decoded);
  ASSERT_EQ(decoded->size(), fields.size());
  for (std::size_t i = 0; i < fields.size(); ++i) {
    EXPECT_EQ((*decoded)[i].key, fields[i].key);
    EXPECT_EQ((*decoded)[i].value, fields[i].value) << fields[i].key;
  }
}

// A stored event could not say which of two same-named fields it meant.
TEST(RunCodec, TraceFieldsWithARepeatedKeyAreRefused) {
  for (const std::vector<TraceField>& fields :
       {std::vector<TraceField>{{"a", std::int64_t{1}}, {"a", std::int64_t{2}}},
        std::vector<TraceField>{{"a", true}, {"b", nullptr}, {"c", false}, {"b", true}}}) {
    auto encoded = EncodeTraceFields(fields);
    ASSERT_FALSE(encoded);
    EXPECT_EQ(encoded.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(encoded.error().message.find(fields.back().key), std::string::npos);
  }
  EXPECT_TRUE(EncodeTraceFields({{"a", true}, {"ab", true}, {"b", true}}));
}

TEST(RunCodec, DamagedColumnsAreInternalErrors) {
  for (const char* text : {"", "[1]", R"({"a":1.5})", R"({"a":[1]})",
                           R"({"a":18446744073709551615})", "{\"a\":\"\xff\"}"}) {
    auto decoded = DecodeTraceFields(text);
    ASSERT_FALSE(decoded) << text;
    EXPECT_EQ(decoded.error().code, ErrorCode::kInternal);
  }
  EXPECT_FALSE(DecodeToolCallIds(R"(["a",1])"));
  EXPECT_FALSE(DecodeToolCallIds(R"({})"));
}

TEST(RunCodec, ToolCallIdsRoundTrip) {
  std::vector<std::string> ids = {"call-1", "调用\"2\"", ""};
  auto decoded = DecodeToolCallIds(EncodeToolCallIds(ids));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, ids);
  EXPECT_EQ(EncodeToolCallIds({}), "[]");
}

}  // namespace
}  // namespace diagd::store
