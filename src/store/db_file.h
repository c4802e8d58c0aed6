// The run store's database file as the file system sees it: why it cannot
// be opened, in words an operator can act on (SQLite says only "unable to
// open database file"), and whether the file the store opened is still the
// one at its path (deleted or replaced while serving, writes would go to an
// unlinked file and be lost at exit).
//
// Thread safety: a DbFileIdentity is immutable after Capture.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "core/result.h"

namespace diagd::store {

// Checks, before SQLite opens it, that `path` can be a writable database
// file: not a directory, and in a folder this process may write (SQLite
// needs the folder for its -wal and -shm files). UNAVAILABLE naming the
// path and the reason otherwise.
Status CheckDatabasePath(const std::string& path);

class DbFileIdentity {
 public:
  // The identity of the file at `path` now; empty when it cannot be read.
  static std::optional<DbFileIdentity> Capture(const std::string& path);

  // OK while `path` still names this file; UNAVAILABLE when it was
  // deleted, renamed or replaced.
  Status CheckStillThere() const;

 private:
  DbFileIdentity(std::string path, dev_t device, ino_t inode)
      : path_(std::move(path)), device_(device), inode_(inode) {}

  std::string path_;
  dev_t device_;
  ino_t inode_;
};

}  // namespace diagd::store
