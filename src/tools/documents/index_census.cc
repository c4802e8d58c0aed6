#include "tools/documents/index_census.h"

#include <xapian.h>

#include <string>

namespace diagd::tools::documents {

Result<std::size_t> CountIndexedSections(const std::filesystem::path& index_directory) {
  try {
    Xapian::Database index(index_directory.string());
    return static_cast<std::size_t>(index.get_doccount());
  } catch (const Xapian::Error& e) {
    return Error::Unavailable("the documents index cannot be read: " + e.get_description());
  } catch (const std::exception& e) {
    return Error::Unavailable(std::string("the documents index cannot be read: ") + e.what());
  }
}

}  // namespace diagd::tools::documents
