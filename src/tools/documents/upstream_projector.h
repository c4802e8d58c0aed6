// Projects an upstream retrieval service's answer onto the canonical
// documents result (docs/configuration.md, the `http` documents backend):
// only `document_id`, `source`, `title`, `breadcrumb` and an excerpt pass on,
// and a top-level `relevanceLevel` or `relevance_level` is normalized. Scores,
// retrieval and rerank traces, context packs, fallback attempts, metadata and
// full bodies are read past and never copied.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstddef>
#include <string>

#include "core/result.h"
#include "tools/tool_result.h"

namespace diagd::tools::documents {

// `upstream` must be an object with a `documents` array; each item needs a
// string `document_id` and either `excerpt` (used as is) or `content` (an
// excerpt of `max_excerpt_chars` is cut from it, centred on the first query
// term found). Items without id or text are skipped. The evidence status is
// left for canonicalization to derive. INVALID_ARGUMENT when the shape is
// wrong.
Result<DocumentsResult> ProjectUpstream(const boost::json::value& upstream,
                                        const std::string& query,
                                        std::size_t max_excerpt_chars);

// The excerpt of `content` that the projector cuts: `max_chars` code points
// centred on the first case-insensitive occurrence of a query term, or the
// start when none occurs. Always an exact substring of `content`.
std::string CutExcerpt(const std::string& content, const std::string& query,
                       std::size_t max_chars);

}  // namespace diagd::tools::documents
