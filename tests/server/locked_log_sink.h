// A stream the server's log writes into and a test reads while the server
// runs. ServerLog writes each line under its own lock and flushes it; the
// flush moves the line into the text a reader copies under this sink's lock,
// so a reader may miss the line being written, never see half of one, and
// never race the writer (a plain ostringstream's str() would).
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

#include "core/mutex.h"

namespace diagd::server::testing {

class LockedLogSink {
 public:
  std::ostream& stream() { return stream_; }
  std::string Text() const;

 private:
  class Buffer final : public std::streambuf {
   public:
    explicit Buffer(LockedLogSink& sink) : sink_(sink) {}

   private:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

    LockedLogSink& sink_;
    std::string line_;  // touched only by the writer, under ServerLog's lock
  };

  mutable Mutex mu_;
  std::string text_ GUARDED_BY(mu_);
  Buffer buffer_{*this};
  std::ostream stream_{&buffer_};
};

}  // namespace diagd::server::testing
