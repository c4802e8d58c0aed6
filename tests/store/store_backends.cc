#include "store/store_backends.h"

#include "store/postgres_run_store.h"
#include "store/sqlite_run_store.h"
#include "testing/postgres_server.h"

namespace diagd::store::testing {

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

Result<std::string> FreshStoreUrl(Backend backend, const std::string& sqlite_url) {
  if (backend == Backend::kSqlite) return sqlite_url;
  Result<diagd::testing::PostgresServer*> server = diagd::testing::SharedPostgresServer();
  if (!server) return server.error();
  return (*server)->CreateDatabase();
}

Result<std::unique_ptr<app::RunStore>> OpenStore(const std::string& url, const Clock& clock) {
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    auto store = PostgresRunStore::Open(url, clock);
    if (!store) return store.error();
    return std::unique_ptr<app::RunStore>(std::move(*store));
  }
  auto store = SqliteRunStore::Open(url, clock);
  if (!store) return store.error();
  return std::unique_ptr<app::RunStore>(std::move(*store));
}

}  // namespace diagd::store::testing
