// A request body kept in parts, read out in order as one stream: what
// libcurl's read and seek callbacks see of Request::body_parts. It seeks
// back when curl sends the request again (a kept-alive connection that
// turned out closed).
//
// Thread safety: one reader per transfer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace diagd::http {

class BodyPartsReader {
 public:
  explicit BodyPartsReader(std::span<const std::string_view> parts) : parts_(parts) {}

  // Copies up to `room` bytes of what is left into `out`; 0 at the end.
  std::size_t Read(char* out, std::size_t room);
  // Goes to `offset` bytes from the start; false when the body is shorter.
  bool Seek(std::uint64_t offset);

 private:
  std::span<const std::string_view> parts_;
  std::size_t part_ = 0;
  std::size_t offset_ = 0;  // into parts_[part_]
};

}  // namespace diagd::http
