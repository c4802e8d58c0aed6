#include "server/sse.h"

namespace diagd::server {

std::string SseFrame(const app::RunEvent& event) {
  std::string frame;
  frame.reserve(event.data.size() + event.name.size() + 40);
  frame += "id: ";
  frame += std::to_string(event.id);
  frame += "\nevent: ";
  frame += event.name;
  frame += '\n';
  std::size_t start = 0;
  while (true) {
    std::size_t end = event.data.find_first_of("\r\n", start);
    frame += "data: ";
    frame.append(event.data, start, end == std::string::npos ? std::string::npos : end - start);
    frame += '\n';
    if (end == std::string::npos) break;
    start = end + (event.data.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  frame += '\n';
  return frame;
}

}  // namespace diagd::server
