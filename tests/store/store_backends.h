// The run store's suites run against both stores: each parameterized
// fixture gets `Backend::kSqlite` and `Backend::kPostgres`, the PostgreSQL
// cases on a private server started once per test program
// (tests/testing/postgres_server.h), each case on a database of its own.
// Where the PostgreSQL binaries are not installed those cases skip, saying
// so; any other failure to start the server fails them.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "app/run_store.h"
#include "core/clock.h"
#include "core/result.h"

namespace diagd::store::testing {

enum class Backend { kSqlite, kPostgres };

std::string BackendName(const ::testing::TestParamInfo<Backend>& info);

// A fresh, empty store's URL: `sqlite_url` for SQLite; for PostgreSQL a new
// database. FAILED_PRECONDITION when PostgreSQL is not installed.
Result<std::string> FreshStoreUrl(Backend backend, const std::string& sqlite_url);

// Opens the store `url` names (sqlite: or postgresql://).
Result<std::unique_ptr<app::RunStore>> OpenStore(const std::string& url, const Clock& clock);

}  // namespace diagd::store::testing

// Declares `const std::string var`, a fresh store URL for `backend`, or
// skips the test (PostgreSQL not installed) or fails it.
#define DIAGD_FRESH_STORE_URL(var, backend, sqlite_url)                                 \
  auto var##_or = ::diagd::store::testing::FreshStoreUrl(backend, sqlite_url);          \
  if (!var##_or && var##_or.error().code == ::diagd::ErrorCode::kFailedPrecondition) {  \
    GTEST_SKIP() << var##_or.error().message;                                           \
  }                                                                                     \
  ASSERT_TRUE(var##_or) << var##_or.error().ToString();                                 \
  const std::string var = *var##_or

// Runs the parameterized `suite` on both stores.
#define DIAGD_ON_BOTH_STORES(suite)                                                        \
  INSTANTIATE_TEST_SUITE_P(Stores, suite,                                                  \
                           ::testing::Values(::diagd::store::testing::Backend::kSqlite,    \
                                             ::diagd::store::testing::Backend::kPostgres), \
                           ::diagd::store::testing::BackendName)
