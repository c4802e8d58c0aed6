#include "tools/logs/log_query.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/text.h"
#include "tools/logs/log_line.h"

namespace diagd::tools::logs {
namespace {

Result<FieldClause> ReadField(const QueryTerm& term) {
  bool is_level = term.kind == QueryTerm::Kind::kLevel;
  FieldClause clause;
  clause.negated = term.negated;
  std::string_view rest = term.value;
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty()) continue;
    clause.values.push_back(is_level ? NormalizeLevelText(item) : text::CaseFold(item));
  }
  if (clause.values.empty()) {
    return Error::InvalidArgument(is_level ? "level: needs a value, e.g. level:ERROR"
                                           : "service: needs a value, e.g. service:gateway");
  }
  return clause;
}

bool ClausesMatch(const std::vector<FieldClause>& clauses, std::string_view name) {
  return std::all_of(clauses.begin(), clauses.end(), [&](const FieldClause& clause) {
    bool listed = !name.empty() && std::find(clause.values.begin(), clause.values.end(), name) !=
                                       clause.values.end();
    return listed != clause.negated;
  });
}

}  // namespace

bool IsFoldStable(char32_t cp) {
  return (cp >= 0x2010 && cp <= 0x2027) ||  // dashes, quotes, ellipsis: — “ ” …
         (cp >= 0x2030 && cp <= 0x205E) ||  // per mille, primes, ※
         (cp >= 0x3000 && cp <= 0x303F) ||  // CJK symbols and punctuation: 、。「」
         (cp >= 0x3400 && cp <= 0x4DBF) ||  // CJK unified ideographs extension A
         (cp >= 0x4E00 && cp <= 0x9FFF) ||  // CJK unified ideographs
         (cp >= 0xAC00 && cp <= 0xD7A3) ||  // Hangul syllables
         (cp >= 0xFF01 && cp <= 0xFF20) ||  // fullwidth punctuation and digits: ，：（）
         (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65);
}

Result<LogQuery> ParseLogQuery(std::string_view text) {
  auto terms = SplitQueryTerms(text);
  if (!terms) return Unexpected(terms.error());
  auto bounds = BoundsOf(*terms);
  if (!bounds) return Unexpected(bounds.error());
  LogQuery query;
  query.bounds = *bounds;
  for (const auto& term : *terms) {
    switch (term.kind) {
      case QueryTerm::Kind::kLevel:
      case QueryTerm::Kind::kService: {
        auto clause = ReadField(term);
        if (!clause) return Unexpected(clause.error());
        (term.kind == QueryTerm::Kind::kLevel ? query.levels : query.services)
            .push_back(std::move(*clause));
        break;
      }
      case QueryTerm::Kind::kText:
        if (term.value.empty()) break;  // "" constrains nothing
        (term.negated ? query.excluded : query.required).push_back(text::CaseFold(term.value));
        break;
      case QueryTerm::Kind::kAfter:
      case QueryTerm::Kind::kBefore:
        break;  // in query.bounds
    }
  }
  return query;
}

bool LevelMatches(const LogQuery& query, std::string_view level) {
  return ClausesMatch(query.levels, level);
}

bool ServiceMatches(const LogQuery& query, std::string_view folded_service) {
  return ClausesMatch(query.services, folded_service);
}

namespace {

// Lower-cases 8 ASCII bytes at once (the usual SWAR range test: a byte's
// high bit tells whether adding (0x80 - 'A') carried it past 'A'-1 and
// (0x80 - 'Z' - 1) past 'Z'); false, writing nothing, when any byte is not
// ASCII. Log lines are mostly ASCII: this is most of what matching costs.
bool FoldAsciiWord(const char* in, char* out) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  std::uint64_t word;
  std::memcpy(&word, in, sizeof word);
  if ((word & kHigh) != 0) return false;
  std::uint64_t from_a = word + kOnes * (0x80 - 'A');
  std::uint64_t past_z = word + kOnes * (0x80 - 'Z' - 1);
  word |= (from_a & ~past_z & kHigh) >> 2;  // 0x80 >> 2 is the 0x20 of lower case
  std::memcpy(out, &word, sizeof word);
  return true;
}

}  // namespace

void MessageMatcher::Fold(std::string_view text) {
  // ASCII folds to its lower case and fold-stable code points to themselves;
  // anything else takes the full Unicode fold the terms were given, so both
  // sides are compared in one form.
  folded_.resize(text.size());
  for (std::size_t i = 0; i < text.size();) {
    while (i + 8 <= text.size() && FoldAsciiWord(text.data() + i, folded_.data() + i)) i += 8;
    if (i >= text.size()) break;
    auto b0 = static_cast<unsigned char>(text[i]);
    if (b0 < 0x80) {
      folded_[i] = (b0 >= 'A' && b0 <= 'Z') ? static_cast<char>(b0 - 'A' + 'a') : text[i];
      ++i;
      continue;
    }
    if (text::CodePoint cp = text::DecodeCodePoint(text, i);
        cp.well_formed && IsFoldStable(cp.value)) {
      folded_.replace(i, cp.length, text.substr(i, cp.length));
      i += cp.length;
      continue;
    }
    folded_ = text::CaseFold(text);
    return;
  }
}

bool MessageMatcher::HasAllRequired() const {
  return std::all_of(query_.required.begin(), query_.required.end(), [this](const auto& term) {
    return std::string_view(folded_).find(term) != std::string_view::npos;
  });
}

bool MessageMatcher::Matches(std::string_view message) {
  if (!query_.HasTextTerms()) return true;
  Fold(message);
  if (!HasAllRequired()) return false;
  return std::none_of(query_.excluded.begin(), query_.excluded.end(), [this](const auto& term) {
    return std::string_view(folded_).find(term) != std::string_view::npos;
  });
}

bool MessageMatcher::MayMatch(std::string_view text) {
  if (query_.required.empty()) return true;
  Fold(text);
  return HasAllRequired();
}

}  // namespace diagd::tools::logs
