#include "model/environment.h"

namespace commdx {

const char* NcclOriginName(NcclOrigin o) {
  switch (o) {
    case NcclOrigin::kFlag:
      return "--nccl-lib";
    case NcclOrigin::kEnvVar:
      return "COMMDX_NCCL_LIB";
    case NcclOrigin::kLoader:
      return "loader";
    case NcclOrigin::kPytorch:
      return "pytorch";
    case NcclOrigin::kProcess:
      return "process";
  }
  return "loader";
}

std::optional<NcclOrigin> ParseNcclOrigin(std::string_view s) {
  for (NcclOrigin o : {NcclOrigin::kFlag, NcclOrigin::kEnvVar, NcclOrigin::kLoader,
                       NcclOrigin::kPytorch, NcclOrigin::kProcess})
    if (s == NcclOriginName(o)) return o;
  return std::nullopt;
}

const char* NcclPluginKindName(NcclPluginKind k) {
  switch (k) {
    case NcclPluginKind::kNet:
      return "net";
    case NcclPluginKind::kProfiler:
      return "profiler";
    case NcclPluginKind::kTuner:
      return "tuner";
    case NcclPluginKind::kEnv:
      return "env";
    case NcclPluginKind::kGin:
      return "gin";
    case NcclPluginKind::kRma:
      return "rma";
    case NcclPluginKind::kOther:
      return "plugin";
  }
  return "plugin";
}

std::optional<NcclPluginKind> NcclPluginKindOf(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  constexpr std::string_view kLib = "libnccl";
  if (name.substr(0, kLib.size()) != kLib) return std::nullopt;
  std::string_view rest = name.substr(kLib.size());
  if (rest.empty() || rest[0] == '.') return std::nullopt;    // libnccl.so*: NCCL itself
  if (rest[0] != '-' && rest[0] != '_') return std::nullopt;  // libncclx.so: another library
  rest = rest.substr(1);
  auto starts = [&](std::string_view word) {
    return rest.substr(0, word.size()) == word &&
           (rest.size() == word.size() || rest[word.size()] == '-' || rest[word.size()] == '_' ||
            rest[word.size()] == '.');
  };
  // The word after "libnccl-" names the kind; aws-ofi-nccl's tuner is "libnccl-ofi-tuner.so".
  if (starts("profiler") || rest.find("profiler") != std::string_view::npos)
    return NcclPluginKind::kProfiler;
  if (starts("tuner") || rest.find("tuner") != std::string_view::npos)
    return NcclPluginKind::kTuner;
  if (starts("net")) return NcclPluginKind::kNet;
  if (starts("env")) return NcclPluginKind::kEnv;
  if (starts("gin")) return NcclPluginKind::kGin;
  if (starts("rma")) return NcclPluginKind::kRma;
  return NcclPluginKind::kOther;
}

}  // namespace commdx
