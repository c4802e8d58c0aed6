// Server-Sent Events framing (the WHATWG event-stream format) for a run's
// events: `id:`, `event:` and `data:` lines and a blank line.
#pragma once

#include <string>

#include "app/run_events.h"

namespace diagd::server {

// One event's frame. Data with line breaks (never ours: JSON text from our
// writers has none) is split over several `data:` lines, as the format asks.
std::string SseFrame(const app::RunEvent& event);

// A comment line that keeps idle proxies from closing a quiet stream
// (docs/console.md), sent after server.sse_keepalive of quiet.
inline constexpr std::string_view kSseKeepAlive = ": keepalive\n\n";

}  // namespace diagd::server
