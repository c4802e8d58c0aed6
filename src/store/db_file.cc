#include "store/db_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace diagd::store {
namespace {

Error Unusable(const std::string& path, const std::string& why) {
  return Error::Unavailable("run store: cannot use " + path + ": " + why);
}

std::string Folder(const std::string& path) {
  std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

}  // namespace

Status CheckDatabasePath(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return Unusable(path, "it is a directory, not a database file");
    if (!S_ISREG(info.st_mode)) return Unusable(path, "it is not a regular file");
    if (access(path.c_str(), R_OK | W_OK) != 0) {
      return Unusable(path, std::string("the file is not writable: ") + std::strerror(errno));
    }
  } else if (errno != ENOENT) {
    return Unusable(path, std::strerror(errno));
  }
  // The -wal and -shm files live beside the database: its folder must be
  // writable even when the file itself is.
  std::string folder = Folder(path);
  if (access(folder.c_str(), W_OK) != 0) {
    return Unusable(path, "its folder " + folder + " is not writable: " + std::strerror(errno));
  }
  return OkStatus();
}

std::optional<DbFileIdentity> DbFileIdentity::Capture(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return std::nullopt;
  return DbFileIdentity(path, info.st_dev, info.st_ino);
}

Status DbFileIdentity::CheckStillThere() const {
  struct stat info {};
  if (stat(path_.c_str(), &info) != 0) {
    return Error::Unavailable("run store: the database file " + path_ +
                              " was deleted while diagd was running; writes are refused (they "
                              "would be lost): restart diagd (after putting the file back, "
                              "if its runs matter)");
  }
  if (info.st_dev != device_ || info.st_ino != inode_) {
    return Error::Unavailable("run store: the database file " + path_ +
                              " was replaced while diagd was running; writes are refused: "
                              "restart diagd to use the new file");
  }
  return OkStatus();
}

}  // namespace diagd::store
