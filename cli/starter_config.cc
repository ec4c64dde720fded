#include "cli/starter_config.h"

#include <fmt/format.h>

#include <cctype>
#include <system_error>

namespace culprit {
namespace fs = std::filesystem;
namespace {

BuildSystem CMake() {
  return {"CMake",
          {{"cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"},
           {"cmake", "--build", "build", "-j2"}},
          "build/{name}",
          {},
          /*c_family=*/true};
}

/// The [engine] lines that offer ccache to a C-family build: on when it was found (a
/// rebuilt commit's unchanged objects cost little, and ccache never changes what a
/// build produces), otherwise commented out with the reason.
std::string CompilerCacheLines(const BuildSystem& build, const CompilerCacheOffer& ccache) {
  if (!build.c_family) return "";
  if (!ccache.found) {
    return fmt::format("# compiler_cache = \"ccache\"    # not offered: {}\n", ccache.detail);
  }
  return fmt::format(
      "# ccache was found ({}):\n"
      "# the build steps run through it, with a cache culprit keeps under [cache] dir;\n"
      "# delete the line to build without it.\n"
      "compiler_cache = \"ccache\"\n"
      "# compiler_cache_remote = \"redis://bench-cache:6379\"   # objects shared by hosts\n",
      ccache.detail);
}

/// A TOML array of strings: ["a", "b"]. The words are culprit's own (no
/// quotes or backslashes in them).
std::string TomlArray(const std::vector<std::string>& words) {
  std::string out = "[";
  for (size_t i = 0; i < words.size(); ++i) out += (i ? ", \"" : "\"") + words[i] + "\"";
  return out + "]";
}

std::string Substitute(std::string text, const std::string& name) {
  for (size_t at = text.find("{name}"); at != std::string::npos; at = text.find("{name}", at)) {
    text.replace(at, 6, name);
  }
  return text;
}

}  // namespace

BuildSystem DetectBuildSystem(const fs::path& dir) {
  std::error_code ec;
  auto has = [&](const char* file) { return fs::exists(dir / file, ec); };
  if (has("CMakeLists.txt")) return CMake();
  if (has("meson.build")) {
    // `meson setup` refuses a directory it configured already, and the
    // incremental checkout keeps build/ between commits.
    return {"Meson",
            {{"sh", "-c", "test -d build || meson setup build --buildtype=release"},
             {"meson", "compile", "-C", "build"}},
            "build/{name}",
            {},
            /*c_family=*/true};
  }
  if (has("Cargo.toml"))
    return {"Cargo", {{"cargo", "build", "--release"}}, "target/release/{name}", {}};
  if (has("go.mod")) return {"Go", {{"go", "build", "-o", "{name}", "."}}, "{name}", {}};
  if (has("configure")) {
    return {"Autotools",
            {{"sh", "-c", "test -f Makefile || ./configure"}, {"make", "-j2"}},
            "{name}",
            {},
            /*c_family=*/true};
  }
  if (has("Makefile") || has("makefile") || has("GNUmakefile")) {
    return {"Make", {{"make", "-j2"}}, "{name}", {}, /*c_family=*/true};
  }
  if (has("package.json")) {
    // No single program: the query runs a script of the package in the build's tree.
    return {"npm", {{"npm", "ci"}}, "", {"npm", "--prefix", "{tree}", "run", "bench"}};
  }
  BuildSystem unknown = CMake();
  unknown.name = "unknown";
  return unknown;
}

std::string StarterConfig(std::string_view engine_name_hint) {
  return StarterConfig(engine_name_hint, CMake());
}

namespace {

// The starter file: fmt placeholders {name}, {recognised}, {steps}, {artifacts},
// {compiler_cache} and {command}; literal braces doubled.
constexpr char kStarterTemplate[] = R"toml(# culprit.toml: how culprit builds and measures {name}.
# Paths are relative to this file. Durations are written "500ms", "60s", "20m", "1h".
# Edit the build commands, the artifact and the query, then try `culprit run example`.
{recognised}

[engine]
repo = "."                   # the engine's git repository
# Commands that build one commit, run in order in a checkout of it.
build = {steps}
# Files kept per commit in the build cache; commands refer to them by file
# name as {{artifact:NAME}}.
artifacts = {artifacts}
build_timeout = "20m"
mode = "incremental"         # or "clean": build every commit from scratch
{compiler_cache}
# One section per measured workload.
[queries."example"]
command = {command}
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
)toml";

/// The hint with only the characters an engine name may hold, or "engine" when
/// nothing usable is left.
std::string EngineName(std::string_view engine_name_hint) {
  std::string name;
  for (char c : engine_name_hint) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') name += c;
  }
  if (name.empty() || name == "." || name == "..") name = "engine";
  return name;
}

/// The build's steps as a TOML array of arrays, one step a line, named for `name`.
std::string StepsToml(const BuildSystem& build, const std::string& name) {
  std::string steps;
  for (size_t i = 0; i < build.steps.size(); ++i) {
    std::vector<std::string> step;
    for (const std::string& word : build.steps[i]) step.push_back(Substitute(word, name));
    steps += (i == 0 ? "[" : ",\n         ") + TomlArray(step);
  }
  return steps + "]";
}

}  // namespace

std::string StarterConfig(std::string_view engine_name_hint, const BuildSystem& build,
                          const CompilerCacheOffer& ccache) {
  const std::string name = EngineName(engine_name_hint);
  std::string steps = StepsToml(build, name);
  const bool has_artifact = !build.artifact.empty();
  std::string artifacts =
      has_artifact ? TomlArray({Substitute(build.artifact, name)}) : std::string("[]");
  // fmt inserts argument values verbatim: the placeholders are single braces.
  std::string command = has_artifact ? fmt::format("[\"{{artifact:{}}}\", \"--version\"]", name)
                                     : TomlArray(build.command_without_artifact);
  std::string recognised =
      build.name == "unknown"
          ? "# No build system was recognised here: edit the build commands below."
          : fmt::format("# The build steps fit the {} project found here; check them.", build.name);
  return fmt::format(kStarterTemplate, fmt::arg("name", name), fmt::arg("recognised", recognised),
                     fmt::arg("steps", steps), fmt::arg("artifacts", artifacts),
                     fmt::arg("command", command),
                     fmt::arg("compiler_cache", CompilerCacheLines(build, ccache)));
}

}  // namespace culprit
