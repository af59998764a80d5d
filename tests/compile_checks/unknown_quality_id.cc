// Must not compile: an input-quality id missing from kQualityIds (base/quality_ids.h).
#include "base/diagnostics.h"

void Note(commdx::Diagnostics& d) {
  d.Add("kineto.bad_evnet", commdx::DiagSeverity::kWarning, "skipped", {});
}
