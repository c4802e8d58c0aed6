// The JSON object of a response body or an event's data, for the server's
// tests; a body that is no JSON object fails the test (and yields {}).
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace diagd::server::testing {

inline boost::json::object Json(const std::string& body) {
  boost::system::error_code ec;
  auto value = boost::json::parse(body, ec);
  if (ec || !value.is_object()) {
    ADD_FAILURE() << "not a JSON object: " << body;
    return {};
  }
  return value.as_object();
}

}  // namespace diagd::server::testing
