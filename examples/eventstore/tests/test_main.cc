// Runs every TEST in the binary (or those whose name contains argv[1]).

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "check.h"

int main(int argc, char** argv) {
  // Checkpoints written by the tests go to a directory of their own, removed
  // at the end, never to the user's $TMPDIR.
  std::string data_dir = (std::filesystem::temp_directory_path() / "eventstore-tests-XXXXXX").string();
  if (mkdtemp(data_dir.data()) == nullptr) return 2;
  setenv("EVENTSTORE_DATA_DIR", data_dir.c_str(), 1);
  int ran = 0;
  for (const check::Test& test : check::Registry()) {
    if (argc > 1 && std::strstr(test.name, argv[1]) == nullptr) continue;
    const int before = check::Failures();
    test.body();
    std::cerr << (check::Failures() == before ? "ok    " : "FAIL  ") << test.name << "\n";
    ++ran;
  }
  std::cerr << ran << " tests, " << check::Failures() << " failed checks\n";
  std::error_code ignored;
  std::filesystem::remove_all(data_dir, ignored);
  return check::Failures() == 0 && ran > 0 ? 0 : 1;
}
