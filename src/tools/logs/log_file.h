// Reading a topic file with plain POSIX reads. No mmap: a file truncated or
// rotated under a reader gives a short read (an error value), never SIGBUS.
//
// Thread safety: a LogFile may be read from several threads (pread has no
// shared position); a BlockReader belongs to one query.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace diagd::tools::logs {

// What tells an append from a rewrite or a rotation.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
};

class LogFile {
 public:
  // NOT_FOUND when `path` is missing, UNAVAILABLE when it cannot be opened.
  static Result<LogFile> Open(const std::filesystem::path& path);
  LogFile(LogFile&& other) noexcept : fd_(other.fd_), opened_(other.opened_) { other.fd_ = -1; }
  LogFile& operator=(LogFile&&) = delete;
  LogFile(const LogFile&) = delete;
  ~LogFile();

  // The file as Open found it: its size then is where a reader that
  // started then stops.
  const FileIdentity& opened() const { return opened_; }
  // Reads up to `size` bytes at `offset` into `out`; fewer only at the end
  // of the file.
  Result<std::size_t> ReadAt(std::uint64_t offset, char* out, std::size_t size) const;

 private:
  explicit LogFile(int fd) : fd_(fd) {}
  int fd_;
  FileIdentity opened_;
};

struct LineScan {
  std::uint64_t end = 0;  // where reading stopped: `end` asked, or a line start
  bool stopped = false;   // `should_stop` ended it before `end`
  // The last line when it has no '\n' (it may still be being written).
  std::optional<std::uint64_t> unterminated_line;
};

// Calls `on_line(line, offset)` for every line of bytes [begin, end) in
// order, without its '\n'. A line longer than `max_line_bytes` is handed over
// cut to that length and the rest of it skipped. `should_stop` is asked
// between blocks of about a megabyte.
Result<LineScan> ForEachLine(const LogFile& file, std::uint64_t begin, std::uint64_t end,
                             std::size_t max_line_bytes, const std::function<bool()>& should_stop,
                             const std::function<void(std::string_view, std::uint64_t)>& on_line);

// Random reads of records for one query, through one block buffer. A query
// walks its window from both ends (the earliest matches, then the newest),
// so a reader walks one way: backwards, a miss reads the block that ends at
// the record; forwards, the block that starts at it. In a time-ordered file
// either is sequential. The first miss reads 4 KiB (a page: some 20
// records), each next one twice as much, up to 128 KiB: a query that keeps
// one event reads one small block, and one that walks many reads few blocks.
// (A 16 KiB first block was a tenth of a 1-event run's CPU, in the kernel's
// copy and the fresh buffer's faults.)
class BlockReader {
 public:
  enum class Walk { kBackward, kForward };
  explicit BlockReader(const LogFile& file, Walk walk = Walk::kBackward);
  // The `length` bytes at `offset`; UNAVAILABLE when the file is shorter now.
  Result<std::string_view> Read(std::uint64_t offset, std::uint32_t length);

 private:
  const LogFile& file_;
  const Walk walk_;
  // Not a std::string: resizing one zeroes the bytes the read then replaces.
  std::unique_ptr<char[]> block_;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;  // bytes of block_ that hold the file from block_offset_
  std::uint64_t block_offset_ = 0;
  std::size_t next_read_;  // bytes the next miss reads at least
};

// FNV-1a of the first `length` bytes: notices a file rewritten in place.
Result<std::uint64_t> HashPrefix(const LogFile& file, std::size_t length);

}  // namespace diagd::tools::logs
