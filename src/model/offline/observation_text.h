// The quotable texts of a model observation (docs/specs/release.md): an
// evidence item's excerpt and title, an event's message, a cell's text (a
// number in its JSON form), a metrics series' label values and summary line. Used by the repair and the semantic guard, which
// receive observations as JSON text inside their user message.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace diagd::model::offline {

struct QuotableText {
  std::string text;
  bool from_document = false;     // an excerpt or title
  bool instruction_like = false;  // its document reads as instructions to an AI
};

// `observation_json`: one observation object as JSON text.
std::vector<QuotableText> QuotableTexts(const std::string& observation_json);

// A quote for `quote` that is an exact substring of one of `texts`: the
// quote itself (trimmed), a short quote extended to 12 characters, or the
// longest common run of at least min(12, half the quote) characters.
// Nothing when no text holds enough of it.
std::optional<std::string> FixQuote(const std::string& quote,
                                    const std::vector<QuotableText>& texts);

}  // namespace diagd::model::offline
