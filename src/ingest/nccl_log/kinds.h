// One parser per kind of NCCL line. Each looks at a split line (line.h) and returns kNo when the
// message is not of its kind, so the dispatcher can try the next one. A line of a known kind
// whose fields cannot be read is kMalformed: counted in job.quality, never dropped silently.
#pragma once

#include <string_view>

#include "ingest/nccl_log/builder.h"
#include "ingest/nccl_log/line.h"

namespace commdx::ingest::nccl_log {

enum class Parsed { kNo, kYes, kMalformed };

Parsed ParseVersion(const LineInfo& li, Builder& b);          // version.cc
Parsed ParseCommInit(const LineInfo& li, Builder& b);         // comm_init.cc
Parsed ParseConnection(const LineInfo& li, Builder& b);       // connection.cc
Parsed ParseRingsTrees(const LineInfo& li, Builder& b);       // rings_trees.cc
Parsed ParseChannelCounts(const LineInfo& li, Builder& b);    // channel_counts.cc
Parsed ParseNetwork(const LineInfo& li, Builder& b);          // network.cc
Parsed ParseNicList(const LineInfo& li, Builder& b);          // nic_list.cc
Parsed ParseNicContinuation(const LineInfo& li, Builder& b);  // nic_list.cc
Parsed ParseGdr(const LineInfo& li, Builder& b);              // gdr.cc
Parsed ParseEnv(const LineInfo& li, Builder& b);              // env.cc
Parsed ParseWarn(const LineInfo& li, Builder& b);             // warn.cc
Parsed ParseErrorReturn(const LineInfo& li, Builder& b);      // error_return.cc
Parsed ParseNvls(const LineInfo& li, Builder& b);             // nvls.cc
Parsed ParseP2p(const LineInfo& li, Builder& b);              // p2p.cc
Parsed ParseGraph(const LineInfo& li, Builder& b);            // graph.cc
Parsed ParseColl(const LineInfo& li, Builder& b);             // coll.cc: COLL and TUNING
Parsed ParsePlugins(const LineInfo& li, Builder& b);          // plugins.cc
Parsed ParseBenign(const LineInfo& li);                       // benign.cc: known, nothing to keep

// Lines that are not NCCL output but carry NCCL evidence (foreign.cc): a framework's
// "Last error:" followed by the WARN text, "ncclSystemError: ..." lines, a pasted command with
// NCCL_X=Y assignments, pasted `lspci -vvv` "ACSCtl: SrcValid+" lines.
struct ForeignState {
  bool expect_last_error = false;
};
bool ParseForeign(const LineInfo& li, Builder& b, ForeignState& state);

// Helpers shared by the line kinds (fields.cc).
// Reads "<key> <int>" after the first occurrence of `key` + ' ' in s; -1 if absent.
int IntAfter(std::string_view s, std::string_view key);
// Reads the word after "<key> " in s; empty if absent.
std::string_view WordAfter(std::string_view s, std::string_view key);
// Parses "2.19.3" out of "2.19.3+cuda12.3"; empty when it is not a version.
std::string_view VersionNumber(std::string_view full);

}  // namespace commdx::ingest::nccl_log
