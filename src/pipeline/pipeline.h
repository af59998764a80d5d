// The one way from inputs to a report, for every command: the job (ingest::LoadInputs, or the
// facts a command probed or measured), the "nothing was read" check, the analysis input
// (trace facts, pattern, late ranks, bench summaries: each computed once), the diagnosis, the
// data of every table (analysis/table_data.h) and chart, and the Report the cli renders.
#pragma once

#include "base/result.h"
#include "pipeline/request.h"

namespace commdx::pipeline {

// Errors: what LoadInputs returns (a broken file named alone: file:line:col), and the one
// "nothing was read" error (exit 3) when the files gave nothing the request needs.
Result<Outcome> Run(Request request);

// The job a command acts on before it reports (bench replay reads the job's collectives, then
// measures): request.paths read with request.load, then the "nothing was read" check for
// request.needs.
Result<Job> Load(const Request& request);

}  // namespace commdx::pipeline
