// Importer for NCCL Inspector profiler plugin output (NVIDIA/nccl ext-profiler/inspector, NCCL
// 2.23 to 2.29; plugins/profiler/inspector from 2.30; output format v4): JSONL, one file per
// process (<host>-pid<pid>.log, or .jsonl, .gz), one record per completed collective (2.30 also
// writes sends and receives: counted, not read). Recognised by its first line: a JSON object with
// "header" and "metadata" holding "inspector_output_format_version".
#pragma once

#include <string_view>

#include "base/file.h"
#include "base/result.h"
#include "model/job.h"

namespace commdx::ingest {

bool SniffInspector(std::string_view head);
// Every record line into job.inspector; bad lines counted in job.quality and skipped. An error
// only when no line of the file is a record.
Status ParseInspector(const FileText& file, Job& job);
// The Prometheus mode of the same plugin (NCCL_INSPECTOR_PROM_DUMP=1, 2.29+): text exposition,
// nccl_inspector_metrics_<GPU UUID>.prom, or a node exporter page holding its samples.
// Recognised by a line starting with one of its metric names; read into the same records.
bool SniffInspectorProm(std::string_view head);
Status ParseInspectorProm(const FileText& file, Job& job);
// Once after every file: duplicates across files, communicators missing ranks, coll_sn gaps.
void FinishInspector(Job& job);

}  // namespace commdx::ingest
