// Compiles: an input-quality id that is in kQualityIds (base/quality_ids.h), and a family member.
#include "base/diagnostics.h"

void Note(commdx::Diagnostics& d) {
  d.Add("kineto.bad_event", commdx::DiagSeverity::kWarning, "skipped", {});
  d.Add(commdx::QualityFamily("load.partial_"), "kineto", commdx::DiagSeverity::kNote, "m", {});
}
