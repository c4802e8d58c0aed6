// Splits a Markdown file into heading sections, the unit the local documents
// backend indexes and cites (docs/documents-search.md, "Sections").
//
// A section runs from one heading line to the next heading of any level; the
// text before the first heading is a section of its own. Headings are ATX
// (`#`..`######`, up to three spaces of indent) and setext (`Title` over a
// `===` or `---` line). Nothing inside a fenced code block (``` or ~~~), an
// HTML comment or the YAML front matter is a heading; the front matter is
// not part of any section.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace diagd::tools::documents {

struct MarkdownSection {
  std::string title;  // the file's first H1, or the file name without extension
  std::string
      breadcrumb;       // "Title > H2 > H3": the title, then the headings above and of this section
  std::string heading;  // this section's own heading text ("" for text before any heading)
  std::size_t ordinal = 0;  // among earlier sections of the file with the same breadcrumb
  std::size_t offset = 0;   // byte offset of `body` in the file
  std::string body;         // the exact bytes of the section, its heading line included
  bool has_text = false;    // something beyond the heading line and white space
};

// `file_name` (for instance "runbooks/etcd.md") gives the title when the file
// has no H1. CRLF line ends are read as line ends and kept in `body`.
std::vector<MarkdownSection> SplitMarkdownSections(std::string_view content,
                                                   std::string_view file_name);

// A section's id, stable across re-indexing as long as its file path, its
// heading path and its place among equal heading paths stay the same:
// 16 lowercase hex digits.
std::string SectionDocumentId(std::string_view source, std::string_view breadcrumb,
                              std::size_t ordinal);

// 64-bit FNV-1a: a hash that is the same on every machine and in every
// release, for ids and cache folder names (std::hash promises neither).
std::uint64_t StableHash(std::string_view bytes);
std::string StableHashHex(std::string_view bytes);

}  // namespace diagd::tools::documents
