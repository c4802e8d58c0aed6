#include "model/offline/observation_text.h"

#include <algorithm>
#include <boost/json.hpp>

#include "core/json.h"
#include "core/text.h"
#include "model/offline/case_file.h"
#include "model/offline/text_match.h"

namespace diagd::model::offline {
namespace {

namespace bj = boost::json;

constexpr std::size_t kExtendedQuoteCodePoints = 12;
constexpr std::size_t kMaxSearchedQuoteCodePoints = 400;

// Code points of `s` with the byte offset each starts at (one more entry at
// the end for the total size).
struct CodePoints {
  std::vector<char32_t> points;
  std::vector<std::size_t> offsets;
};

CodePoints Decode(const std::string& s) {
  CodePoints out;
  for (std::size_t i = 0; i < s.size();) {
    text::CodePoint cp = text::DecodeCodePoint(s, i);
    out.points.push_back(cp.value);
    out.offsets.push_back(i);
    i += cp.length;
  }
  out.offsets.push_back(s.size());
  return out;
}

// The longest common run of code points of `a` and `b`, as a substring of b.
std::string LongestCommonRun(const CodePoints& a, const std::string& b_text, const CodePoints& b) {
  std::vector<int> previous(b.points.size() + 1, 0), current(b.points.size() + 1, 0);
  int best = 0;
  std::size_t best_end = 0;
  for (std::size_t i = 1; i <= a.points.size(); ++i) {
    for (std::size_t j = 1; j <= b.points.size(); ++j) {
      current[j] = a.points[i - 1] == b.points[j - 1] ? previous[j - 1] + 1 : 0;
      if (current[j] > best) {
        best = current[j];
        best_end = j;
      }
    }
    std::swap(previous, current);
  }
  if (best == 0) return {};
  std::size_t begin = b.offsets[best_end - static_cast<std::size_t>(best)];
  return b_text.substr(begin, b.offsets[best_end] - begin);
}

void AddString(const bj::object& object, std::string_view key, bool document, bool instruction,
               std::vector<QuotableText>& out) {
  if (auto value = json::GetString(object, key))
    out.push_back({std::string(*value), document, instruction});
}

}  // namespace

std::vector<QuotableText> QuotableTexts(const std::string& observation_json) {
  std::vector<QuotableText> texts;
  auto parsed = json::Parse(observation_json);
  if (!parsed || !parsed->is_object()) return texts;
  const auto& view = parsed->as_object();
  if (const auto* evidence = view.if_contains("evidence"); evidence && evidence->is_array()) {
    for (const auto& item : evidence->as_array()) {
      if (!item.is_object()) continue;
      const auto& o = item.as_object();
      std::string whole = std::string(json::GetString(o, "title").value_or("")) + "\n" +
                          std::string(json::GetString(o, "excerpt").value_or(""));
      bool instruction = IsInstructionLike(whole);
      AddString(o, "excerpt", true, instruction, texts);
      AddString(o, "title", true, instruction, texts);
    }
  }
  if (const auto* events = view.if_contains("events"); events && events->is_array()) {
    for (const auto& item : events->as_array()) {
      if (item.is_object()) AddString(item.as_object(), "message", false, false, texts);
    }
  }
  if (const auto* rows = view.if_contains("rows"); rows && rows->is_array()) {
    for (const auto& row : rows->as_array()) {
      if (!row.is_array()) continue;
      for (const auto& cell : row.as_array()) {
        if (cell.is_string()) {
          texts.push_back({std::string(cell.as_string()), false, false});
        } else if (cell.is_number() || cell.is_bool()) {
          texts.push_back({json::Serialize(cell), false, false});
        }
      }
    }
  }
  // A metrics series: its label values and its summary line, nothing else
  // (a point's time or value alone is no quote).
  if (const auto* series = view.if_contains("series"); series && series->is_array()) {
    for (const auto& item : series->as_array()) {
      if (!item.is_object()) continue;
      const auto& o = item.as_object();
      if (const auto* labels = o.if_contains("labels"); labels && labels->is_object()) {
        for (const auto& [key, value] : labels->as_object()) {
          if (value.is_string()) texts.push_back({std::string(value.as_string()), false, false});
        }
      }
      AddString(o, "summary", false, false, texts);
    }
  }
  return texts;
}

std::optional<std::string> FixQuote(const std::string& quote,
                                    const std::vector<QuotableText>& texts) {
  std::string trimmed(Trim(quote));
  if (trimmed.empty()) return std::nullopt;
  for (const auto& candidate : texts) {
    std::size_t at = candidate.text.find(trimmed);
    if (at == std::string::npos) continue;
    if (text::CodePointCount(trimmed) >= 4) return trimmed;
    // Too short: the same place, a little longer.
    std::string longer = text::TruncateCodePoints(std::string_view(candidate.text).substr(at),
                                                  kExtendedQuoteCodePoints);
    if (text::CodePointCount(longer) >= 4) return longer;
  }
  // A common run is searched for in a bounded quote: quotes are short, and
  // the search is quadratic.
  CodePoints wanted = Decode(text::TruncateCodePoints(trimmed, kMaxSearchedQuoteCodePoints));
  std::size_t needed =
      std::max<std::size_t>(4, std::min(kExtendedQuoteCodePoints, wanted.points.size() / 2));
  std::string best;
  std::size_t best_points = 0;
  for (const auto& candidate : texts) {
    CodePoints have = Decode(candidate.text);
    std::string run = LongestCommonRun(wanted, candidate.text, have);
    std::string clean(Trim(run));
    std::size_t points = text::CodePointCount(clean);
    if (points > best_points && candidate.text.find(clean) != std::string::npos) {
      best = clean;
      best_points = points;
    }
  }
  if (best_points >= needed) return best;
  return std::nullopt;
}

}  // namespace diagd::model::offline
