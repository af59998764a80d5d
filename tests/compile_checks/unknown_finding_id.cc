// Must NOT compile: "trace.host_synk" is not in the catalogue (src/analysis/catalogue_table.h),
// and FindingId looks every literal id up when the program is compiled.
#include "analysis/catalogue.h"
int main() { return commdx::analysis::NewFinding("trace.host_synk").method_step; }
