// Must NOT compile with the analysis layer's include root: analysis never includes ingest.
#include "ingest/registry.h"
int main() { return 0; }
