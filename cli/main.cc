#include "base/interrupt.h"
#include "base/invocation.h"
#include "cli/command_line.h"
#include "engine/orphans.h"

int main(int argc, char** argv) {
  culprit::InstallInterruptHandler();
  culprit::SetInvocation(argc, argv);
  // Daemons an engine starts outside its process group are culprit's to stop.
  culprit::AdoptOrphans();
  return culprit::RunCommandLine(argc, argv);
}
