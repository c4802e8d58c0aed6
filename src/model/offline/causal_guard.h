// The semantic guard's part of the method (docs/offline-provider.md): what
// a conclusion's cited evidence must not show, whoever wrote it (this
// provider's agent or an LLM behind another component). A conclusion is
// a cause and the failure it explains, each seen: evidence from one tool
// call alone is a link, not a chain; a cited change made after the cited
// failure was already logged is a reaction to it, not its cause; a cited
// change that says it touches nothing that runs ("log format only") is
// innocent by its own words.
//
// Thread safety: pure functions.
#pragma once

#include <boost/json/array.hpp>
#include <optional>
#include <string>

namespace diagd::model::offline {

// `evidence`: the semantic guard request's evidence items ({tool_call_id,
// quote, observation}), quotes already checked against their observations.
// The reason the conclusion breaks the method, or nothing.
std::optional<std::string> CausalObjection(const boost::json::array& evidence);

}  // namespace diagd::model::offline
