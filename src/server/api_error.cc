#include "server/api_error.h"

#include "core/json_writer.h"

namespace diagd::server {

std::string ApiErrorJson(const ApiError& error) {
  json::JsonWriter w(128 + error.message.size());
  w.BeginObject().Key("error").BeginObject().Key("code").String(error.code);
  w.Key("message").String(error.message).EndObject().EndObject();
  return w.Take();
}

}  // namespace diagd::server
