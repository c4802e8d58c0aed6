#include "tools/documents/local_index.h"

#include <xapian.h>

#include <charconv>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/text.h"
#include "tools/documents/markdown_sections.h"
#include "tools/documents/markdown_tree.h"
#include "tools/documents/search_terms.h"

namespace diagd::tools::documents {
namespace fs = std::filesystem;
namespace {

// Changes whenever the term rules or the stored fields change: an index
// built by another version is rebuilt rather than misread.
constexpr const char* kSchema = "diagd-documents-1";
constexpr const char* kSchemaKey = "schema";
constexpr const char* kManifestPrefix = "file:";
// A file this large is not documentation (a dump, a generated listing); it is
// listed in the manifest so it is not read again until it changes.
constexpr std::uintmax_t kMaxFileBytes = 16u << 20;
constexpr std::size_t kMaxIdleReaders = 8;
constexpr int kMaxSearchAttempts = 5;

// Built by appending: `"Q" + std::string(id)` inserts at the front, which
// GCC 12 at -O3 flags with a false -Wrestrict (a known GCC 12 false
// positive on short prefixes), fatal in a -Werror build.
std::string Prefixed(char prefix, std::string_view rest) {
  std::string term;
  term.reserve(rest.size() + 1);
  term += prefix;
  term += rest;
  return term;
}

std::string IdTerm(std::string_view id) { return Prefixed('Q', id); }
// Hashed: a term is at most 245 bytes, a path may be longer.
std::string FileTerm(std::string_view source) { return Prefixed('P', StableHashHex(source)); }
std::string ManifestKey(std::string_view source) { return kManifestPrefix + StableHashHex(source); }

// Document data: each field as "<byte length>:<bytes>", so any bytes fit.
void AppendField(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

bool ReadField(std::string_view& in, std::string& field) {
  std::size_t length = 0;
  auto [end, error] = std::from_chars(in.data(), in.data() + in.size(), length);
  std::size_t digits = static_cast<std::size_t>(end - in.data());
  if (error != std::errc() || digits >= in.size() || in[digits] != ':' ||
      in.size() - digits - 1 < length) {
    return false;
  }
  field.assign(in.substr(digits + 1, length));
  in.remove_prefix(digits + 1 + length);
  return true;
}

std::string EncodeSection(const IndexedSection& section) {
  std::string data;
  data.reserve(section.body.size() + 256);
  for (const std::string* field : {&section.document_id, &section.source, &section.title,
                                   &section.breadcrumb, &section.body}) {
    AppendField(data, *field);
  }
  return data;
}

std::optional<IndexedSection> DecodeSection(std::string_view data) {
  IndexedSection section;
  for (std::string* field : {&section.document_id, &section.source, &section.title,
                             &section.breadcrumb, &section.body}) {
    if (!ReadField(data, *field)) return std::nullopt;
  }
  return section;
}

std::string EncodeStamp(const FileStamp& stamp, std::string_view source) {
  return std::to_string(stamp.size) + " " + std::to_string(stamp.mtime_ns) + " " +
         std::string(source);
}

bool DecodeStamp(const std::string& value, std::string& source, FileStamp& stamp) {
  std::istringstream in(value);
  if (!(in >> stamp.size >> stamp.mtime_ns) || in.get() != ' ') return false;
  std::getline(in, source, '\0');
  return !source.empty();
}

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(content).str();
}

Error IndexError(std::string_view what, const std::string& detail) {
  return Error::Unavailable("documents index " + std::string(what) + ": " + detail);
}

}  // namespace

struct LocalIndex::State {
  fs::path root;
  fs::path directory;

  std::mutex refresh_mu;
  TreeManifest manifest;  // what the index holds, as of the last refresh (refresh_mu)
  bool manifest_known = false;

  mutable std::mutex readers_mu;
  mutable std::vector<std::unique_ptr<Xapian::Database>> idle_readers;

  // Throws Xapian::Error.
  std::unique_ptr<Xapian::Database> TakeReader() const {
    std::unique_ptr<Xapian::Database> reader;
    {
      std::lock_guard lock(readers_mu);
      if (!idle_readers.empty()) {
        reader = std::move(idle_readers.back());
        idle_readers.pop_back();
      }
    }
    if (!reader) return std::make_unique<Xapian::Database>(directory.string());
    reader->reopen();  // to the latest commit, whoever made it
    return reader;
  }

  void ReturnReader(std::unique_ptr<Xapian::Database> reader) const {
    std::lock_guard lock(readers_mu);
    if (idle_readers.size() < kMaxIdleReaders) idle_readers.push_back(std::move(reader));
  }

  // `fresh`: the index held nothing when this update began, so there is
  // nothing of this file to drop first.
  std::size_t IndexFile(Xapian::WritableDatabase& db, const std::string& source,
                        const FileStamp& stamp, bool fresh) const {
    if (!fresh) db.delete_document(FileTerm(source));
    std::size_t count = 0;
    std::optional<std::string> content;
    if (stamp.size <= kMaxFileBytes) content = ReadFile(root / source);
    if (content) {
      // The evidence must be valid UTF-8 and an exact substring of what was
      // indexed: a file with broken bytes is indexed as repaired text.
      if (!text::IsValidUtf8(*content)) content = text::SanitizeUtf8(*content);
      for (MarkdownSection& part : SplitMarkdownSections(*content, source)) {
        if (!part.has_text) continue;
        IndexedSection section{SectionDocumentId(source, part.breadcrumb, part.ordinal),
                               source,
                               std::move(part.title),
                               std::move(part.breadcrumb),
                               std::move(part.body),
                               {}};
        Xapian::Document doc;
        ForEachTerm(section.body, [&](std::string_view term, std::size_t, std::size_t) {
          doc.add_term(std::string(term), 1);
          return true;
        });
        ForEachTerm(section.breadcrumb, [&](std::string_view term, std::size_t, std::size_t) {
          doc.add_term(std::string(term), kHeadingWeight);
          return true;
        });
        doc.add_boolean_term(IdTerm(section.document_id));
        doc.add_boolean_term(FileTerm(source));
        doc.set_data(EncodeSection(section));
        // The id holds the file's path, and the file's sections are gone:
        // adding is safe, and spares a lookup by id term per section.
        db.add_document(doc);
        ++count;
      }
    }
    // Recorded even when unreadable, so it is tried again only once it changes.
    db.set_metadata(ManifestKey(source), EncodeStamp(stamp, source));
    return count;
  }

  // Throws Xapian::Error (DatabaseLockError when another process writes).
  Result<RefreshStats> Update(const TreeManifest& tree, const Clock& clock, MonoTime deadline,
                              const std::stop_token& cancel) {
    Xapian::WritableDatabase db(directory.string(), Xapian::DB_CREATE_OR_OPEN);
    if (db.get_metadata(kSchemaKey) != kSchema) {
      // Built by other term rules: its terms would not match today's queries.
      db.close();
      db = Xapian::WritableDatabase(directory.string(), Xapian::DB_CREATE_OR_OVERWRITE);
      db.set_metadata(kSchemaKey, kSchema);
      db.set_metadata("root", root.string());  // for an operator looking at the cache
    }
    // The committed manifest is the truth (another process may have updated it).
    TreeManifest stored;
    for (auto key = db.metadata_keys_begin(kManifestPrefix);
         key != db.metadata_keys_end(kManifestPrefix); ++key) {
      std::string source;
      FileStamp stamp;
      if (DecodeStamp(db.get_metadata(*key), source, stamp)) stored.emplace(source, stamp);
    }
    // Not "not in the manifest": Xapian commits by itself every 10,000
    // documents, so a build cut short may have left sections of a file whose
    // manifest entry was never written.
    const bool fresh = db.get_doccount() == 0;
    RefreshStats stats;
    for (auto it = stored.begin(); it != stored.end();) {
      if (tree.contains(it->first)) {
        ++it;
        continue;
      }
      db.delete_document(FileTerm(it->first));
      db.set_metadata(ManifestKey(it->first), "");
      ++stats.files_removed;
      it = stored.erase(it);
    }
    bool out_of_time = false;
    for (const auto& [source, stamp] : tree) {
      auto known = stored.find(source);
      if (known != stored.end() && known->second == stamp) continue;
      if (cancel.stop_requested() || clock.Monotonic() >= deadline) {
        out_of_time = true;
        break;
      }
      stats.sections_indexed += IndexFile(db, source, stamp, fresh);
      ++stats.files_indexed;
      stored[source] = stamp;
    }
    db.commit();
    db.close();
    manifest = std::move(stored);
    manifest_known = true;
    if (out_of_time && cancel.stop_requested()) {
      return Error::Cancelled("the documents index refresh stopped: the run was cancelled");
    }
    if (out_of_time) {
      return Error::DeadlineExceeded("the documents index refresh ran out of time");
    }
    return stats;
  }
};

LocalIndex::LocalIndex(std::unique_ptr<State> state) : state_(std::move(state)) {}
LocalIndex::~LocalIndex() = default;

Result<std::unique_ptr<LocalIndex>> LocalIndex::Open(fs::path root, fs::path directory) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) {
    return Error::Unavailable("cannot create the documents index folder " + directory.string() +
                              ": " + error.message());
  }
  auto state = std::make_unique<State>();
  state->root = std::move(root);
  state->directory = std::move(directory);
  return std::unique_ptr<LocalIndex>(new LocalIndex(std::move(state)));
}

const fs::path& LocalIndex::directory() const { return state_->directory; }

Result<RefreshStats> LocalIndex::Refresh(const Clock& clock, MonoTime deadline,
                                         const std::stop_token& cancel) {
  std::lock_guard lock(state_->refresh_mu);
  auto tree = ScanMarkdownTree(state_->root);
  if (!tree) return tree.error();
  if (state_->manifest_known && *tree == state_->manifest) return RefreshStats{};
  try {
    return state_->Update(*tree, clock, deadline, cancel);
  } catch (const Xapian::DatabaseLockError&) {
    RefreshStats stats;
    stats.locked_elsewhere = true;
    return stats;
  } catch (const Xapian::Error& e) {
    return IndexError("cannot be written", e.get_description());
  } catch (const std::exception& e) {
    return IndexError("cannot be written", e.what());
  }
}

Result<SearchHits> LocalIndex::Search(const std::vector<std::string>& terms, std::size_t limit,
                                      double time_limit_seconds) const {
  if (terms.empty() || limit == 0) return SearchHits{};
  try {
    std::unique_ptr<Xapian::Database> reader = state_->TakeReader();
    for (int attempt = 0;; ++attempt) {
      try {
        Xapian::Enquire enquire(*reader);
        // OR: a section matches when it holds at least one query term; BM25
        // (Xapian's default weighting) ranks them.
        enquire.set_query(Xapian::Query(Xapian::Query::OP_OR, terms.begin(), terms.end()));
        enquire.set_docid_order(Xapian::Enquire::ASCENDING);  // equal weights: a stable order
        if (time_limit_seconds > 0) enquire.set_time_limit(time_limit_seconds);
        Xapian::MSet mset = enquire.get_mset(0, static_cast<Xapian::doccount>(limit),
                                             static_cast<Xapian::doccount>(limit + 1));
        SearchHits hits;
        hits.more = mset.get_matches_lower_bound() > mset.size();
        for (auto it = mset.begin(); it != mset.end(); ++it) {
          auto section = DecodeSection(it.get_document().get_data());
          if (!section) continue;
          for (auto term = enquire.get_matching_terms_begin(it);
               term != enquire.get_matching_terms_end(it); ++term) {
            section->matched_terms.push_back(*term);
          }
          hits.sections.push_back(std::move(*section));
        }
        state_->ReturnReader(std::move(reader));
        return hits;
      } catch (const Xapian::DatabaseModifiedError&) {
        // Writers committed twice while this reader was reading: catch up.
        // Commits come from refreshes, which are seconds apart in service.
        if (attempt + 1 >= kMaxSearchAttempts) throw;
        reader->reopen();
      }
    }
  } catch (const Xapian::DatabaseOpeningError& e) {
    return IndexError("is not built", e.get_description());
  } catch (const Xapian::Error& e) {
    return IndexError("cannot be read", e.get_description());
  } catch (const std::exception& e) {
    return IndexError("cannot be read", e.what());
  }
}

}  // namespace diagd::tools::documents
