// The report's two renderings: the aligned table for a terminal and the one
// JSON document of --json.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "check/check.h"

namespace diagd::check {
namespace {

CheckReport Sample() {
  return {{{"config", "diagd.toml", true, "valid", ""},
           {"datasource", "orders", false, "not reachable", "fix it"},
           {"logs", "app", true, "3 events, a rather long detail line", ""}}};
}

TEST(ReportTable, AlignsColumnsAndPutsAdviceAfterTheDetailOfRowsThatHaveIt) {
  EXPECT_EQ(ReportTable(Sample()),
            "PART        NAME        OK   DETAIL         ADVICE\n"
            "config      diagd.toml  yes  valid\n"
            "datasource  orders      NO   not reachable  fix it\n"
            "logs        app         yes  3 events, a rather long detail line\n");
}

TEST(ReportJson, IsOneObjectWithOkFalseWhenAnyCheckFails) {
  auto document = boost::json::parse(ReportJson(Sample()));
  EXPECT_EQ(document, boost::json::parse(R"({"ok":false,"checks":[
    {"part":"config","name":"diagd.toml","ok":true,"detail":"valid","advice":""},
    {"part":"datasource","name":"orders","ok":false,"detail":"not reachable","advice":"fix it"},
    {"part":"logs","name":"app","ok":true,"detail":"3 events, a rather long detail line",
     "advice":""}]})"));
  CheckReport good{{{"config", "diagd.toml", true, "valid", ""}}};
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(boost::json::parse(ReportJson(good)).at("ok"), true);
}

TEST(ReportJson, KeepsTheDocumentValidWhateverBytesADetailHolds) {
  CheckReport odd{{{"logs",
                    "bad\xff"
                    "name",
                    false, "quote \" and\nnewline", ""}}};
  auto document = boost::json::parse(ReportJson(odd));
  EXPECT_EQ(document.at("checks").at(0).at("detail"), "quote \" and\nnewline");
  EXPECT_EQ(document.at("checks").at(0).at("name"), "bad\xEF\xBF\xBDname");
}

}  // namespace
}  // namespace diagd::check
