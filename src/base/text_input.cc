#include "base/text_input.h"

#include <algorithm>
#include <string_view>

namespace commdx {

void NormalizeInputText(std::string& text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (std::string_view(text).substr(0, kBom.size()) == kBom) text.erase(0, kBom.size());
  if (text.find('\n') != std::string::npos || text.find('\r') == std::string::npos) return;
  std::replace(text.begin(), text.end(), '\r', '\n');
}

}  // namespace commdx
