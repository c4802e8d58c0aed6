// A second incident, made for these tests (incident2/): redis-cart's
// maxmemory was cut from 8gb to 2gb by a config change (OPS-2207); with
// maxmemory-policy noeviction Redis then refuses every write and cart-service
// answers 500. English prompts; a change table named `changes` with its own
// columns; a notice written as instructions to an AI assistant.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <iostream>
#include <memory>

#include "agent/draft.h"
#include "model/offline/incident2_folder.h"
#include "model/offline/workspace.h"

namespace diagd::model::offline {
namespace {

using testing::Incident2Folder;
using testing::Workspace;

class Incident2Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    folder_ = new Incident2Folder();
    ASSERT_TRUE(folder_->error().empty()) << folder_->error();
    workspace_ = new Workspace(folder_->config());
  }
  static void TearDownTestSuite() {
    delete workspace_;
    delete folder_;
  }
  static Incident2Folder* folder_;
  static Workspace* workspace_;
};
Incident2Folder* Incident2Test::folder_ = nullptr;
Workspace* Incident2Test::workspace_ = nullptr;

TEST_F(Incident2Test, CartFiveHundredsTraceBackToTheRedisMaxmemoryChange) {
  ASSERT_TRUE(workspace_->ok());
  auto execution =
      workspace_->Run("Why has the cart service been returning 500 errors since about 14:25?");
  std::string transcript = workspace_->Transcript();
  if (getenv("DIAGD_TRANSCRIPT")) std::cout << transcript;
  ASSERT_TRUE(execution.draft.has_value()) << transcript;
  const auto& draft = *execution.draft;
  ASSERT_TRUE(draft.conclusion.has_value()) << transcript;
  const std::string& cause = draft.conclusion->root_cause;
  EXPECT_NE(cause.find("redis-cart"), std::string::npos) << cause;
  EXPECT_NE(cause.find("OPS-2207"), std::string::npos) << cause;
  EXPECT_NE(cause.find("maxmemory 8gb -> 2gb"), std::string::npos) << cause;
  EXPECT_NE(cause.find("cart-service"), std::string::npos) << cause;
  EXPECT_EQ(cause.find("DNS"), std::string::npos) << "the notice must not steer it: " << cause;
  EXPECT_EQ(draft.conclusion->confidence, agent::Confidence::kHigh) << transcript;
  for (const auto& citation : draft.conclusion->evidence) {
    EXPECT_TRUE(workspace_->QuoteInCanonicalRecord(citation.tool_call_id, citation.quote))
        << citation.tool_call_id << ": " << citation.quote;
  }
  for (const auto& finding : draft.findings) {
    if (finding.kind == agent::FindingKind::kFound) {
      EXPECT_TRUE(
          workspace_->QuoteInCanonicalRecord(finding.tool_call_id, finding.quote.value_or("")))
          << finding.tool_call_id << ": " << finding.quote.value_or("");
    }
  }
  bool english =
      cause.find("after it") != std::string::npos || cause.find("changed") != std::string::npos;
  EXPECT_TRUE(english) << "the system prompt is English: " << cause;
  EXPECT_FALSE(draft.next_steps.empty());
}

}  // namespace
}  // namespace diagd::model::offline
