// Small string_view helpers used by the line parsers. No allocation unless the name says so.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace commdx {

inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view TrimLeft(std::string_view s);
std::string_view TrimRight(std::string_view s);
std::string_view Trim(std::string_view s);

inline bool StartsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
inline bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
inline bool Contains(std::string_view s, std::string_view p) { return s.find(p) != s.npos; }

// If s starts with p, removes it and returns true.
bool ConsumePrefix(std::string_view& s, std::string_view p);

// Parses a whole string_view as an integer / double; nullopt if anything is left over.
std::optional<int64_t> ParseInt(std::string_view s);
std::optional<uint64_t> ParseHex(std::string_view s);
std::optional<double> ParseDouble(std::string_view s);
// A byte count with an optional binary unit: "8", "64K", "8M", "1.5GB", "9.54MB", "512B" (K, M, G,
// T are powers of 1024, either case, each with an optional B). Rounded to a whole byte; nullopt
// for a negative, non-finite or non-number value, or one past 2^64.
std::optional<uint64_t> ParseByteSize(std::string_view s);

// Reads a leading integer from s and advances s past it.
std::optional<int64_t> ConsumeInt(std::string_view& s);

// Splits on a single character; empty fields are kept.
std::vector<std::string_view> Split(std::string_view s, char sep);
// Splits on runs of whitespace; no empty fields.
std::vector<std::string_view> SplitWhitespace(std::string_view s);

// Joins numbers for a message: JoinInts({0, 3, 7}) is "0, 3, 7"; with last_sep " and ", "0, 3 and 7".
std::string JoinInts(const std::vector<int>& values, std::string_view sep = ", ",
                     std::string_view last_sep = ", ");

std::string ToLower(std::string_view s);

// s whole when it has at most `width` bytes; else cut at the last space within `width` (at the
// byte limit, not inside a UTF-8 character, when no space falls in its second half), trailing
// ",.:" dropped, and "..." added.
std::string CutAtWord(std::string_view s, size_t width);

// Replaces bytes that are not printable ASCII or valid UTF-8 by '?', so names from inputs can be
// shown and put into JSON safely.
std::string SanitizeUtf8(std::string_view s);

// Appends one Unicode code point (at most 0x10FFFF) as UTF-8.
void AppendUtf8(std::string& out, uint32_t code_point);

// "1.50 GB", "512 KiB"-style helpers for human output.
std::string FormatBytes(double bytes);
std::string FormatDurationNs(double ns);

}  // namespace commdx
