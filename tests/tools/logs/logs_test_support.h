// A temporary topic folder and a few ways to write topic files into it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/clock.h"
#include "tools/logs/local_logs_adapter.h"

namespace diagd::tools::logs::testing {

// The configured `now` of these tests: 2026-11-29T10:30:00Z.
inline WallTime TestNow() { return *ParseRfc3339("2026-11-29T10:30:00Z"); }

// `minutes` before TestNow(), as RFC 3339 text (negative: after it).
inline std::string MinutesAgo(double minutes) {
  auto at = TestNow() - std::chrono::milliseconds(static_cast<std::int64_t>(minutes * 60'000));
  return FormatRfc3339Millis(std::chrono::time_point_cast<WallTime::duration>(at));
}

inline std::string JsonLine(const std::string& timestamp, const std::string& level,
                            const std::string& service, const std::string& message) {
  return R"({"timestamp":")" + timestamp + R"(","level":")" + level + R"(","service":")" + service +
         R"(","message":")" + message + "\"}\n";
}

// Monotonic time that moves one millisecond each time it is read; wall time
// stands at TestNow().
class SteppingClock final : public Clock {
 public:
  WallTime Now() const override { return TestNow(); }
  MonoTime Monotonic() const override {
    return MonoTime{} + std::chrono::milliseconds(ticks_.fetch_add(1));
  }

 private:
  mutable std::atomic<std::int64_t> ticks_{0};
};

class TopicFolder {
 public:
  TopicFolder() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ =
        std::filesystem::temp_directory_path() / ("diagd_logs_" + std::to_string(::getpid()) + "_" +
                                                  test->test_suite_name() + "_" + test->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  ~TopicFolder() { std::filesystem::remove_all(root_); }
  TopicFolder(const TopicFolder&) = delete;
  TopicFolder& operator=(const TopicFolder&) = delete;

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path Path(const std::string& name) const { return root_ / name; }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(root_ / name, std::ios::binary | std::ios::trunc) << text;
  }
  void Append(const std::string& name, const std::string& text) const {
    std::ofstream(root_ / name, std::ios::binary | std::ios::app) << text;
  }

 private:
  std::filesystem::path root_;
};

inline std::vector<std::string> Messages(const LogsResult& result) {
  std::vector<std::string> out;
  for (const auto& event : result.events) out.push_back(event.message);
  return out;
}

}  // namespace diagd::tools::logs::testing
