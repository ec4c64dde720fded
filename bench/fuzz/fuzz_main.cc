// One libFuzzer binary per target: CULPRIT_FUZZ_TARGET names the entry point
// of fuzz_targets.h it drives (set by bench/fuzz/CMakeLists.txt).

#include <cstddef>
#include <cstdint>

#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CULPRIT_FUZZ_TARGET(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
