// The stored form of a canonical record (tools/canonical_store.h) in a
// shared store (Redis): every field, read back exactly.
//
// Not the canonical JSON of result_json.h: that is the contract's view of a
// result and cannot be read back exactly (a double 42.0 prints as 42, the
// same as an integer cell; a non-finite one as null), and a record's raw
// response is cut at a byte limit, so it need not be UTF-8 that a JSON
// parser accepts. The stored form is binary instead: a magic and version
// ("DCR" 1), then each field in a fixed order, strings and lists with a
// length before them, enums by their stable wire names (not their C++
// values, which may be reordered while records from the build before
// still live in Redis), doubles by their bits.
//
// A value that is not such a record (damaged, cut short, of another
// version, with a count beyond its own length or an unknown name) is
// INTERNAL, never a crash and never a large allocation.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "tools/canonical_store.h"

namespace diagd::store {

std::string EncodeCanonicalRecord(const tools::CanonicalRecord& record);
Result<tools::CanonicalRecord> DecodeCanonicalRecord(std::string_view bytes);

}  // namespace diagd::store
