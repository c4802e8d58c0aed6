#include "http/body_parts.h"

#include <algorithm>
#include <cstring>

namespace diagd::http {

std::size_t BodyPartsReader::Read(char* out, std::size_t room) {
  std::size_t written = 0;
  while (written < room && part_ < parts_.size()) {
    std::string_view rest = parts_[part_].substr(offset_);
    std::size_t n = std::min(rest.size(), room - written);
    std::memcpy(out + written, rest.data(), n);
    written += n;
    offset_ += n;
    if (offset_ == parts_[part_].size()) {
      ++part_;
      offset_ = 0;
    }
  }
  return written;
}

bool BodyPartsReader::Seek(std::uint64_t offset) {
  part_ = 0;
  offset_ = 0;
  while (part_ < parts_.size() && offset >= parts_[part_].size()) {
    offset -= parts_[part_].size();
    ++part_;
  }
  if (offset > 0 && part_ == parts_.size()) return false;
  offset_ = static_cast<std::size_t>(offset);
  return true;
}

}  // namespace diagd::http
