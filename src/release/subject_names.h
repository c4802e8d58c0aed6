// The subjects a question names (docs/specs/release.md): what a conclusion must
// be about to answer it. Two kinds:
//
// - instance names written in Latin letters, with a digit or a joiner
//   (- _ . / :) and at least one letter: `order-events`, `db-7`,
//   `/v2/invoices`, `v2.3.1`. Plain words (`MySQL`) and bare numbers are not.
//   Quantities and times an SRE writes beside them are not either: `5xx`,
//   `500ms`, `30s`, `2h`, `10GB`, `p99`, `HTTP/1.1`, `2026-11-29T09:55:00Z`,
//   `09:10`, a URL's scheme, `e.g.` (docs/specs/release.md lists them all);
// - a configured log topic, datasource or table name, or a topic's alias
//   (`订单服务`), that the question contains.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

namespace diagd::release {

// A name people use for a log topic (`[tools.logs.topics.NAME] aliases`).
struct TopicAlias {
  std::string alias;
  std::string topic;
};

// The configured names a question may contain.
struct SubjectVocabulary {
  std::vector<std::string> topics;
  std::vector<std::string> datasources;
  std::vector<std::string> tables;
  std::vector<TopicAlias> aliases;
};

struct Subject {
  std::string name;  // as the question writes it
  // Lower-case texts whose presence in data mentions the subject: the name;
  // a dotted version without its leading `v`; for an alias, the topic.
  std::vector<std::string> forms;
};

// The subjects of `questions` (the question and its conversation's earlier
// ones), each once (compared without case), in the order first written.
std::vector<Subject> SubjectsOf(const std::vector<std::string>& questions,
                                const SubjectVocabulary& vocabulary);

// True when `haystack` (lower case) holds `form` (lower case) where a
// Latin letter or digit does not continue it: `db-7` is in `db-7 down` and
// `db-7:3306`, not in `db-70`.
bool ContainsName(const std::string& haystack, const std::string& form);

}  // namespace diagd::release
