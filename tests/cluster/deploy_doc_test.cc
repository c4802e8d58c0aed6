// docs/deploy.md shows users the nginx configuration the cluster tests run
// nginx with: its `nginx` block is DiagdProxyConfig rendered with the
// doc's example addresses, so the doc cannot drift from what is tested.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "testing/nginx_server.h"

namespace diagd::cluster_testing {
namespace {

TEST(DeployDoc, TheNginxBlockIsTheOneTheTestsRun) {
  std::ifstream in(std::string(DIAGD_SOURCE_DIR) + "/docs/deploy.md");
  ASSERT_TRUE(in) << "docs/deploy.md is missing";
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  const std::string open = "```nginx\n";
  auto start = text.find(open);
  ASSERT_NE(start, std::string::npos) << "docs/deploy.md has no ```nginx block";
  start += open.size();
  auto end = text.find("```", start);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(text.substr(start, end - start),
            testing::DiagdProxyConfig("80", {"10.0.0.11:8080", "10.0.0.12:8080", "10.0.0.13:8080"}))
      << "change docs/deploy.md and tests/testing/nginx_server.cc together";
}

}  // namespace
}  // namespace diagd::cluster_testing
