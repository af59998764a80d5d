// printf-style formatting into a std::string sized to fit, so that no message is ever cut short
// (a fixed `char buf[N]` silently drops what does not fit). The format is checked at compile time
// like printf's.
#pragma once

#include <cstdarg>
#include <string>

namespace commdx {

std::string StrFormat(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string StrFormatV(const char* fmt, va_list args) __attribute__((format(printf, 1, 0)));

// `v` with `decimals` digits after the point, exactly as printf's "%.*f" writes it (std::to_chars
// is specified so), appended to `out` without printf's cost: reports of many-step traces hold
// hundreds of thousands of numbers.
void AppendFixed(std::string& out, double v, int decimals);
std::string FormatFixed(double v, int decimals);

}  // namespace commdx
