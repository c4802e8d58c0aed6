// The web console's files (docs/console.md), compiled into the binary
// from src/server/console/ by cmake/embed_console.cmake: each with its path
// under /ui/, its content type and a strong ETag (a hash of its bytes), so
// a browser revalidates with If-None-Match and gets 304 while it has the
// current file. The console's own routes are in console_routes.cc.
//
// Thread safety: constant data.
#pragma once

#include <span>
#include <string_view>

namespace diagd::server {

struct ConsoleAsset {
  std::string_view path;          // "index.html", "app.js": relative to /ui/
  std::string_view content_type;  // "text/html; charset=utf-8"...
  std::string_view etag;          // quoted, as sent: "\"3f2a...\""
  std::string_view body;
};

// Every asset, sorted by path.
std::span<const ConsoleAsset> ConsoleAssets();

}  // namespace diagd::server
