// GET / and GET /ui/...: the web console's files (console_assets.h), with
// the headers every console response carries (docs/console.md): a
// Content-Security-Policy that allows no inline script, nosniff, no
// referrer, no framing. Caching is `no-cache` plus a strong ETag: the
// files' names carry no hash, so a long max-age could keep an old page
// after an upgrade; revalidating costs one small 304.
//
// The page's default language is the server's `language` (a user's pick on
// the page wins): index.html is written with <html lang="en"> and served
// with lang="zh-CN" by a server that speaks Chinese; the page reads that
// attribute at start. That variant has its own ETag, so a browser never
// revalidates one language's page against the other's.
//
// Only the files in the table exist: a path is looked up as given, never
// mapped onto a file system, so no path (`..`, encoded or not) reaches
// anything else.
#include <algorithm>
#include <string>

#include "server/console_assets.h"
#include "server/exchange.h"
#include "server/server_impl.h"

namespace diagd::server {
namespace {

constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const ConsoleAsset* FindAsset(std::string_view path) {
  auto assets = ConsoleAssets();
  auto found = std::lower_bound(assets.begin(), assets.end(), path,
                                [](const ConsoleAsset& a, std::string_view p) { return a.path < p; });
  if (found == assets.end() || found->path != path) return nullptr;
  return &*found;
}

// RFC 9110 13.1.2: If-None-Match is `*` or a list of entity tags, compared
// weakly (a W/ prefix is ignored).
bool NoneMatchHits(std::string_view header, std::string_view etag) {
  while (!header.empty()) {
    std::size_t comma = header.find(',');
    std::string_view tag = header.substr(0, comma);
    header.remove_prefix(comma == std::string_view::npos ? header.size() : comma + 1);
    while (!tag.empty() && (tag.front() == ' ' || tag.front() == '\t')) tag.remove_prefix(1);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.remove_suffix(1);
    if (tag.starts_with("W/")) tag.remove_prefix(2);
    if (tag == "*" || tag == etag) return true;
  }
  return false;
}

struct ServedAsset {
  std::string_view content_type;
  std::string_view etag;
  std::string_view body;
};

constexpr std::string_view kEnglishRoot = "<html lang=\"en\">";
constexpr std::string_view kChineseRoot = "<html lang=\"zh-CN\">";

// index.html as a Chinese-speaking server sends it (built once).
ServedAsset ChineseIndex(const ConsoleAsset& index) {
  static const std::string body = [&] {
    std::string text(index.body);
    std::size_t at = text.find(kEnglishRoot);
    if (at != std::string::npos) text.replace(at, kEnglishRoot.size(), kChineseRoot);
    return text;
  }();
  static const std::string etag = [&] {
    std::string tag(index.etag);  // "\"hash\"": the variant is "\"hash-zh\""
    tag.insert(tag.size() - 1, "-zh");
    return tag;
  }();
  return {index.content_type, etag, body};
}

ServedAsset Serve(const ConsoleAsset& asset, config::Language language) {
  if (asset.path == "index.html" && language == config::Language::kZh) return ChineseIndex(asset);
  return {asset.content_type, asset.etag, asset.body};
}

void SetConsoleHeaders(Response& response) {
  response.set(http::field::server, "diagd");
  response.set("Content-Security-Policy", kContentSecurityPolicy);
  response.set("X-Content-Type-Options", "nosniff");
  response.set("Referrer-Policy", "no-referrer");
  response.set("X-Frame-Options", "DENY");
  response.set(http::field::cache_control, "no-cache");
}

}  // namespace

asio::awaitable<bool> Console(Exchange& ex, std::string_view asset_path) {
  const ConsoleAsset* asset = FindAsset(asset_path);
  if (asset == nullptr) {
    Response response = ErrorResponse(NotFound("no such console file"));
    SetConsoleHeaders(response);
    response.set(http::field::cache_control, "no-store");
    co_return co_await ex.Reply(std::move(response));
  }
  ServedAsset served = Serve(*asset, ex.server.service.language);
  bool fresh = NoneMatchHits(ex.request[http::field::if_none_match], served.etag);
  Response response{fresh ? http::status::not_modified : http::status::ok, 11};
  SetConsoleHeaders(response);
  response.set(http::field::etag, served.etag);
  if (!fresh) {
    response.set(http::field::content_type, served.content_type);
    response.body() = std::string(served.body);
  }
  co_return co_await ex.Reply(std::move(response));
}

}  // namespace diagd::server
