#include "base/interrupt.h"
#include "base/invocation.h"
#include "cli/command_line.h"

int main(int argc, char** argv) {
  culprit::InstallInterruptHandler();
  culprit::SetInvocation(argc, argv);
  return culprit::RunCommandLine(argc, argv);
}
