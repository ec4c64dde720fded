#pragma once

// The command line this culprit process was started with. main records it
// once; every record written carries it ("invocation"), so that a record says
// exactly what ran, however deep in the pipeline it was written.

#include <string>
#include <vector>

namespace culprit {

/// Remembers argv[0..argc) as the invocation. Call once, from main.
void SetInvocation(int argc, char** argv);

/// What SetInvocation remembered; empty when it was never called (tests).
const std::vector<std::string>& Invocation();

}  // namespace culprit
