#include "release/subject_check.h"

#include <algorithm>
#include <variant>

#include "core/overloaded.h"
#include "core/text.h"
#include "release/cited_record.h"
#include "tools/mysql/sql_lexer.h"

namespace diagd::release {
namespace {

// What one call of the run offers the check: its mention texts.
struct ReadCall {
  std::string tool_call_id;
  std::vector<std::string> texts;
};

bool Mentions(const std::vector<std::string>& texts, const Subject& subject) {
  for (const auto& text : texts) {
    for (const auto& form : subject.forms) {
      if (ContainsName(text, form)) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> TablesRead(const std::string& sql) {
  std::vector<tools::sql::Token> code;
  for (const auto& token : tools::sql::Lex(sql, tools::sql::LexOptions::MySql()).tokens) {
    if (tools::sql::IsCode(token)) code.push_back(token);
  }
  auto is_name = [&](std::size_t i) {
    return i < code.size() && (code[i].kind == tools::sql::TokenKind::kWord ||
                               code[i].kind == tools::sql::TokenKind::kQuotedIdentifier);
  };
  std::vector<std::string> tables;
  for (std::size_t i = 0; i + 1 < code.size(); ++i) {
    if (code[i].kind != tools::sql::TokenKind::kWord) continue;
    std::string keyword = text::AsciiUpper(code[i].text);
    if (keyword != "FROM" && keyword != "JOIN") continue;
    std::size_t at = i + 1;
    if (!is_name(at)) continue;  // a subquery, or nothing
    while (at + 2 < code.size() && code[at + 1].text == "." && is_name(at + 2)) at += 2;
    std::string table = text::AsciiLower(tools::sql::IdentifierName(code[at]));
    if (std::find(tables.begin(), tables.end(), table) == tables.end()) tables.push_back(table);
  }
  return tables;
}

std::vector<std::string> MentionTexts(const tools::ToolResult& result) {
  std::vector<std::string> texts;
  auto add = [&](const std::string& text) {
    if (!text.empty()) texts.push_back(text::AsciiLower(text));
  };
  std::visit(Overloaded{[&](const tools::DocumentsResult& r) {
                          for (const auto& item : r.evidence) {
                            add(item.document_id);
                            add(item.source);
                            add(item.title);
                            add(item.breadcrumb);
                            add(item.excerpt);
                          }
                        },
                        [&](const tools::LogsResult& r) {
                          add(r.topic);
                          for (const auto& event : r.events) {
                            if (event.service) add(*event.service);
                            add(event.message);
                          }
                        },
                        [&](const tools::MysqlResult& r) {
                          add(r.datasource);
                          for (auto& table : TablesRead(r.sql)) texts.push_back(std::move(table));
                          for (const auto& column : r.columns) add(column);
                          for (const auto& row : r.rows) {
                            for (const auto& cell : row) {
                              if (auto text = CellText(cell)) add(*text);
                            }
                          }
                        }},
             result);
  return texts;
}

SubjectReport SubjectCheck::Check(const std::string& run_id,
                                  const std::vector<std::string>& questions,
                                  const harness::ProgressSnapshot& snapshot,
                                  const agent::Conclusion& conclusion) const {
  // The calls that read something, and the tables they read: a table the
  // run read is a name the question may contain.
  std::vector<ReadCall> calls;
  SubjectVocabulary vocabulary = vocabulary_;
  for (const auto& entry : snapshot.entries) {
    ReadCitedRecord(store_, run_id, entry.tool_call_id, [&](const tools::CanonicalRecord& record) {
      if (tools::EvidenceStatusOf(record.result) == tools::EvidenceStatus::kError) return;
      calls.push_back({entry.tool_call_id, MentionTexts(record.result)});
      if (const auto* rows = std::get_if<tools::MysqlResult>(&record.result)) {
        for (auto& table : TablesRead(rows->sql)) vocabulary.tables.push_back(std::move(table));
      }
    });
  }

  SubjectReport report;
  std::vector<Subject> subjects = SubjectsOf(questions, vocabulary);
  if (subjects.empty()) return report;

  std::vector<const Subject*> mentioned;
  std::vector<const ReadCall*> mentioning;
  for (const auto& subject : subjects) {
    bool any = false;
    for (const auto& call : calls) {
      if (!Mentions(call.texts, subject)) continue;
      any = true;
      if (std::find(mentioning.begin(), mentioning.end(), &call) == mentioning.end()) {
        mentioning.push_back(&call);
      }
    }
    if (any) mentioned.push_back(&subject);
  }
  report.result = GuardResult::kFailed;
  if (mentioned.empty()) {
    for (const auto& subject : subjects) report.unmentioned.push_back(subject.name);
    return report;
  }
  for (const auto& citation : conclusion.evidence) {
    for (const ReadCall* call : mentioning) {
      if (call->tool_call_id == citation.tool_call_id) {
        report.result = GuardResult::kPassed;
        return report;
      }
    }
  }
  for (const Subject* subject : mentioned) report.unreached.push_back(subject->name);
  return report;
}

}  // namespace diagd::release
