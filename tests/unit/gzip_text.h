// Test inputs: text gzip-compressed in memory, as `gzip` writes it (one member).
#pragma once

#include <zlib.h>

#include <string>

namespace commdx {

inline std::string GzipString(const std::string& s) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, s.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  zs.avail_in = static_cast<uInt>(s.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace commdx
