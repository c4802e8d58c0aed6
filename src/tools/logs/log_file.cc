#include "tools/logs/log_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace diagd::tools::logs {
namespace {

// The unit of sequential reading when indexing.
constexpr std::size_t kScanBlockBytes = 1u << 20;
// The units of random reading when a query reads records back: its first
// miss, and the most any miss reads (BlockReader).
constexpr std::size_t kFirstQueryBlockBytes = 4u << 10;
constexpr std::size_t kQueryBlockBytes = 128u << 10;

}  // namespace

Result<LogFile> LogFile::Open(const std::filesystem::path& path) {
  // O_NONBLOCK: a FIFO named like a topic must not hang the query.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Error::NotFound("log file does not exist");
    return Error::Unavailable("log file cannot be opened");
  }
  LogFile file(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::Unavailable("log file cannot be read");
  if (!S_ISREG(st.st_mode)) return Error::NotFound("log topic is not a regular file");
  file.opened_ = FileIdentity{
      static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
      static_cast<std::uint64_t>(st.st_size),
      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
  return file;
}

LogFile::~LogFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::size_t> LogFile::ReadAt(std::uint64_t offset, char* out, std::size_t size) const {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd_, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::Unavailable("log file cannot be read");
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

Result<LineScan> ForEachLine(const LogFile& file, std::uint64_t begin, std::uint64_t end,
                             std::size_t max_line_bytes, const std::function<bool()>& should_stop,
                             const std::function<void(std::string_view, std::uint64_t)>& on_line) {
  LineScan scan;
  std::string buffer;                   // file bytes [buffer_offset, buffer_offset + size)
  std::uint64_t buffer_offset = begin;  // a line start unless `skipping`
  std::uint64_t read_offset = begin;
  bool skipping = false;  // inside the tail of an overlong line
  std::uint64_t long_line_start = 0;
  while (read_offset < end) {
    if (!skipping && should_stop()) {
      scan.stopped = true;
      scan.end = buffer_offset;
      return scan;
    }
    std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(kScanBlockBytes, end - read_offset));
    std::size_t kept = buffer.size();
    buffer.resize(kept + want);
    auto got = file.ReadAt(read_offset, buffer.data() + kept, want);
    if (!got) return Unexpected(got.error());
    buffer.resize(kept + *got);
    if (*got == 0) {  // the file shrank under us: it ends here
      end = read_offset;
      break;
    }
    read_offset += *got;

    std::string_view view(buffer);
    std::size_t start = 0;
    for (std::size_t newline; (newline = view.find('\n', start)) != std::string_view::npos;
         start = newline + 1) {
      if (skipping) {
        skipping = false;
      } else {
        on_line(view.substr(start, newline - start), buffer_offset + start);
      }
    }
    buffer.erase(0, start);
    buffer_offset += start;
    if (!skipping && buffer.size() > max_line_bytes) {
      on_line(std::string_view(buffer).substr(0, max_line_bytes), buffer_offset);
      skipping = true;
      long_line_start = buffer_offset;
    }
    if (skipping) {
      buffer_offset += buffer.size();
      buffer.clear();
    }
  }
  scan.end = end;
  if (skipping) {
    scan.unterminated_line = long_line_start;
  } else if (!buffer.empty()) {
    scan.unterminated_line = buffer_offset;
    on_line(buffer, buffer_offset);
  }
  return scan;
}

BlockReader::BlockReader(const LogFile& file, Walk walk)
    : file_(file), walk_(walk), next_read_(kFirstQueryBlockBytes) {}

Result<std::string_view> BlockReader::Read(std::uint64_t offset, std::uint32_t length) {
  std::uint64_t stop = offset + length;
  if (offset >= block_offset_ && stop <= block_offset_ + size_) {
    return std::string_view(block_.get() + (offset - block_offset_), length);
  }
  std::uint64_t size = std::max<std::uint64_t>(length, next_read_);
  next_read_ = std::min(next_read_ * 2, kQueryBlockBytes);
  std::uint64_t start = stop > size ? stop - size : 0;
  if (walk_ == Walk::kForward) {
    // Not past the end the file had when opened: a read there is short.
    start = offset;
    stop = std::max(stop, std::min(offset + size, file_.opened().size));
  }
  auto bytes = static_cast<std::size_t>(stop - start);
  if (bytes > capacity_) {
    block_ = std::make_unique_for_overwrite<char[]>(bytes);
    capacity_ = bytes;
  }
  size_ = 0;
  auto got = file_.ReadAt(start, block_.get(), bytes);
  if (!got) return Unexpected(got.error());
  if (*got < bytes) return Error::Unavailable("log file shrank while being read");
  size_ = bytes;
  block_offset_ = start;
  return std::string_view(block_.get() + (offset - start), length);
}

Result<std::uint64_t> HashPrefix(const LogFile& file, std::size_t length) {
  std::string bytes(length, '\0');
  auto got = file.ReadAt(0, bytes.data(), length);
  if (!got) return Unexpected(got.error());
  std::uint64_t hash = 14695981039346656037ull;
  for (std::size_t i = 0; i < *got; ++i) {
    hash = (hash ^ static_cast<unsigned char>(bytes[i])) * 1099511628211ull;
  }
  return hash ^ *got;  // a shorter file has another hash
}

}  // namespace diagd::tools::logs
