#include "investigate/demo_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

namespace culprit {
namespace {

// Whether `path` is `dir` or inside it, both made absolute and canonical as far as they exist.
bool IsInside(const std::filesystem::path& path, const std::filesystem::path& dir) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  if (ec) return false;
  const std::filesystem::path d = std::filesystem::weakly_canonical(dir, ec);
  if (ec || d.empty()) return false;
  auto [d_end, p_end] = std::mismatch(d.begin(), d.end(), p.begin(), p.end());
  // A trailing separator leaves an empty last component in `d`.
  return d_end == d.end() || (std::next(d_end) == d.end() && d_end->empty());
}

// The first file of kDemoDataFiles missing under `examples`; empty when none is.
std::string FirstMissing(const std::filesystem::path& examples) {
  std::error_code ec;
  for (const char* file : kDemoDataFiles) {
    if (!std::filesystem::exists(examples / file, ec)) return file;
  }
  return "";
}

}  // namespace

std::vector<std::filesystem::path> DemoExamplesCandidates(const DemoDataPlaces& places) {
  if (!places.explicit_dir.empty()) return {places.explicit_dir};
  std::vector<std::filesystem::path> candidates;
  if (!places.executable.empty()) {
    candidates.push_back((places.executable.parent_path() / ".." / "share" / "culprit" / "examples")
                             .lexically_normal());
  }
  if (!places.executable.empty() && !places.build_dir.empty() && !places.source_dir.empty() &&
      IsInside(places.executable, places.build_dir)) {
    candidates.push_back(places.source_dir / "examples");
  }
  return candidates;
}

Result<std::filesystem::path> FindDemoExamples(const DemoDataPlaces& places) {
  std::vector<std::string> looked;
  for (const std::filesystem::path& candidate : DemoExamplesCandidates(places)) {
    const std::string missing = FirstMissing(candidate);
    if (missing.empty()) return candidate;
    looked.push_back(fmt::format("{} (no {})", candidate.string(), missing));
  }
  if (looked.empty()) {
    return Error::Usage("cannot find the demo engine: the running culprit's path is unknown")
        .WithHint("give culprit's examples/ directory with --examples");
  }
  std::string where;
  for (const std::string& place : looked) where += "\n  " + place;
  return Error::Usage(fmt::format("cannot find the demo engine; looked in:{}", where))
      .WithHint(places.explicit_dir.empty()
                    ? "install culprit with `cmake --install BUILD --prefix P` (the demo's "
                      "files go to P/share/culprit/examples), or give culprit's examples/ "
                      "directory with --examples"
                    : "--examples takes culprit's examples/ directory (the one holding "
                      "eventstore/)");
}

DemoDataPlaces RunningDemoDataPlaces(const std::filesystem::path& explicit_dir) {
  DemoDataPlaces places;
  places.explicit_dir = explicit_dir;
  std::error_code ec;
  places.executable = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) places.executable.clear();
  places.build_dir = CULPRIT_BINARY_DIR;
  places.source_dir = CULPRIT_SOURCE_DIR;
  return places;
}

}  // namespace culprit
