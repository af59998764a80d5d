// Compiles: the same call with an id that is in the catalogue (the control for
// unknown_finding_id.cc, so that test fails for the id and nothing else).
#include "analysis/catalogue.h"
int main() { return commdx::analysis::NewFinding("trace.host_sync").method_step; }
