#include "cli/app.h"

int main(int argc, char** argv) { return commdx::cli::Run(argc, argv); }
