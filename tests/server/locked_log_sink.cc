#include "server/locked_log_sink.h"

namespace diagd::server::testing {

std::string LockedLogSink::Text() const {
  MutexLock lock(mu_);
  return text_;
}

LockedLogSink::Buffer::int_type LockedLogSink::Buffer::overflow(int_type ch) {
  if (!traits_type::eq_int_type(ch, traits_type::eof())) line_.push_back(traits_type::to_char_type(ch));
  return traits_type::not_eof(ch);
}

std::streamsize LockedLogSink::Buffer::xsputn(const char* s, std::streamsize n) {
  line_.append(s, static_cast<std::size_t>(n));
  return n;
}

int LockedLogSink::Buffer::sync() {
  MutexLock lock(sink_.mu_);
  sink_.text_ += line_;
  line_.clear();
  return 0;
}

}  // namespace diagd::server::testing
