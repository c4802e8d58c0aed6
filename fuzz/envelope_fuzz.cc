// tools::ParseEnvelope: the arguments text of every tool call the model makes.
//
// Checks: a refusal is always kMalformedEnvelope (the other violations are
// the interceptor's to find); an accepted envelope has a non-empty
// tool_call_id, and written back as JSON it parses again to the same envelope
// (numbers within a rounding error: Boost 1.81 parses doubles imprecisely,
// `12.5e31` is one unit in the last place off, and `1e2` comes back as 100;
// `1e400` is infinity, written as null).
#include <boost/json.hpp>
#include <cmath>

#include "core/json.h"
#include "fuzz/fuzz_check.h"
#include "tools/envelope.h"

namespace {

using diagd::tools::Envelope;
namespace bj = boost::json;

bool SameJson(const bj::value& a, const bj::value& b) {
  // A number beyond a double's range parses as infinity, which JSON writes as null.
  if (a.is_double() && !std::isfinite(a.get_double())) return b.is_null();
  if (b.is_double() && !std::isfinite(b.get_double())) return a.is_null();
  if (a.is_number() && b.is_number() && (a.is_double() || b.is_double())) {
    double x = a.to_number<double>(), y = b.to_number<double>();
    return x == y || std::fabs(x - y) <= 1e-15 * std::fmax(std::fabs(x), std::fabs(y));
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const bj::array &p = a.get_array(), &q = b.get_array();
    if (p.size() != q.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!SameJson(p[i], q[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    const bj::object &p = a.get_object(), &q = b.get_object();
    if (p.size() != q.size()) return false;
    for (const auto& member : p) {
      const bj::value* other = q.if_contains(member.key());
      if (other == nullptr || !SameJson(member.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

std::string Rewrite(const Envelope& envelope) {
  boost::json::object root;
  if (envelope.previous_observation) {
    boost::json::object previous{{"tool_call_id", envelope.previous_observation->tool_call_id}};
    if (envelope.previous_observation->information_gain) {
      previous["information_gain"] =
          diagd::tools::InformationGainString(*envelope.previous_observation->information_gain);
    }
    root["previous_observation"] = std::move(previous);
  }
  root["input"] = envelope.input;
  return diagd::json::Serialize(root);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bool missing_input = false;
  auto envelope = diagd::tools::ParseEnvelope(diagd::fuzz::Bytes(data, size), &missing_input);
  if (!envelope) {
    FUZZ_CHECK(envelope.error() == diagd::tools::ViolationType::kMalformedEnvelope);
    return 0;
  }
  FUZZ_CHECK(!missing_input);
  if (envelope->previous_observation) {
    FUZZ_CHECK(!envelope->previous_observation->tool_call_id.empty());
  }

  auto again = diagd::tools::ParseEnvelope(Rewrite(*envelope));
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(SameJson(again->input, envelope->input));
  FUZZ_CHECK(again->previous_observation.has_value() == envelope->previous_observation.has_value());
  if (envelope->previous_observation) {
    FUZZ_CHECK(again->previous_observation->tool_call_id ==
               envelope->previous_observation->tool_call_id);
    FUZZ_CHECK(again->previous_observation->information_gain ==
               envelope->previous_observation->information_gain);
  }
  return 0;
}
