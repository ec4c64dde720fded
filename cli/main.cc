#include "base/interrupt.h"
#include "cli/command_line.h"
#include "engine/orphans.h"

int main(int argc, char** argv) {
  culprit::InstallInterruptHandler();
  // Daemons an engine starts outside its process group are culprit's to stop.
  culprit::AdoptOrphans();
  return culprit::RunCommandLine(argc, argv);
}
