// tools::documents::SplitMarkdownSections: every Markdown file under the
// documents folder, indexed and cited section by section.
//
// Checks: the sections are the file's own bytes, in order and back to back,
// the last one running to the end of the file; each has a title, and no two
// share a breadcrumb and ordinal (their document ids would collide).
#include <set>
#include <utility>

#include "fuzz/fuzz_check.h"
#include "tools/documents/markdown_sections.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace documents = diagd::tools::documents;
  std::string_view content = diagd::fuzz::Bytes(data, size);
  auto sections = documents::SplitMarkdownSections(content, "runbooks/fuzz.md");

  std::set<std::pair<std::string, std::size_t>> ids;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const documents::MarkdownSection& section = sections[i];
    FUZZ_CHECK(section.offset + section.body.size() <= content.size());
    FUZZ_CHECK(content.substr(section.offset, section.body.size()) == section.body);
    std::size_t next = i + 1 < sections.size() ? sections[i + 1].offset : content.size();
    FUZZ_CHECK(section.offset + section.body.size() == next);
    FUZZ_CHECK(!section.title.empty());
    FUZZ_CHECK(section.breadcrumb.starts_with(section.title));
    FUZZ_CHECK(ids.emplace(section.breadcrumb, section.ordinal).second);
    FUZZ_CHECK(documents::SectionDocumentId("runbooks/fuzz.md", section.breadcrumb, section.ordinal)
                   .size() == 16);
  }
  return 0;
}
