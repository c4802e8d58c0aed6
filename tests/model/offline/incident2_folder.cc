#include "model/offline/incident2_folder.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

namespace diagd::model::offline::testing {
namespace {

const std::string kSource = DIAGD_SOURCE_DIR "/tests/model/offline/incident2";

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

Incident2Folder::Incident2Folder(const SqlEdit& edit,
                                 const std::map<std::string, std::string>& extra) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "diagd-incident2-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    error_ = "mkdtemp failed";
    return;
  }
  folder_ = pattern;
  std::string sql = Read(kSource + "/data.sql");
  if (edit) edit(sql);
  std::string db = (folder_ / "shop.db").string();
  sqlite3* handle = nullptr;
  int rc = sqlite3_open(db.c_str(), &handle);
  char* message = nullptr;
  if (rc == SQLITE_OK) rc = sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) error_ = message ? message : "sqlite3_open failed";
  sqlite3_free(message);
  sqlite3_close(handle);
  if (!error_.empty()) return;
  std::string workspace = kSource;
  if (!extra.empty()) {
    namespace fs = std::filesystem;
    for (const char* part : {"logs", "docs"}) {
      fs::copy(fs::path(kSource) / part, folder_ / part, fs::copy_options::recursive);
    }
    for (const auto& [path, content] : extra) {
      fs::create_directories((folder_ / path).parent_path());
      std::ofstream(folder_ / path) << content;
    }
    workspace = folder_.string();
  }
  std::string config = Read(kSource + "/diagd.toml.in");
  ReplaceAll(config, "@SOURCE@", workspace);
  ReplaceAll(config, "@DB@", db);
  std::ofstream(folder_ / "diagd.toml") << config;
  config_ = folder_ / "diagd.toml";
}

Incident2Folder::~Incident2Folder() {
  std::error_code ignored;
  if (!folder_.empty()) std::filesystem::remove_all(folder_, ignored);
}

}  // namespace diagd::model::offline::testing
