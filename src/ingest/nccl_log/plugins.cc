// External plugins NCCL loaded (grammar §2.4): the library it opened, and the name the plugin
// gives itself. A plugin is never "the NCCL library" (issue 42): these lines are where a log
// says which plugin libraries a process ran with.
//
//   vm:1052:1052 [0] NCCL INFO Successfully loaded external profiler plugin
//       /work/main/devtools/libnccl-profiler-inspector.so          (2.28+; network, tuner, env,
//                                                                   gin likewise)
//   ^host:pid:tid [dev]                            ^kind word       ^the library, as NCCL got it
//   x:1:1 [0] NCCL INFO Successfully loaded external plugin libnccl-net.so   (2.27: network only)
//   vm:1052:1052 [0] NCCL INFO PROFILER/Plugin: Loaded Inspector (v5)
//   x:1:1 [0] NCCL INFO TUNER/Plugin: Using nccl_ofi_tuner (v3)    ENV/Plugin: Using NAME (vN)
//   x:1:1 [0] NCCL INFO GIN/Plugin: Loaded gin plugin NAME (v14)                    (2.30+)
//   x:1:1 [0] NCCL INFO GIN/Plugin: Successfully loaded external plugin PATH        (2.30.7+;
//                                                                   RMA/Plugin likewise)
//
// NET/Plugin lines ("Loaded net plugin X (v8)", "Could not find: libnccl-net.so") are read by
// network.cc: they say which network a process used. The "Could not find" lines of the other
// kinds, "Closing ... plugin", "init commName: ..." are known lines with nothing to keep
// (benign.cc).
#include "base/text.h"
#include "ingest/nccl_log/kinds.h"

namespace commdx::ingest::nccl_log {

namespace {

struct KindWord {
  std::string_view word;
  NcclPluginKind kind;
};

// The words NCCL prints: "external <word> plugin", "<WORD>/Plugin:".
constexpr KindWord kExternalWords[] = {
    {"network", NcclPluginKind::kNet}, {"profiler", NcclPluginKind::kProfiler},
    {"tuner", NcclPluginKind::kTuner}, {"env", NcclPluginKind::kEnv},
    {"gin", NcclPluginKind::kGin},     {"rma", NcclPluginKind::kRma},
};
constexpr KindWord kSubsysWords[] = {
    {"PROFILER/Plugin: ", NcclPluginKind::kProfiler}, {"TUNER/Plugin: ", NcclPluginKind::kTuner},
    {"ENV/Plugin: ", NcclPluginKind::kEnv},           {"GIN/Plugin: ", NcclPluginKind::kGin},
    {"RMA/Plugin: ", NcclPluginKind::kRma},
};

// "Inspector (v5)" -> "Inspector": the name before the trailing "(vN)"; empty if there is none.
std::string_view NameBeforeVersion(std::string_view s) {
  s = Trim(s);
  size_t open = s.rfind(" (v");
  if (open == std::string_view::npos || !EndsWith(s, ")")) return {};
  return Trim(s.substr(0, open));
}

Parsed PluginPath(const LineInfo& li, NcclPluginKind kind, std::string_view path, Builder& b) {
  path = Trim(path);
  if (path.empty()) return Parsed::kMalformed;
  b.AddPlugin(li, kind, "", path);
  return Parsed::kYes;
}

// "Successfully loaded external profiler plugin PATH" (rest after "external ").
Parsed ExternalPlugin(const LineInfo& li, std::string_view rest, Builder& b) {
  for (const auto& w : kExternalWords) {
    std::string_view s = rest;
    if (!ConsumePrefix(s, w.word) || !ConsumePrefix(s, " plugin ")) continue;
    return PluginPath(li, w.kind, s, b);
  }
  // 2.27 named no kind: only the network plugin printed it.
  if (ConsumePrefix(rest, "plugin ")) return PluginPath(li, NcclPluginKind::kNet, rest, b);
  return Parsed::kNo;
}
}  // namespace

Parsed ParsePlugins(const LineInfo& li, Builder& b) {
  std::string_view s = li.msg;
  if (ConsumePrefix(s, "Successfully loaded external ")) return ExternalPlugin(li, s, b);
  for (const auto& w : kSubsysWords) {
    if (!ConsumePrefix(s, w.word)) continue;
    if (ConsumePrefix(s, "Successfully loaded external plugin "))
      return PluginPath(li, w.kind, s, b);
    // "Loaded Inspector (v5)", "Using nccl_ofi_tuner (v3)", "Loaded gin plugin X (v14)".
    if (!ConsumePrefix(s, "Loaded ") && !ConsumePrefix(s, "Using ")) return Parsed::kNo;
    ConsumePrefix(s, "gin plugin ");
    std::string_view name = NameBeforeVersion(s);
    if (name.empty()) return Parsed::kNo;  // another PROFILER/... line: benign.cc
    b.AddPlugin(li, w.kind, name, "");
    return Parsed::kYes;
  }
  return Parsed::kNo;
}

}  // namespace commdx::ingest::nccl_log
