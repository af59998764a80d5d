// commdx's own reports (every command's text, Markdown, HTML and JSON output), recognised from
// their first bytes so that a report saved with -o inside a job folder is not read back as an
// input: the NCCL lines it quotes as evidence would add phantom processes and communicators.
#pragma once

#include <string>
#include <string_view>

namespace commdx::ingest {

// "text", "Markdown", "HTML" or "JSON" when `head` starts like a commdx report; else empty.
std::string OwnReportKind(std::string_view head);

}  // namespace commdx::ingest
