// PromQL read as text, just enough to tell two spellings of one query
// apart from two queries: the scope's identity (CONTRACT 13.3 "Scope").
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace diagd::tools::metrics {

// `query` in one spelling: comments dropped, white space outside string
// literals removed except one space between two words (`sum by (x)` and
// `sum by(x)` are one), and the label matchers inside each `{...}` selector
// sorted (`up{b="1",a="2"}` and `up{ a="2" , b="1" }` are one). String
// literals ("..", '..' with backslash escapes, `..` raw) are kept as
// written. Text that is no valid PromQL is still normalized the same way:
// the server, not the scope, judges it.
std::string NormalizePromql(std::string_view query);

}  // namespace diagd::tools::metrics
