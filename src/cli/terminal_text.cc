#include "cli/terminal_text.h"

#include <cstdio>
#include <cstring>
#include <iostream>

namespace diagd::cli {

bool ControlEscapingBuffer::Put(const char* text) {
  std::streamsize n = static_cast<std::streamsize>(std::strlen(text));
  return target_->sputn(text, n) == n;
}

ControlEscapingBuffer::int_type ControlEscapingBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  auto byte = static_cast<unsigned char>(traits_type::to_char_type(c));
  char escape[16];
  if (pending_c2_) {
    pending_c2_ = false;
    if (byte >= 0x80 && byte <= 0x9F) {  // U+0080-U+009F: C1 controls (CSI is U+009B)
      std::snprintf(escape, sizeof(escape), "\\u00%02X", byte);
      return Put(escape) ? c : traits_type::eof();
    }
    if (target_->sputc(static_cast<char>(0xC2)) == traits_type::eof()) return traits_type::eof();
  }
  if (byte == 0xC2) {
    pending_c2_ = true;
    return c;
  }
  bool control = (byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F;
  if (control) {
    std::snprintf(escape, sizeof(escape), "\\x%02X", byte);
    return Put(escape) ? c : traits_type::eof();
  }
  return target_->sputc(static_cast<char>(byte)) == traits_type::eof() ? traits_type::eof() : c;
}

int ControlEscapingBuffer::sync() {
  // A lead byte held at a flush is written as it is: the next byte may
  // never come, and 0xC2 alone is no control.
  if (pending_c2_) {
    pending_c2_ = false;
    if (target_->sputc(static_cast<char>(0xC2)) == traits_type::eof()) return -1;
  }
  return target_->pubsync();
}

void EscapeControlsOnStandardStreams() {
  // Never destroyed: the standard streams are flushed after static
  // destructors run (std::ios_base::Init), so their buffers must outlive them.
  static auto* const out = new ControlEscapingBuffer(std::cout.rdbuf());
  static auto* const err = new ControlEscapingBuffer(std::cerr.rdbuf());
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
}

}  // namespace diagd::cli
