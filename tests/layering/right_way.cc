// Must compile with the analysis layer's include root: analysis may include model and base.
#include "model/job.h"
int main() { return 0; }
