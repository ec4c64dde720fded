// Runs every TEST in the binary (or those whose name contains argv[1]).

#include <cstring>

#include "check.h"

int main(int argc, char** argv) {
  int ran = 0;
  for (const check::Test& test : check::Registry()) {
    if (argc > 1 && std::strstr(test.name, argv[1]) == nullptr) continue;
    const int before = check::Failures();
    test.body();
    std::cerr << (check::Failures() == before ? "ok    " : "FAIL  ") << test.name << "\n";
    ++ran;
  }
  std::cerr << ran << " tests, " << check::Failures() << " failed checks\n";
  return check::Failures() == 0 && ran > 0 ? 0 : 1;
}
