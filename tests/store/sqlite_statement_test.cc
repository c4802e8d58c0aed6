#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "store/sqlite_db.h"

namespace diagd::store {
namespace {

std::unique_ptr<SqliteDb> MemoryDb() {
  auto db = SqliteDb::Open(":memory:");
  EXPECT_TRUE(db) << db.error().ToString();
  if (!db) return nullptr;
  EXPECT_TRUE((*db)->Exec("CREATE TABLE t (k INTEGER, a TEXT, b TEXT)", "test"));
  return std::move(*db);
}

std::vector<std::string> Rows(SqliteDb& db) {
  std::vector<std::string> out;
  auto stmt = db.Prepare("SELECT a, coalesce(b, 'NULL') FROM t ORDER BY k", "test");
  EXPECT_TRUE(stmt);
  while (stmt) {
    auto row = stmt->Step();
    EXPECT_TRUE(row);
    if (!row || !*row) break;
    out.push_back(stmt->Text(0) + "|" + stmt->Text(1));
  }
  return out;
}

// A temporary, an optional temporary and a view are copied when bound: the
// row holds what they said, though their bytes are gone or overwritten
// before the statement runs (AddressSanitizer would see a read of them).
TEST(SqliteStatementTest, ATemporaryOrAViewBoundIsCopied) {
  auto db = MemoryDb();
  ASSERT_TRUE(db);
  std::string buffer = "viewed text";
  {
    auto insert = db->Prepare("INSERT INTO t (k, a, b) VALUES (?1, ?2, ?3)", "test");
    ASSERT_TRUE(insert);
    insert->Bind(1, std::int64_t{1})
        .Bind(2, std::string("a temporary string, longer than a small buffer"))
        .BindOptional(3, std::optional<std::string>("an optional temporary, long as well"));
    ASSERT_TRUE(insert->Run());
  }
  {
    auto insert = db->Prepare("INSERT INTO t (k, a, b) VALUES (?1, ?2, ?3)", "test");
    ASSERT_TRUE(insert);
    insert->Bind(1, std::int64_t{2}).Bind(2, std::string_view(buffer)).BindNull(3);
    buffer.assign(buffer.size(), '#');
    ASSERT_TRUE(insert->Run());
  }
  EXPECT_EQ(Rows(*db),
            (std::vector<std::string>{"a temporary string, longer than a small buffer|an "
                                      "optional temporary, long as well",
                                      "viewed text|NULL"}));
}

// A string the caller holds is read where it is when the statement runs,
// not copied when bound (the run store binds every field of a run this
// way): what it holds then is what is written.
TEST(SqliteStatementTest, AHeldStringIsReadWhenTheStatementRuns) {
  auto db = MemoryDb();
  ASSERT_TRUE(db);
  std::string held = "as bound";
  std::optional<std::string> held_optional = "optional as bound";
  auto insert = db->Prepare("INSERT INTO t (k, a, b) VALUES (?1, ?2, ?3)", "test");
  ASSERT_TRUE(insert);
  insert->Bind(1, std::int64_t{1}).Bind(2, held).BindOptional(3, held_optional);
  held[0] = 'A';
  (*held_optional)[0] = 'O';
  ASSERT_TRUE(insert->Run());
  EXPECT_EQ(Rows(*db), (std::vector<std::string>{"As bound|Optional as bound"}));
}

}  // namespace
}  // namespace diagd::store
