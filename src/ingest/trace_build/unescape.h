// The form names come in: RawEvent::name and RawEvent::meta_name hold a name as it sits between
// the quotes of a JSON string, escapes as written. The Kineto importer hands over the bytes of its
// file as they are; the nsys importer doubles backslashes (nsys/export_reader.h). RankBuilder
// unescapes them as it keeps them, the interner once per distinct name rather than per event.
#pragma once

#include <string>
#include <string_view>

namespace commdx::ingest::trace_build {

// JSON string escapes (\" \\ \/ \b \f \n \r \t \uXXXX with surrogate pairs) to UTF-8.
std::string JsonUnescape(std::string_view raw);

}  // namespace commdx::ingest::trace_build
