#include "tools/documents/search_terms.h"

#include <xapian.h>

#include <algorithm>
#include <unordered_set>

#include "core/text.h"

namespace diagd::tools::documents {
namespace {

// Longer "words" (base64 blobs, hashes, minified code) are never what anyone
// searches for, and Xapian refuses terms over 245 bytes.
constexpr std::size_t kMaxTermBytes = 64;

enum class CharClass { kSeparator, kWord, kCjk };

bool IsCjk(unsigned cp) {
  return (cp >= 0x1100 && cp <= 0x11FF) ||  // Hangul Jamo
         (cp >= 0x2E80 && cp <= 0x2FDF) ||  // CJK and Kangxi radicals
         (cp >= 0x3040 && cp <= 0x31FF) ||  // kana, bopomofo, Hangul compatibility jamo
         (cp >= 0x3400 && cp <= 0x4DBF) ||  // CJK extension A
         (cp >= 0x4E00 && cp <= 0x9FFF) ||  // CJK unified ideographs
         (cp >= 0xA960 && cp <= 0xA97F) ||  // Hangul Jamo extended A
         (cp >= 0xAC00 && cp <= 0xD7AF) ||  // Hangul syllables
         (cp >= 0xF900 && cp <= 0xFAFF) ||  // CJK compatibility ideographs
         (cp >= 0x20000 && cp <= 0x3134F);  // CJK extensions B to G
}

bool IsFullWidthAlnum(unsigned cp) {
  return (cp >= 0xFF10 && cp <= 0xFF19) || (cp >= 0xFF21 && cp <= 0xFF3A) ||
         (cp >= 0xFF41 && cp <= 0xFF5A);
}

// The characters that join words into one identifier: snake_case,
// kebab-case, dotted names and versions, host:port.
bool IsConnector(char c) { return c == '_' || c == '-' || c == '.' || c == ':'; }

CharClass Classify(unsigned cp) {
  if (cp < 0x80) {
    if ((cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) {
      return CharClass::kWord;
    }
    return CharClass::kSeparator;
  }
  if (IsFullWidthAlnum(cp)) return CharClass::kWord;
  if (!Xapian::Unicode::is_wordchar(cp)) return CharClass::kSeparator;
  return IsCjk(cp) ? CharClass::kCjk : CharClass::kWord;
}

void AppendFolded(std::string& out, unsigned cp) {
  if (IsFullWidthAlnum(cp)) cp -= 0xFEE0;
  Xapian::Unicode::append_utf8(out, Xapian::Unicode::tolower(cp));
}

bool IsAsciiLetters(const std::string& word) {
  return std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

// The indexed form of one word: stemmed when it is English-like. A single
// ASCII letter ("s" of "pod's", "a") carries nothing and is dropped.
std::string WordTerm(const std::string& folded) {
  if (!IsAsciiLetters(folded)) return folded;
  if (folded.size() < 2) return {};
  thread_local const Xapian::Stem stemmer("english");
  return stemmer(folded);
}

struct Part {
  std::size_t offset;
  std::size_t length;
  std::string folded;
};

class Walker {
 public:
  Walker(std::string_view text, const TermVisitor& visit, bool query)
      : text_(text), visit_(visit), query_(query) {}

  void Run() {
    for (std::size_t i = 0; i < text_.size() && !stopped_;) {
      // An ill-formed byte reads as U+FFFD, a separator.
      text::CodePoint cp = text::DecodeCodePoint(text_, i);
      CharClass kind = Classify(cp.value);
      if (kind == CharClass::kCjk) {
        i = CjkRun(i);
      } else if (kind == CharClass::kWord) {
        i = Compound(i);
      } else {
        i += cp.length;
      }
    }
  }

 private:
  void Visit(std::string_view term, std::size_t offset, std::size_t length) {
    if (stopped_ || term.empty() || term.size() > kMaxTermBytes) return;
    if (!visit_(term, offset, length)) stopped_ = true;
  }

  // Every character and every neighbouring pair. A query keeps only the pairs
  // of a longer run: a lone character would match nearly every section.
  std::size_t CjkRun(std::size_t i) {
    std::vector<std::pair<std::size_t, std::size_t>> chars;  // (offset, length)
    while (i < text_.size()) {
      text::CodePoint cp = text::DecodeCodePoint(text_, i);
      if (Classify(cp.value) != CharClass::kCjk) break;
      chars.emplace_back(i, cp.length);
      i += cp.length;
    }
    for (std::size_t k = 0; k < chars.size(); ++k) {
      auto [offset, length] = chars[k];
      if (k + 1 < chars.size()) {
        std::size_t pair_length = length + chars[k + 1].second;
        Visit(text_.substr(offset, pair_length), offset, pair_length);
      }
      if (!query_ || chars.size() == 1) Visit(text_.substr(offset, length), offset, length);
    }
    return i;
  }

  // Words joined by single connectors: the whole first (so the first term
  // visited is also the earliest in the text), then each part.
  std::size_t Compound(std::size_t i) {
    std::vector<Part> parts;
    std::string whole;
    while (true) {
      Part part{i, 0, {}};
      while (i < text_.size()) {
        text::CodePoint cp = text::DecodeCodePoint(text_, i);
        if (Classify(cp.value) != CharClass::kWord) break;
        AppendFolded(part.folded, cp.value);
        i += cp.length;
      }
      part.length = i - part.offset;
      whole += part.folded;
      parts.push_back(std::move(part));
      // Continue only over one connector followed by another word.
      if (i + 1 >= text_.size() || !IsConnector(text_[i])) break;
      if (Classify(text::DecodeCodePoint(text_, i + 1).value) != CharClass::kWord) break;
      whole += text_[i];
      ++i;
    }
    if (parts.size() > 1) {
      Visit(whole, parts.front().offset, i - parts.front().offset);
    }
    for (const Part& part : parts) {
      if (part.folded.size() > kMaxTermBytes) continue;
      Visit(WordTerm(part.folded), part.offset, part.length);
    }
    return i;
  }

  std::string_view text_;
  const TermVisitor& visit_;
  bool query_;
  bool stopped_ = false;
};

const std::unordered_set<std::string>& StopTerms() {
  // Kept short on purpose: only words that say nothing in an SRE question.
  static const std::unordered_set<std::string> terms = [] {
    std::unordered_set<std::string> set;
    const char* words =
        "a am an and are as at be been being by can could do does did for from had has have how i "
        "in is it its "
        "me my of on or our should that the their them then there these this to was "
        "we were what when where which who why will with would you your "
        "什么 怎么 么办 如何 为什 是否 请问 一下";
    Walker(
        words,
        [&](std::string_view term, std::size_t, std::size_t) {
          set.emplace(term);
          return true;
        },
        /*query=*/true)
        .Run();
    return set;
  }();
  return terms;
}

bool IsAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

}  // namespace

void ForEachTerm(std::string_view text, const TermVisitor& visit) {
  Walker(text, visit, /*query=*/false).Run();
}

std::vector<std::string> QueryTerms(std::string_view query) {
  std::vector<std::string> terms;
  Walker(
      query,
      [&](std::string_view term, std::size_t, std::size_t) {
        if (std::find(terms.begin(), terms.end(), term) == terms.end()) terms.emplace_back(term);
        return true;
      },
      /*query=*/true)
      .Run();
  const auto& stop = StopTerms();
  if (std::any_of(terms.begin(), terms.end(),
                  [&](const std::string& t) { return !stop.contains(t); })) {
    std::erase_if(terms, [&](const std::string& t) { return stop.contains(t); });
  }
  return terms;
}

std::string ExcerptAround(std::string_view text, const std::vector<std::string>& terms,
                          std::size_t max_chars) {
  if (max_chars == 0) return {};
  std::size_t hit = 0;
  std::size_t hit_end = 0;
  if (!terms.empty()) {
    ForEachTerm(text, [&](std::string_view term, std::size_t offset, std::size_t length) {
      if (std::find(terms.begin(), terms.end(), term) == terms.end()) return true;
      hit = offset;
      hit_end = offset + length;
      return false;
    });
  }
  std::size_t hit_chars = 0;
  for (std::size_t i = hit; i < hit_end; i = text::NextCodePoint(text, i)) ++hit_chars;
  // Centre the hit: as many code points before it as after it.
  std::size_t before = max_chars > hit_chars ? (max_chars - hit_chars) / 2 : 0;
  std::size_t begin = hit;
  for (; before > 0 && begin > 0; --before) begin = text::PreviousCodePoint(text, begin);
  std::size_t end = begin;
  std::size_t count = 0;
  for (; count < max_chars && end < text.size(); ++count) end = text::NextCodePoint(text, end);
  // Near the end of the text, spend the room that is left before the hit.
  for (; count < max_chars && begin > 0; ++count) begin = text::PreviousCodePoint(text, begin);
  while (begin < end && IsAsciiSpace(text[begin])) ++begin;
  while (end > begin && IsAsciiSpace(text[end - 1])) --end;
  return std::string(text.substr(begin, end - begin));
}

}  // namespace diagd::tools::documents
