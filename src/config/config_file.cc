// ReadConfigText (config_parse.h): a configuration or incident file is a
// regular file of bounded size. A folder, a FIFO that never ends, a device
// such as /dev/zero that never stops giving, or a file larger than any
// configuration is refused with a message, before a byte is read.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "config/config_parse.h"

namespace diagd::config::internal {

Result<std::string> ReadConfigText(const std::filesystem::path& file, const std::string& what) {
  std::string label = what + " " + file.string();
  // O_NONBLOCK: opening a FIFO with no writer must not wait for one.
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return Error::NotFound(label + ": no such file");
    return Error::InvalidArgument(label + ": cannot be read: " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    bool folder = S_ISDIR(info.st_mode);
    ::close(fd);
    return Error::InvalidArgument(label + (folder ? ": is a folder, not a file"
                                                  : ": is not a regular file"));
  }
  if (info.st_size > static_cast<off_t>(kMaxConfigFileBytes)) {
    ::close(fd);
    return Error::InvalidArgument(label + ": is " + std::to_string(info.st_size) +
                                  " bytes; a configuration file holds at most " +
                                  std::to_string(kMaxConfigFileBytes));
  }
  // Read to one byte past the limit whatever the size said: the file may
  // grow while it is read.
  std::string text;
  char buffer[8192];
  while (text.size() <= kMaxConfigFileBytes) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int read_errno = errno;
      ::close(fd);
      return Error::InvalidArgument(label + ": read failed: " + std::strerror(read_errno));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (text.size() > kMaxConfigFileBytes) {
    return Error::InvalidArgument(label + ": grew past " + std::to_string(kMaxConfigFileBytes) +
                                  " bytes while it was read");
  }
  return text;
}

}  // namespace diagd::config::internal
