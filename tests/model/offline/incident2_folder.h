// The incident2/ workspace laid out in a temporary folder: its SQLite
// database built from incident2/data.sql (after `edit`, so a test can rename
// a table or drop the row that holds the cause) and its config written with
// the real paths. With `extra` files (paths relative to the workspace,
// "logs/change-audit.log"), its logs and docs are copied there too and the
// files added. Removed again on destruction.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>

namespace diagd::model::offline::testing {

class Incident2Folder {
 public:
  using SqlEdit = std::function<void(std::string& sql)>;
  explicit Incident2Folder(const SqlEdit& edit = {},
                           const std::map<std::string, std::string>& extra = {});
  ~Incident2Folder();
  Incident2Folder(const Incident2Folder&) = delete;
  Incident2Folder& operator=(const Incident2Folder&) = delete;

  // Empty when the database could not be built (the reason in error()).
  const std::filesystem::path& config() const { return config_; }
  const std::string& error() const { return error_; }

 private:
  std::filesystem::path folder_;
  std::filesystem::path config_;
  std::string error_;
};

// Replaces every occurrence of `from` in `text`.
void ReplaceAll(std::string& text, const std::string& from, const std::string& to);

}  // namespace diagd::model::offline::testing
