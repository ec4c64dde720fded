#include "cli/starter_config.h"

#include <fmt/format.h>

#include <cctype>

namespace culprit {

std::string StarterConfig(std::string_view engine_name_hint) {
  std::string name;
  for (char c : engine_name_hint) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') name += c;
  }
  if (name.empty() || name == "." || name == "..") name = "engine";
  return fmt::format(R"toml(# culprit.toml: how culprit builds and measures {name}.
# Paths are relative to this file. Durations are written "500ms", "60s", "20m", "1h".
# Edit the build commands, the artifact and the query, then try `culprit run example`.

[engine]
repo = "."                   # the engine's git repository
# Commands that build one commit, run in order in a checkout of it.
build = [["cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"],
         ["cmake", "--build", "build", "-j2"]]
# Files kept per commit in the build cache; commands refer to them by file
# name as {{artifact:NAME}}.
artifacts = ["build/{name}"]
build_timeout = "20m"
mode = "incremental"         # or "clean": build every commit from scratch

# One section per measured workload.
[queries."example"]
command = ["{{artifact:{name}}}", "--version"]
# "wall" is the process's wall time; or read the number from its output:
#   metric = {{ regex = 'median_ms=([0-9.]+)' }}   (the first group is the number)
#   metric = {{ json = "result.median_ms" }}        (a path into JSON on stdout)
metric = "wall"
unit = "ms"
timeout = "60s"
# The source files this query executes, for the bisect's relevance check:
# code_path = ["src/scan/**"]      # or "auto"
# cwd = "{{tree}}"                  # working directory ({{tree}}: the checkout)
# env = {{ THREADS = "1" }}

# A named override set: `culprit probe --override example_knob` tests its hypothesis.
# [overrides.example_knob]
# env = {{ EXAMPLE_KNOB = "1" }}
# hypothesis = "the knob's new default puts this query on the slow path"

# The engine's in-process harness (hold / release / run / quit on stdin/stdout).
# [harness]
# command = ["{{artifact:{name}}}", "serve"]

# Residency isolation plan for one suspect structure (needs [harness]).
# [residency."suspect structure"]
# query = "example"
# conditions = [
#   {{ name = "nothing held" }},
#   {{ name = "structure held", hold = ["structure"] }},
#   {{ name = "structure released", hold = ["structure"], release = ["structure"] }},
# ]

# The published benchmark table's query order, for `culprit audit`.
# [registry]
# order = ["example"]

[measure]
band = 0.05                  # ratios within +-5% are ties
confidence = 0.95
min_pairs = 10
max_pairs = 160
warmup = 1

[bisect]
target_probability = 0.99    # stop when one commit holds this much probability

[records]
dir = "benchmarks/results-v1"

# [cache]
# dir = "~/.cache/culprit"   # build cache; default $XDG_CACHE_HOME/culprit
)toml",
                     fmt::arg("name", name));
}

}  // namespace culprit
