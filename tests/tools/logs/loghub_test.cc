// Real data: the loghub samples (research use only, read from
// ../shared/data, never copied into the repository). Every line of every
// sample must be an event or a continuation, and the events must agree with
// the loghub authors' own parse (`*_2k.log_structured.csv`): count, every
// timestamp, level and service where the sample has them, and the content
// as the tail of our message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/clock.h"
#include "tools/logs/local_logs_adapter.h"
#include "tools/logs/log_record.h"

namespace diagd::tools::logs {
namespace {

namespace fs = std::filesystem;

const fs::path kLoghub = fs::path(DIAGD_SHARED_DATA_DIR) / "loghub";
constexpr UnixMillis kReference = 1'795'953'600'000;  // no sample lacks a year

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// RFC 4180 with CRLF rows, as the loghub CSVs are written; one map per row.
std::vector<std::map<std::string, std::string>> ReadCsv(const fs::path& path) {
  std::string text = ReadFile(path);
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(std::move(field));
      field.clear();
      rows.emplace_back();
    } else if (c != '\r') {
      field.push_back(c);
    }
  }
  if (!field.empty() || !rows.back().empty()) rows.back().push_back(std::move(field));
  if (rows.back().empty()) rows.pop_back();
  std::vector<std::map<std::string, std::string>> records;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    std::map<std::string, std::string> record;
    for (std::size_t k = 0; k < rows[0].size() && k < rows[r].size(); ++k) {
      record[rows[0][k]] = rows[r][k];
    }
    records.push_back(std::move(record));
  }
  return records;
}

std::string Rfc3339(int y, int mo, int d, int h, int mi, int s, int ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, mo, d, h, mi, s, ms);
  return buf;
}

int MonthNumber(const char* name) {
  static const char* kNames[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int m = 0; m < 12; ++m) {
    if (std::string(kNames[m]) == name) return m + 1;
  }
  return 0;
}

// The time of a CSV row, computed from the loghub columns with sscanf: an
// oracle independent of the parser under test.
std::string ExpectedTime(const std::string& system, std::map<std::string, std::string>& row) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0;
  const char* date = row["Date"].c_str();
  const char* time = row["Time"].c_str();
  if (system == "Apache") {
    char month[4] = {};
    std::sscanf(time, "%*s %3s %d %d:%d:%d %d", month, &d, &h, &mi, &s, &y);
    mo = MonthNumber(month);
  } else if (system == "HDFS") {
    std::sscanf(date, "%2d%2d%2d", &y, &mo, &d);
    std::sscanf(time, "%2d%2d%2d", &h, &mi, &s);
    y += 2000;
  } else if (system == "Hadoop" || system == "Zookeeper") {
    std::sscanf(date, "%d-%d-%d", &y, &mo, &d);
    std::sscanf(time, "%d:%d:%d,%d", &h, &mi, &s, &ms);
  } else if (system == "HealthApp") {
    std::sscanf(time, "%4d%2d%2d-%d:%d:%d:%d", &y, &mo, &d, &h, &mi, &s, &ms);
  } else if (system == "OpenStack") {
    std::sscanf(date, "%d-%d-%d", &y, &mo, &d);
    std::sscanf(time, "%d:%d:%d.%d", &h, &mi, &s, &ms);
  } else if (system == "Spark") {
    std::sscanf(date, "%d/%d/%d", &y, &mo, &d);
    std::sscanf(time, "%d:%d:%d", &h, &mi, &s);
    y += 2000;
  }
  return Rfc3339(y, mo, d, h, mi, s, ms);
}

// Apache's `notice` is no level; the others are level words.
std::string ExpectedLevel(const std::string& csv_level) {
  std::string upper;
  for (char c : csv_level) upper.push_back(static_cast<char>(std::toupper(c)));
  if (upper == "WARNING") return "WARN";
  if (upper == "NOTICE") return "";
  return upper;
}

struct Sample {
  const char* system;
  const char* first;  // file order
  const char* last;
};

const Sample kSamples[] = {
    {"Apache", "2005-12-04T04:47:44.000Z", "2005-12-05T19:15:57.000Z"},
    {"HDFS", "2008-11-09T20:36:15.000Z", "2008-11-11T10:20:17.000Z"},
    {"Hadoop", "2015-10-18T18:01:47.978Z", "2015-10-18T18:10:55.202Z"},
    {"HealthApp", "2017-12-23T22:15:29.606Z", "2017-12-24T01:02:35.789Z"},
    {"OpenStack", "2017-05-16T00:00:00.008Z", "2017-05-16T00:14:47.687Z"},
    {"Spark", "2017-06-09T20:10:40.000Z", "2017-06-09T20:11:11.000Z"},
    {"Zookeeper", "2015-07-29T17:41:44.747Z", "2015-08-10T18:12:34.004Z"},
};

class Events : public ScanSink {
 public:
  struct Event {
    UnixMillis time_ms;
    std::uint64_t offset;
    std::uint32_t length;
    std::string level;
    std::string service;
  };
  void OnEvent(const ScannedEvent& e) override {
    list.push_back({e.time_ms, e.offset, e.length, std::string(e.level), std::string(e.service)});
  }
  void OnExtend(std::uint32_t length) override {
    list.back().length = length;
    ++continuations;
  }
  void OnSkipped(std::uint64_t) override { ++skipped; }
  std::vector<Event> list;
  std::size_t continuations = 0;
  std::size_t skipped = 0;
};

std::string Format(UnixMillis ms) {
  return FormatRfc3339Millis(WallTime(std::chrono::milliseconds(ms)));
}

class LoghubSample : public ::testing::TestWithParam<Sample> {
 protected:
  void SetUp() override {
    if (!fs::exists(kLoghub)) GTEST_SKIP() << "../shared/data not present";
  }
  fs::path LogPath() const {
    std::string system = GetParam().system;
    return kLoghub / system / (system + "_2k.log");
  }
};

TEST_P(LoghubSample, EveryLineIsAnEventOrAContinuationAndAgreesWithTheStructuredCsv) {
  const std::string system = GetParam().system;
  std::string text = ReadFile(LogPath());
  auto rows = ReadCsv(kLoghub / system / (system + "_2k.log_structured.csv"));
  ASSERT_FALSE(text.empty());

  Events events;
  RecordScanner scanner(TopicFormat::kPlainText, kReference, events);
  std::size_t lines = 0;
  for (std::size_t start = 0; start < text.size(); ++lines) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    scanner.Feed(std::string_view(text).substr(start, end - start), start);
    start = end + 1;
  }
  EXPECT_EQ(events.skipped, 0u) << "a line that is neither event nor continuation";
  EXPECT_EQ(events.list.size() + events.continuations, lines);
  ASSERT_EQ(events.list.size(), rows.size()) << "one event per structured row";
  EXPECT_EQ(Format(events.list.front().time_ms), GetParam().first);
  EXPECT_EQ(Format(events.list.back().time_ms), GetParam().last);

  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < rows.size() && mismatches < 5; ++i) {
    const auto& event = events.list[i];
    auto& row = rows[i];
    auto decoded =
        DecodeRecord(TopicFormat::kPlainText,
                     std::string_view(text).substr(event.offset, event.length), kReference);
    ASSERT_TRUE(decoded) << "line " << i + 1;
    std::string message = decoded->message;
    while (!message.empty() && message.back() == ' ') message.pop_back();  // the CSV trims
    bool ok = Format(event.time_ms) == ExpectedTime(system, row) &&
              event.level == ExpectedLevel(row["Level"]) && message.ends_with(row["Content"]);
    if (system == "HealthApp") ok = ok && event.service == row["Component"];
    if (system == "OpenStack") {
      ok = ok && event.service == row["Logrecord"].substr(0, row["Logrecord"].find(".log"));
    }
    if (!ok) {
      ++mismatches;
      ADD_FAILURE() << system << " line " << i + 1 << ": " << Format(event.time_ms) << " vs "
                    << ExpectedTime(system, row) << ", level '" << event.level << "' vs '"
                    << row["Level"] << "', service '" << event.service << "', message '"
                    << decoded->message << "' vs content '" << row["Content"] << "'";
    }
  }
}

// End to end: the adapter over the sample (linked, not copied, into a
// temporary folder) returns every event of the sample's span, oldest first;
// with room for 30, the first 6 and the newest 24 of them.
TEST_P(LoghubSample, AdapterReturnsTheWholeSampleOldestFirstOrItsTwoEnds) {
  const std::string system = GetParam().system;
  fs::path root =
      fs::temp_directory_path() / ("diagd_loghub_" + system + "_" + std::to_string(::getpid()));
  fs::create_directories(root);
  fs::create_symlink(LogPath(), root / (system + ".log"));
  ManualClock clock;
  LocalLogsOptions options;
  options.root = root;
  options.max_events = 5000;
  options.max_message_chars = 10000;  // one HDFS line has 2,521 characters
  // The latest event of every sample is within 40 days before this.
  options.now = *ParseRfc3339(std::string(GetParam().first).substr(0, 10) + "T00:00:00Z") +
                std::chrono::hours(24 * 40);
  auto query = [&](std::size_t max_events) {
    options.max_events = max_events;
    auto adapter = LocalLogsAdapter::Open(options, clock);
    EXPECT_TRUE(adapter);
    auto out = (*adapter)->Execute(LogsRequest{system, "", 40 * 24 * 60},
                                   clock.Monotonic() + std::chrono::seconds(30));
    EXPECT_TRUE(out);
    return out ? std::get<LogsResult>(out->result) : LogsResult{};
  };
  LogsResult whole = query(5000);
  LogsResult ends = query(30);
  fs::remove_all(root);
  ASSERT_EQ(whole.events.size(), 2000u);
  EXPECT_FALSE(whole.truncated);
  EXPECT_TRUE(std::is_sorted(
      whole.events.begin(), whole.events.end(),
      [](const LogEvent& a, const LogEvent& b) { return a.timestamp < b.timestamp; }))
      << "oldest first";
  ASSERT_EQ(ends.events.size(), 30u);
  EXPECT_TRUE(ends.truncated);
  for (std::size_t i = 0; i < 30; ++i) {
    const LogEvent& expected = whole.events[i < 6 ? i : 2000 - 30 + i];
    EXPECT_EQ(ends.events[i].timestamp, expected.timestamp) << i;
    EXPECT_EQ(ends.events[i].message, expected.message) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Loghub, LoghubSample, ::testing::ValuesIn(kSamples),
                         [](const auto& info) { return std::string(info.param.system); });

}  // namespace
}  // namespace diagd::tools::logs
