// What a search term is, for the local documents index: one function used
// both to index a section and to read a query, so that the two always agree.
//
// - Latin, Cyrillic and other space-separated scripts: words, case-folded;
//   words of ASCII letters are stemmed (English Snowball stemmer), so
//   "Timeouts" finds "timeout". Identifiers joined by `_ - . :` give their
//   parts and the whole ("etcd_disk_wal" gives etcd, disk, wal and
//   etcd_disk_wal), so either finds them. Full-width ASCII reads as ASCII.
// - Chinese, Japanese and Korean runs: every character and every pair of
//   neighbouring characters (CJK bigrams), since these scripts write no
//   spaces between words: "连接池超时" gives 连接, 接池, 池超, 超时 and the
//   single characters, so the two-character words 连接 and 超时 are found.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace diagd::tools::documents {

// Called for each term of a text with the bytes it was read from
// (`offset`, `length` in the text). Returning false stops the walk.
using TermVisitor =
    std::function<bool(std::string_view term, std::size_t offset, std::size_t length)>;

// Visits the terms of `text` in the order they occur. `text` should be valid
// UTF-8; ill-formed bytes separate terms.
void ForEachTerm(std::string_view text, const TermVisitor& visit);

// The distinct terms of a query, in order. Very common words ("the", "how",
// "什么", "如何") are dropped unless nothing else is left: with OR matching
// they would make every section a match.
std::vector<std::string> QueryTerms(std::string_view query);

// An excerpt of `text` of at most `max_chars` code points around the first
// place one of `terms` occurs (or from the start when none does), with
// surrounding white space trimmed. Always an exact substring of `text`.
std::string ExcerptAround(std::string_view text, const std::vector<std::string>& terms,
                          std::size_t max_chars);

}  // namespace diagd::tools::documents
