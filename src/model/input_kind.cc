#include "model/input_kind.h"

namespace commdx {

const char* InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kKineto:
      return "kineto";
    case InputKind::kNsys:
      return "nsys";
    case InputKind::kNcclTests:
      return "nccl_tests";
    case InputKind::kNcclLog:
      return "nccl_log";
    case InputKind::kSnapshot:
      return "snapshot";
    case InputKind::kEnvDump:
      return "env_dump";
    case InputKind::kSmiTopo:
      return "smi_topo";
    case InputKind::kSmiP2P:
      return "smi_p2p";
    case InputKind::kSmiNvlink:
      return "smi_nvlink";
    case InputKind::kSavedResult:
      return "saved_result";
    case InputKind::kFlightRecorder:
      return "flight_recorder";
    case InputKind::kJobLog:
      return "job_log";
    case InputKind::kFrAnalysis:
      return "fr_analysis";
    case InputKind::kSummary:
      return "summary";
    case InputKind::kInspector:
      return "inspector";
    case InputKind::kRas:
      return "ras";
    case InputKind::kNcclTestsJson:
      return "nccl_tests_json";
    case InputKind::kInspectorProm:
      return "inspector_prom";
  }
  return "unknown";
}

Source InputKindSource(InputKind kind) {
  switch (kind) {
    case InputKind::kKineto:
    case InputKind::kNsys:
      return Source::kTrace;
    case InputKind::kNcclLog:
    case InputKind::kFlightRecorder:
    case InputKind::kJobLog:
    case InputKind::kFrAnalysis:
    case InputKind::kInspector:
    case InputKind::kInspectorProm:
    case InputKind::kRas:
      return Source::kLogs;
    case InputKind::kNcclTests:
    case InputKind::kNcclTestsJson:
      return Source::kBench;
    case InputKind::kSnapshot:
    case InputKind::kSmiTopo:
    case InputKind::kSmiP2P:
    case InputKind::kSmiNvlink:
      return Source::kTopo;
    case InputKind::kEnvDump:
      return Source::kEnv;
    case InputKind::kSavedResult:
    case InputKind::kSummary:  // its row also names the kinds of what it holds
      return Source::kNone;
  }
  return Source::kNone;
}

std::string InputKindsName(const std::vector<InputKind>& kinds) {
  std::string out;
  for (InputKind k : kinds) out += (out.empty() ? "" : "+") + std::string(InputKindName(k));
  return out;
}

}  // namespace commdx
