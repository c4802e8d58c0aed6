// The run store's reads for the web console (schema v5, docs/console.md):
// the question, the filtered and cursor-paged list, a conversation's pages,
// the observations kept with a finished run and their purge.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/clock.h"
#include "store/sqlite_run_store.h"
#include "store/store_backends.h"
#include "store/store_test_support.h"

namespace diagd::store {
namespace {

using testing::At;
using testing::RunningRun;

class RunQueriesTest : public ::testing::TestWithParam<testing::Backend> {
 protected:
  void SetUp() override {
    DIAGD_FRESH_STORE_URL(url, GetParam(), "sqlite::memory:");
    auto opened = testing::OpenStore(url, clock_);
    ASSERT_TRUE(opened) << opened.error().ToString();
    store_ = std::move(*opened);
  }

  // A finished run; `route`, `status` and `outcome` as stored.
  void Finish(const std::string& run_id, WallTime created_at, const std::string& question,
              const std::string& route = "DIAGNOSIS", const std::string& status = "SUCCEEDED",
              const std::string& outcome = "FALLBACK", const std::string& conversation = "conv-1",
              std::vector<app::StoredObservation> observations = {}) {
    app::RunRecord run = RunningRun(run_id, created_at, conversation);
    run.question = question;
    run.route = route;
    run.status = status;
    run.internal_status = status == "RUNNING" ? "RUNNING" : "COMPLETED";
    if (status != "RUNNING") {
      run.release_outcome = outcome;
      run.finished_at = created_at + std::chrono::seconds(2);
    }
    run.observations = std::move(observations);
    ASSERT_TRUE(store_->FinishRun(run));
  }

  std::vector<std::string> Ids(const app::RunQuery& query) {
    auto page = store_->ListRunPage(query);
    EXPECT_TRUE(page) << page.error().ToString();
    std::vector<std::string> ids;
    if (page) {
      for (const auto& run : page->runs) ids.push_back(run.run_id);
    }
    return ids;
  }

  ManualClock clock_{At(0)};
  std::unique_ptr<app::RunStore> store_;
};

TEST_P(RunQueriesTest, TheQuestionIsStoredWholeAndReadBack) {
  std::string question(700, 'x');
  Finish("run-1", At(1), question);
  auto run = store_->GetRun("run-1");
  ASSERT_TRUE(run && run->has_value());
  EXPECT_EQ((*run)->question, question);
  auto page = store_->ListRunPage({});
  ASSERT_TRUE(page);
  ASSERT_EQ(page->runs.size(), 1u);
  EXPECT_EQ(page->runs[0].question, question);
  ASSERT_TRUE(page->runs[0].finished_at.has_value());
  EXPECT_EQ(*page->runs[0].finished_at, At(2001));
}

TEST_P(RunQueriesTest, PagesCoverEveryRunOnceNewestFirstThroughTies) {
  // 53 runs, three to a millisecond: ties are broken by run id.
  std::vector<std::string> expected;
  for (int i = 0; i < 53; ++i) {
    char id[16];
    std::snprintf(id, sizeof(id), "run-%02d", i);
    Finish(id, At(i / 3), "q");
    expected.insert(expected.begin(), id);
  }
  app::RunQuery query;
  query.limit = 7;
  std::vector<std::string> seen;
  int pages = 0;
  while (true) {
    auto page = store_->ListRunPage(query);
    ASSERT_TRUE(page) << page.error().ToString();
    ++pages;
    for (const auto& run : page->runs) seen.push_back(run.run_id);
    if (!page->next) break;
    EXPECT_EQ(page->runs.size(), 7u);
    query.before = page->next;
    ASSERT_LT(pages, 20);
  }
  EXPECT_EQ(pages, 8);  // 7 full pages and one of 4
  EXPECT_EQ(seen, expected);
}

TEST_P(RunQueriesTest, AFullLastPageHasNoNext) {
  for (int i = 0; i < 4; ++i) Finish("run-" + std::to_string(i), At(i), "q");
  app::RunQuery query;
  query.limit = 2;
  auto first = store_->ListRunPage(query);
  ASSERT_TRUE(first && first->next);
  query.before = first->next;
  auto second = store_->ListRunPage(query);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->runs.size(), 2u);
  EXPECT_FALSE(second->next.has_value());
}

TEST_P(RunQueriesTest, FiltersAreAndedAndPageTogether) {
  Finish("d-ok", At(1), "a", "DIAGNOSIS", "SUCCEEDED", "DIAGNOSIS");
  Finish("d-fb", At(2), "a", "DIAGNOSIS", "SUCCEEDED", "FALLBACK");
  Finish("d-failed", At(3), "a", "DIAGNOSIS", "FAILED", "FALLBACK");
  Finish("k-answer", At(4), "a", "KNOWLEDGE", "SUCCEEDED", "ANSWER");
  Finish("c-answer", At(5), "a", "SYSTEM_CHAT", "SUCCEEDED", "ANSWER");
  Finish("running", At(6), "a", "DIAGNOSIS", "RUNNING");

  app::RunQuery route;
  route.route = "DIAGNOSIS";
  EXPECT_EQ(Ids(route), (std::vector<std::string>{"running", "d-failed", "d-fb", "d-ok"}));
  app::RunQuery outcome;
  outcome.release_outcome = "ANSWER";
  EXPECT_EQ(Ids(outcome), (std::vector<std::string>{"c-answer", "k-answer"}));
  app::RunQuery status;
  status.status = "FAILED";
  EXPECT_EQ(Ids(status), (std::vector<std::string>{"d-failed"}));
  app::RunQuery both;
  both.route = "DIAGNOSIS";
  both.release_outcome = "FALLBACK";
  both.status = "SUCCEEDED";
  EXPECT_EQ(Ids(both), (std::vector<std::string>{"d-fb"}));

  app::RunQuery paged;
  paged.route = "DIAGNOSIS";
  paged.limit = 3;
  auto first = store_->ListRunPage(paged);
  ASSERT_TRUE(first && first->next);
  paged.before = first->next;
  EXPECT_EQ(Ids(paged), (std::vector<std::string>{"d-ok"}));
}

TEST_P(RunQueriesTest, QuestionTextMatchesLiterallyWithLikeMetacharacters) {
  Finish("percent", At(1), "error rate 100% on orders");
  Finish("hundred", At(2), "error rate 1000 on orders");
  Finish("underscore", At(3), "table order_items is slow");
  Finish("no-underscore", At(4), "table orderXitems is slow");
  Finish("backslash", At(5), R"(path C:\logs\app failed)");
  Finish("no-backslash", At(6), "path C:logsapp failed");
  Finish("upper", At(7), "Payment DB Timeout");

  auto contains = [&](const std::string& text) {
    app::RunQuery query;
    query.question_contains = text;
    return Ids(query);
  };
  EXPECT_EQ(contains("100%"), (std::vector<std::string>{"percent"}));
  EXPECT_EQ(contains("%"), (std::vector<std::string>{"percent"}));
  EXPECT_EQ(contains("order_items"), (std::vector<std::string>{"underscore"}));
  EXPECT_EQ(contains("_"), (std::vector<std::string>{"underscore"}));
  EXPECT_EQ(contains(R"(C:\logs)"), (std::vector<std::string>{"backslash"}));
  EXPECT_EQ(contains(R"(\)"), (std::vector<std::string>{"backslash"}));
  EXPECT_EQ(contains("payment db"), (std::vector<std::string>{"upper"}));
  EXPECT_EQ(contains("' OR 1=1 --"), (std::vector<std::string>{}));
}

TEST_P(RunQueriesTest, AConversationsRunsComeOldestFirst) {
  Finish("second", At(20), "and then?", "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-a");
  Finish("other", At(15), "unrelated", "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-b");
  Finish("first", At(10), "why?", "KNOWLEDGE", "SUCCEEDED", "ANSWER", "conv-a");
  auto page = store_->ConversationPage({"conv-a"});
  ASSERT_TRUE(page) << page.error().ToString();
  const auto& runs = page->runs;
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].run_id, "first");
  EXPECT_EQ(runs[0].question, "why?");
  EXPECT_EQ(runs[0].route, "KNOWLEDGE");
  EXPECT_EQ(runs[1].run_id, "second");
  EXPECT_FALSE(page->next);
  auto none = store_->ConversationPage({"conv-unknown"});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->runs.empty());
  EXPECT_FALSE(none->next);
}

// Every page of `conversation` in turn, each checked against the limit and
// the byte budget (which only a page's first run may pass alone).
std::vector<std::vector<std::string>> AllPages(app::RunStore& store, app::ConversationQuery query) {
  std::vector<std::vector<std::string>> pages;
  while (true) {
    auto page = store.ConversationPage(query);
    EXPECT_TRUE(page) << page.error().ToString();
    if (!page) return pages;
    std::int64_t bytes = 0;
    std::vector<std::string> ids;
    for (const auto& run : page->runs) {
      ids.push_back(run.run_id);
      bytes += static_cast<std::int64_t>(run.question.size());
    }
    EXPECT_LE(page->runs.size(), static_cast<std::size_t>(query.limit));
    if (page->runs.size() > 1) {
      EXPECT_LE(bytes, query.max_question_bytes);
    }
    pages.push_back(std::move(ids));
    if (!page->next || pages.size() > 50) return pages;
    query.after = *page->next;
  }
}

TEST_P(RunQueriesTest, AConversationIsReadInPagesBoundedInRunsAndQuestionBytes) {
  // Five runs, two of them at the same millisecond (the run id breaks the
  // tie), with questions of 300, 300, 300, 1,000 and 10 bytes.
  Finish("c", At(30), std::string(300, 'c'), "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-a");
  Finish("a", At(10), std::string(300, 'a'), "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-a");
  Finish("b", At(10), std::string(300, 'b'), "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-a");
  Finish("d", At(40), std::string(1000, 'd'), "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-a");
  Finish("e", At(50), "short", "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-a");
  Finish("x", At(20), "elsewhere", "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-b");
  using Pages = std::vector<std::vector<std::string>>;
  // By count alone.
  EXPECT_EQ(AllPages(*store_, {"conv-a", 2}), (Pages{{"a", "b"}, {"c", "d"}, {"e"}}));
  EXPECT_EQ(AllPages(*store_, {"conv-a", 5}), (Pages{{"a", "b", "c", "d", "e"}}));
  // By bytes: at most 700 a page, but a run larger than that alone.
  EXPECT_EQ(AllPages(*store_, {"conv-a", 200, std::nullopt, 700}),
            (Pages{{"a", "b"}, {"c"}, {"d"}, {"e"}}));
  EXPECT_EQ(AllPages(*store_, {"conv-a", 200, std::nullopt, 1}),
            (Pages{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}));
  // A budget the page fills exactly: the next run starts the next page.
  EXPECT_EQ(AllPages(*store_, {"conv-a", 200, std::nullopt, 900}),
            (Pages{{"a", "b", "c"}, {"d"}, {"e"}}));
  EXPECT_FALSE(store_->ConversationPage({"conv-a", 0}));
  EXPECT_FALSE(store_->ConversationPage({"conv-a", 201}));
}

TEST_P(RunQueriesTest, ObservationsAreKeptWithTheFinishedRun) {
  Finish("run-1", At(1), "q", "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-1",
         {{"call_1", R"({"tool_call_id":"call_1","evidence_status":"NO_EVIDENCE"})"},
          {"call_2", R"({"tool_call_id":"call_2","evidence_status":"ERROR"})"}});
  auto found = store_->GetObservation("run-1", "call_2");
  ASSERT_TRUE(found && found->has_value());
  EXPECT_EQ(**found, R"({"tool_call_id":"call_2","evidence_status":"ERROR"})");
  auto unknown_call = store_->GetObservation("run-1", "call_9");
  ASSERT_TRUE(unknown_call);
  EXPECT_FALSE(unknown_call->has_value());
  auto unknown_run = store_->GetObservation("run-9", "call_1");
  ASSERT_TRUE(unknown_run);
  EXPECT_FALSE(unknown_run->has_value());
}

TEST_P(RunQueriesTest, PurgeDeletesOnlyObservationsStoredBeforeTheCutoff) {
  // Observations age by when the store took them (its clock), whatever
  // the run's own times: here the runs claim the same times.
  clock_.Advance(At(2000) - At(0));
  Finish("old", At(0), "q", "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-1",
         {{"call_1", "{}"}, {"call_2", "{}"}});
  clock_.Advance(At(12000) - At(2000));
  Finish("new", At(0), "q", "DIAGNOSIS", "SUCCEEDED", "FALLBACK", "conv-1",
         {{"call_1", "{}"}});
  auto purged = store_->PurgeObservations(At(5000));
  ASSERT_TRUE(purged) << purged.error().ToString();
  EXPECT_EQ(*purged, 2);
  auto gone = store_->GetObservation("old", "call_1");
  ASSERT_TRUE(gone);
  EXPECT_FALSE(gone->has_value());
  auto kept = store_->GetObservation("new", "call_1");
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->has_value());
  // The run itself stays.
  auto run = store_->GetRun("old");
  ASSERT_TRUE(run && run->has_value());
  auto again = store_->PurgeObservations(At(5000));
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, 0);
}

TEST_P(RunQueriesTest, ListLimitOutsideItsRangeIsRefused) {
  app::RunQuery query;
  query.limit = 0;
  EXPECT_FALSE(store_->ListRunPage(query));
  query.limit = 201;
  EXPECT_FALSE(store_->ListRunPage(query));
}

DIAGD_ON_BOTH_STORES(RunQueriesTest);

}  // namespace
}  // namespace diagd::store
