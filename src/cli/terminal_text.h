// What diagd prints for a person never drives the terminal: control
// characters that reach stdout or stderr from data (a model endpoint's
// error text, a model id, an incident folder's name, a log line) are
// written as visible escapes (`\x1B`, `\u009B`) instead. JSON output is
// unchanged: it never holds a raw control character.
//
// Thread safety: install once, in main, before any output.
#pragma once

#include <ostream>
#include <streambuf>

namespace diagd::cli {

// Passes bytes to `target`, writing C0 controls other than tab and line
// feed, DEL, and the UTF-8 encodings of C1 controls (U+0080-U+009F) as
// escapes.
class ControlEscapingBuffer : public std::streambuf {
 public:
  explicit ControlEscapingBuffer(std::streambuf* target) : target_(target) {}

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool Put(const char* text);

  std::streambuf* target_;
  bool pending_c2_ = false;  // a 0xC2 lead byte held until the next byte says what it starts
};

// Routes std::cout and std::cerr through a ControlEscapingBuffer each.
void EscapeControlsOnStandardStreams();

}  // namespace diagd::cli
