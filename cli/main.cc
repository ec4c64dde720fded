#include "base/interrupt.h"
#include "cli/command_line.h"

int main(int argc, char** argv) {
  culprit::InstallInterruptHandler();
  return culprit::RunCommandLine(argc, argv);
}
