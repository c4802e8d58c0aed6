// What diagd prints for a person never drives the terminal: an escape
// sequence in an incident folder's name reaches eval's table and progress
// lines as visible text, and ControlEscapingBuffer writes every control
// character but tab and line feed, and the C1 controls, as escapes.
#include "cli/terminal_text.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace diagd::cli {
namespace {

std::string ThroughTheBuffer(const std::string& text) {
  std::ostringstream sink;
  ControlEscapingBuffer buffer(sink.rdbuf());
  std::ostream out(&buffer);
  out << text << std::flush;
  return sink.str();
}

TEST(TerminalText, ControlsAreWrittenAsEscapesAndTextIsLeftAlone) {
  EXPECT_EQ(ThroughTheBuffer("red\x1b[31m!\r\x07"), "red\\x1B[31m!\\x0D\\x07");
  EXPECT_EQ(ThroughTheBuffer("a\tb\nc\x7f"), "a\tb\nc\\x7F");
  // U+009B (CSI) in UTF-8 is C2 9B; U+00A9 (C2 A9) and Chinese stay as they are.
  EXPECT_EQ(ThroughTheBuffer("x\xc2\x9b" "2J y \xc2\xa9 支付"), "x\\u009B2J y \xc2\xa9 支付");
  // A lead byte held at a flush is written as it came.
  EXPECT_EQ(ThroughTheBuffer("end\xc2"), "end\xc2");
  // JSON never holds a raw control: it passes unchanged.
  EXPECT_EQ(ThroughTheBuffer(R"({"a":"\u001b[31m"})"), R"({"a":"\u001b[31m"})");
}

}  // namespace
}  // namespace diagd::cli
