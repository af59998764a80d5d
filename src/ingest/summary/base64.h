// Base64 (RFC 4648, with padding) for the inputs a summary carries whose bytes are not UTF-8 text
// (Flight Recorder pickles): a JSON string holds only text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace commdx::ingest::summary {

std::string Base64Encode(std::string_view bytes);
// nullopt when `text` is not base64 (a character outside the alphabet, a length not a multiple of
// four, padding inside).
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace commdx::ingest::summary
