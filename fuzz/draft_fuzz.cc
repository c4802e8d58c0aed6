// agent::ParseDraft: the diagnosis agent's final message, the model's answer.
//
// Checks: the rejection categories match the input (blank is kEmpty, too long
// is kTooLarge); an accepted draft's canonical JSON (DraftJson) is valid
// UTF-8, parses again, and gives the same canonical JSON: what the repair
// call and the release step see is exactly what was accepted.
#include "agent/draft.h"
#include "core/text.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using diagd::agent::DraftRejection;
  std::string_view text = diagd::fuzz::Bytes(data, size);
  auto draft = diagd::agent::ParseDraft(text);
  if (!draft) {
    bool blank = diagd::text::IsBlank(text);
    FUZZ_CHECK((draft.error() == DraftRejection::kEmpty) == blank);
    FUZZ_CHECK((draft.error() == DraftRejection::kTooLarge) ==
               (!blank && size > diagd::agent::kMaxDraftBytes));
    return 0;
  }
  FUZZ_CHECK(size <= diagd::agent::kMaxDraftBytes);

  std::string canonical = diagd::agent::DraftJson(*draft);
  FUZZ_CHECK(diagd::text::IsValidUtf8(canonical));
  auto again = diagd::agent::ParseDraft(canonical);
  if (!again) {
    // Escaping may push a draft near the limit over it; nothing else may fail.
    FUZZ_CHECK(again.error() == DraftRejection::kTooLarge);
    return 0;
  }
  FUZZ_CHECK(diagd::agent::DraftJson(*again) == canonical);
  return 0;
}
