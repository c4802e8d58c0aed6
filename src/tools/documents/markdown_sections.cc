#include "tools/documents/markdown_sections.h"

#include <cstdint>
#include <map>
#include <optional>

namespace diagd::tools::documents {
namespace {

struct Line {
  std::size_t start = 0;  // byte offset of the line in the file
  std::size_t end = 0;    // one past its '\n' (or the end of the file)
  std::string_view text;  // without the line end ("\n" or "\r\n")
};

struct Heading {
  std::size_t offset = 0;    // where its section starts (the first heading line)
  std::size_t text_end = 0;  // one past its last line: where the section's own text starts
  int level = 1;
  std::string text;
};

bool IsBlank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

std::string_view Trim(std::string_view s) {
  std::size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  std::size_t end = s.find_last_not_of(" \t");
  return s.substr(begin, end - begin + 1);
}

// Up to three spaces of indent, as CommonMark allows before a block marker;
// nothing when the line is indented code.
std::optional<std::string_view> Unindent(std::string_view s) {
  std::size_t spaces = 0;
  while (spaces < s.size() && s[spaces] == ' ') ++spaces;
  if (spaces > 3) return std::nullopt;
  return s.substr(spaces);
}

std::optional<Heading> AtxHeading(std::string_view line) {
  auto rest = Unindent(line);
  if (!rest) return std::nullopt;
  std::size_t hashes = 0;
  while (hashes < rest->size() && (*rest)[hashes] == '#') ++hashes;
  if (hashes == 0 || hashes > 6) return std::nullopt;
  if (hashes < rest->size() && (*rest)[hashes] != ' ' && (*rest)[hashes] != '\t') {
    return std::nullopt;  // "#tag" is text, not a heading
  }
  std::string_view text = Trim(rest->substr(hashes));
  // An optional closing run of '#' after a space is not part of the text.
  std::size_t closing = text.find_last_not_of('#');
  if (closing == std::string_view::npos) {
    text = {};
  } else if (closing + 1 < text.size() && (text[closing] == ' ' || text[closing] == '\t')) {
    text = Trim(text.substr(0, closing));
  }
  Heading heading;
  heading.level = static_cast<int>(hashes);
  heading.text = std::string(text);
  return heading;
}

// 1 for a "===" underline, 2 for "---", 0 otherwise. Three characters at
// least, so that a lone "-" (an empty list item) never makes a heading.
int SetextLevel(std::string_view line) {
  auto rest = Unindent(line);
  if (!rest || rest->empty() || ((*rest)[0] != '=' && (*rest)[0] != '-')) return 0;
  char mark = (*rest)[0];
  std::size_t run = rest->find_first_not_of(mark);
  std::size_t count = run == std::string_view::npos ? rest->size() : run;
  if (count < 3 || !IsBlank(rest->substr(count))) return 0;
  return mark == '=' ? 1 : 2;
}

// A line that can be the text of a setext heading: plain paragraph text, not
// a list item, quote, table row, HTML block or indented code.
bool IsParagraphText(std::string_view line) {
  auto rest = Unindent(line);
  if (!rest || IsBlank(*rest)) return false;
  char first = (*rest)[0];
  if (first == '>' || first == '|' || first == '<' || first == '#') return false;
  if ((first == '-' || first == '*' || first == '+') &&
      (rest->size() == 1 || (*rest)[1] == ' ' || (*rest)[1] == '\t')) {
    return false;
  }
  std::size_t digits = rest->find_first_not_of("0123456789");
  if (digits != std::string_view::npos && digits > 0 && digits < rest->size() &&
      ((*rest)[digits] == '.' || (*rest)[digits] == ')')) {
    return false;  // "1. item"
  }
  return true;
}

// The fence marker that opens a code block ("```", "~~~~"...), if any.
std::optional<std::string_view> FenceOpening(std::string_view line) {
  auto rest = Unindent(line);
  if (!rest || rest->size() < 3 || ((*rest)[0] != '`' && (*rest)[0] != '~')) return std::nullopt;
  char mark = (*rest)[0];
  std::size_t run = rest->find_first_not_of(mark);
  std::size_t count = run == std::string_view::npos ? rest->size() : run;
  if (count < 3) return std::nullopt;
  // A backtick fence's info string cannot hold a backtick (that is inline code).
  if (mark == '`' && rest->substr(count).find('`') != std::string_view::npos) return std::nullopt;
  return rest->substr(0, count);
}

bool ClosesFence(std::string_view line, std::string_view fence) {
  auto rest = Unindent(line);
  if (!rest || rest->size() < fence.size()) return false;
  std::size_t run = rest->find_first_not_of(fence[0]);
  std::size_t count = run == std::string_view::npos ? rest->size() : run;
  return count >= fence.size() && IsBlank(rest->substr(count));
}

std::vector<Line> SplitLines(std::string_view content, std::size_t from) {
  std::vector<Line> lines;
  for (std::size_t start = from; start < content.size();) {
    std::size_t newline = content.find('\n', start);
    std::size_t end = newline == std::string_view::npos ? content.size() : newline + 1;
    std::string_view text =
        content.substr(start, (newline == std::string_view::npos ? end : newline) - start);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    lines.push_back({start, end, text});
    start = end;
  }
  return lines;
}

// Where the text after the UTF-8 byte order mark and the YAML front matter
// (a "---" first line up to the next "---" or "..." line) starts.
std::size_t BodyStart(const std::vector<Line>& lines, std::size_t bom) {
  if (lines.empty() || Trim(lines[0].text) != "---") return bom;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view text = Trim(lines[i].text);
    if (text == "---" || text == "...") return lines[i].end;
  }
  return bom;  // never closed: not front matter
}

std::vector<Heading> FindHeadings(const std::vector<Line>& lines, std::size_t from) {
  // What a line is to a setext underline below it: only a one-line paragraph
  // (text after a break) becomes a heading; text after a list item or a
  // longer paragraph is left alone, so a thematic break never eats it.
  enum class Kind { kBreak, kText, kOther };
  std::vector<Heading> headings;
  std::string_view fence;  // the open code fence's marker; empty outside code
  bool in_comment = false;
  Kind previous = Kind::kBreak;
  Kind before_previous = Kind::kBreak;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& line = lines[i];
    if (line.start < from) continue;
    Kind kind = Kind::kOther;
    if (!fence.empty()) {
      if (ClosesFence(line.text, fence)) fence = {};
    } else if (in_comment) {
      in_comment = line.text.find("-->") == std::string_view::npos;
    } else if (auto opening = FenceOpening(line.text)) {
      fence = *opening;
    } else if (auto atx = AtxHeading(line.text)) {
      atx->offset = line.start;
      atx->text_end = line.end;
      headings.push_back(std::move(*atx));
      kind = Kind::kBreak;
    } else if (int level = SetextLevel(line.text); level > 0) {
      if (previous == Kind::kText && before_previous == Kind::kBreak) {
        headings.push_back(
            {lines[i - 1].start, line.end, level, std::string(Trim(lines[i - 1].text))});
      }
      kind = Kind::kBreak;
    } else if (auto rest = Unindent(line.text); rest && rest->starts_with("<!--")) {
      in_comment = rest->find("-->", 4) == std::string_view::npos;
    } else if (IsBlank(line.text)) {
      kind = Kind::kBreak;
    } else if (IsParagraphText(line.text)) {
      kind = Kind::kText;
    }
    before_previous = previous;
    previous = kind;
  }
  return headings;
}

std::string FileStem(std::string_view file_name) {
  std::size_t slash = file_name.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? file_name : file_name.substr(slash + 1);
  std::size_t dot = base.find_last_of('.');
  if (dot != std::string_view::npos && dot > 0) base = base.substr(0, dot);
  return std::string(base);
}

}  // namespace

std::vector<MarkdownSection> SplitMarkdownSections(std::string_view content,
                                                   std::string_view file_name) {
  std::size_t bom = content.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  std::vector<Line> lines = SplitLines(content, bom);
  std::size_t start = BodyStart(lines, bom);
  std::vector<Heading> headings = FindHeadings(lines, start);

  std::optional<std::size_t> title_heading;
  for (std::size_t i = 0; i < headings.size(); ++i) {
    if (headings[i].level == 1 && !headings[i].text.empty()) {
      title_heading = i;
      break;
    }
  }
  std::string title = title_heading ? headings[*title_heading].text : FileStem(file_name);

  std::vector<MarkdownSection> sections;
  std::map<std::string, std::size_t> seen_breadcrumbs;
  auto emit = [&](std::size_t begin, std::size_t text_begin, std::size_t end,
                  std::string breadcrumb, std::string heading) {
    MarkdownSection section;
    section.title = title;
    section.breadcrumb = std::move(breadcrumb);
    section.heading = std::move(heading);
    section.ordinal = seen_breadcrumbs[section.breadcrumb]++;
    section.offset = begin;
    section.body = std::string(content.substr(begin, end - begin));
    section.has_text = !IsBlank(content.substr(text_begin, end - text_begin));
    sections.push_back(std::move(section));
  };

  std::size_t first_heading = headings.empty() ? content.size() : headings[0].offset;
  if (!IsBlank(content.substr(start, first_heading - start))) {
    emit(start, start, first_heading, title, "");
  }
  // The heading path above the current section: (level, index into headings).
  std::vector<std::pair<int, std::size_t>> path;
  for (std::size_t i = 0; i < headings.size(); ++i) {
    const Heading& heading = headings[i];
    while (!path.empty() && path.back().first >= heading.level) path.pop_back();
    path.emplace_back(heading.level, i);
    std::string breadcrumb = title;
    for (const auto& [level, index] : path) {
      // The title is the breadcrumb's first part already; empty headings say nothing.
      if (index == title_heading || headings[index].text.empty()) continue;
      breadcrumb += " > ";
      breadcrumb += headings[index].text;
    }
    std::size_t end = i + 1 < headings.size() ? headings[i + 1].offset : content.size();
    emit(heading.offset, heading.text_end, end, std::move(breadcrumb), heading.text);
  }
  return sections;
}

std::uint64_t StableHash(std::string_view bytes) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string StableHashHex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::uint64_t hash = StableHash(bytes);
  std::string hex(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4) hex[static_cast<std::size_t>(i)] = kDigits[hash & 0xF];
  return hex;
}

std::string SectionDocumentId(std::string_view source, std::string_view breadcrumb,
                              std::size_t ordinal) {
  // NUL separators: no path or heading holds one, so distinct triples never
  // hash the same input.
  std::string key;
  key.reserve(source.size() + breadcrumb.size() + 24);
  key.append(source).push_back('\0');
  key.append(breadcrumb).push_back('\0');
  key.append(std::to_string(ordinal));
  return StableHashHex(key);
}

}  // namespace diagd::tools::documents
