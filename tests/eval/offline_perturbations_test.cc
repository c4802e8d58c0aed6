// The offline provider on incidents it was not tuned on: bundled incidents
// (eval/incidents) changed the way a held-out incident may differ, each so
// that the data no longer shows the cause: the partner's status is
// operational, the rate-limit change is on another zone, the release came
// after the onset or says it is logging only, the change is gone. The
// right outcome is then an honest fallback; a diagnosis would be a guess
// that quotes real rows next to the wrong cause.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <boost/json.hpp>

#include "e2e/cli_fixture.h"

namespace diagd::e2e {
namespace {

struct Perturbation {
  const char* name;      // the copy's name
  const char* incident;  // the bundled incident it is made from
  const char* sql;       // run on its data/ops.db
};

const Perturbation kPerturbations[] = {
    {"partner-operational", "downstream-timeout",
     "UPDATE vendor_status SET status = 'operational', note = '' WHERE vendor = 'fastlogi'"},
    {"rate-limit-other-zone", "gateway-rate-limit",
     "UPDATE changes SET summary = '限流改造：limit_req_zone api_admin 由 500r/s 改为 50r/s' "
     "WHERE ticket = 'OPS-8120'"},
    {"rate-limit-change-gone", "gateway-rate-limit", "DELETE FROM changes WHERE ticket = 'OPS-8120'"},
    {"consumer-release-logging-only", "mq-consumer-lag",
     "UPDATE changes SET summary = '日志字段调整（仅日志）' WHERE ticket = 'ORD-3402'"},
    {"consumer-release-after-onset", "mq-consumer-lag",
     "UPDATE changes SET changed_at = '2026-11-26 21:40:00' WHERE ticket = 'ORD-3402'"},
    {"release-after-onset", "thread-pool-exhausted",
     "UPDATE changes SET changed_at = '2026-11-19 10:50:00' WHERE ticket = 'REL-903'"},
    {"regressing-release-gone", "release-regression",
     "DELETE FROM deployments WHERE ticket = 'CART-771'"},
};

// incident.toml with its [expect] table replaced by "outcome = FALLBACK".
std::string ExpectingFallback(const std::string& toml) {
  return toml.substr(0, toml.find("[expect]")) + "[expect]\noutcome = \"FALLBACK\"\n";
}

bool Execute(const fs::path& db, const char* sql, std::string* error) {
  sqlite3* handle = nullptr;
  if (sqlite3_open(db.c_str(), &handle) != SQLITE_OK) {
    *error = sqlite3_errmsg(handle);
    sqlite3_close(handle);
    return false;
  }
  char* message = nullptr;
  int rc = sqlite3_exec(handle, sql, nullptr, nullptr, &message);
  if (message != nullptr) *error = message;
  sqlite3_free(message);
  bool changed = rc == SQLITE_OK && sqlite3_changes(handle) > 0;
  sqlite3_close(handle);
  if (rc == SQLITE_OK && !changed) *error = "the statement changed no row";
  return changed;
}

TEST(OfflinePerturbations, WhenTheDataNoLongerShowsTheCauseItFallsBackHonestly) {
  fs::path dir = fs::temp_directory_path() / ("diagd-perturbed-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "suite");
  fs::path bundled = fs::path(DIAGD_SOURCE_DIR) / "eval" / "incidents";
  for (const auto& p : kPerturbations) {
    fs::path copy = dir / "suite" / p.name;
    fs::copy(bundled / p.incident, copy, fs::copy_options::recursive);
    std::string error;
    ASSERT_TRUE(Execute(copy / "data" / "ops.db", p.sql, &error)) << p.name << ": " << error;
    std::ofstream(copy / "incident.toml", std::ios::trunc)
        << ExpectingFallback(ReadFile(bundled / p.incident / "incident.toml"));
  }
  std::ofstream(dir / "offline.toml") << "[model]\nprovider = \"offline\"\n";

  auto run = RunDiagd({"eval", (dir / "suite").string(), "--config", (dir / "offline.toml").string(),
                       "--json", "--jobs", "2"},
                      dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  boost::system::error_code parse_error;
  auto document = boost::json::parse(run.out, parse_error);
  ASSERT_FALSE(parse_error) << run.out;
  const auto& incidents = document.as_object().at("incidents").as_array();
  ASSERT_EQ(incidents.size(), std::size(kPerturbations));
  for (const auto& incident : incidents) {
    EXPECT_EQ(incident.at("outcome"), "FALLBACK") << incident.at("name").as_string();
    EXPECT_EQ(incident.at("verdict"), "RIGHT") << "the fallback expected: "
                                               << incident.at("name").as_string() << "\n"
                                               << run.err;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace diagd::e2e
