// A query's random reads (BlockReader): whatever the order, size and place
// of the records asked for, each read gives the file's own bytes, through
// blocks that start small and grow; a file cut short under it is an error.
#include "tools/logs/log_file.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace diagd::tools::logs {
namespace {

namespace fs = std::filesystem;

class BlockReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("diagd-block-reader-" + std::to_string(::getpid()));
    std::mt19937 random(7);
    for (std::size_t i = 0; contents_.size() < 600'000; ++i) {
      contents_ += "line " + std::to_string(i) + " " +
                   std::string(random() % 400, static_cast<char>('a' + i % 26)) + "\n";
    }
    Write(contents_);
  }
  void TearDown() override { fs::remove(path_); }
  void Write(const std::string& bytes) { std::ofstream(path_, std::ios::binary) << bytes; }

  fs::path path_;
  std::string contents_;
};

TEST_F(BlockReaderTest, RecordsReadNewestFirstOrAnywhereAreTheFilesBytes) {
  auto file = LogFile::Open(path_);
  ASSERT_TRUE(file.has_value());
  BlockReader reader(*file);
  // Backwards through the file in steps of 3,000 bytes, as a query walks,
  // then records here and there, one of them longer than any block.
  for (std::uint64_t end = contents_.size(); end > 3000; end -= 3000) {
    auto got = reader.Read(end - 700, 700);
    ASSERT_TRUE(got.has_value()) << got.error().ToString();
    ASSERT_EQ(*got, std::string_view(contents_).substr(end - 700, 700)) << end;
  }
  for (auto [offset, length] : {std::pair<std::uint64_t, std::uint32_t>{0, 1},
                                {590'000, 9'999},
                                {5, 300'000},
                                {contents_.size() - 1, 1},
                                {131'000, 2'000}}) {
    auto got = reader.Read(offset, length);
    ASSERT_TRUE(got.has_value()) << got.error().ToString();
    EXPECT_EQ(*got, std::string_view(contents_).substr(offset, length)) << offset;
  }
}

TEST_F(BlockReaderTest, AFileCutShortIsAnErrorAndNothingOfTheOldBlockIsServed) {
  auto file = LogFile::Open(path_);
  ASSERT_TRUE(file.has_value());
  BlockReader reader(*file);
  ASSERT_TRUE(reader.Read(contents_.size() - 100, 100).has_value());
  ASSERT_EQ(::truncate(path_.c_str(), 1000), 0);
  auto past_the_end = reader.Read(contents_.size() - 200'000, 100);
  ASSERT_FALSE(past_the_end.has_value());
  EXPECT_EQ(past_the_end.error().code, ErrorCode::kUnavailable);
  EXPECT_FALSE(reader.Read(contents_.size() - 100, 100).has_value())
      << "the block of a failed read must not serve later reads";
  auto start = reader.Read(0, 10);
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(*start, contents_.substr(0, 10));
}

}  // namespace
}  // namespace diagd::tools::logs
