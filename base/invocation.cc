#include "base/invocation.h"

namespace culprit {
namespace {

std::vector<std::string>& StoredArguments() {
  static auto* words = new std::vector<std::string>();
  return *words;
}

}  // namespace

void SetInvocation(int argc, char** argv) { StoredArguments().assign(argv, argv + argc); }

const std::vector<std::string>& Invocation() { return StoredArguments(); }

}  // namespace culprit
