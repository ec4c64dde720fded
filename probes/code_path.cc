#include "probes/code_path.h"

#include <fmt/format.h>
#include <fnmatch.h>
#include <stdlib.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "base/atomic_file.h"
#include "base/json_text.h"
#include "base/strings.h"
#include "engine/process.h"
#include "engine/query_command.h"
#include "probes/engine_builds.h"
#include "probes/measure_commands.h"

namespace culprit {
namespace fs = std::filesystem;
namespace {

// The coverage build's extra step and artifact: gcov needs each object's
// .gcno beside its .gcda, and the cache keeps artifacts, not build trees, so
// the notes files travel with the build as one archive.
constexpr char kNotesArchive[] = "culprit-gcno.tar";
constexpr char kMeasuredFile[] = "code_path.json";

CodePath Unknown(std::string why) {
  CodePath path;
  path.why_unknown = std::move(why);
  return path;
}

/// `path` relative to `root` when it lies inside it; nullopt otherwise.
std::optional<std::string> Inside(const fs::path& path, const fs::path& root) {
  fs::path relative = path.lexically_normal().lexically_relative(root.lexically_normal());
  if (relative.empty() || *relative.begin() == "..") return std::nullopt;
  return relative.generic_string();
}

std::vector<std::string> SortedUnique(std::vector<std::string> files) {
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

Status Interrupted(const ProcessResult& result) {
  if (result.outcome == ProcessOutcome::kInterrupted) {
    return Error::Interrupted("interrupted while measuring the code path");
  }
  return {};
}

/// code_path = { command = [...] } at `commit`, run in the build's tree.
Result<CodePath> FromCommand(const EngineSections& config, const QueryConfig& query,
                             const std::string& commit, BuildProgress* progress) {
  Result<std::unique_ptr<EngineBuilds>> builds = EngineBuilds::Open(config, false, progress);
  if (!builds) return Unknown(builds.error().message());
  Result<ResolvedBuild> build = (*builds)->ResolveCommit(commit);
  if (!build) {
    if (build.error().kind() == ErrorKind::kInterrupted) return build.error();
    return Unknown("the commit does not build: " + FirstLine(build.error().message()));
  }
  // The paths it prints are the source tree's, whatever the query's cwd.
  Result<Build> made = (*builds)->cache().Ensure(commit);
  if (!made) return Unknown(made.error().message());
  Result<fs::path> tree = (*builds)->cache().SourceTree(*made);
  if (!tree) return Unknown(tree.error().message());
  ProcessSpec spec;
  Result<std::vector<std::string>> argv = ExpandCommand(query.code_path_command, build->context);
  if (!argv) return argv.error();
  spec.argv = std::move(*argv);
  spec.cwd = *tree;
  spec.timeout = query.timeout;
  ProcessResult result = RunProcess(spec);
  CULPRIT_TRY(Interrupted(result));
  if (!result.ok()) {
    return Unknown(fmt::format("the code_path command {}", result.Describe(spec)));
  }
  CodePath path;
  path.source = CodePath::Source::kCommand;
  path.commit = commit;
  for (std::string_view line : SplitLines(result.stdout_text)) {
    if (line.empty()) continue;
    fs::path file{std::string(line)};
    if (file.is_relative()) file = *tree / file;
    if (std::optional<std::string> relative = Inside(file, *tree)) path.files.push_back(*relative);
  }
  path.files = SortedUnique(std::move(path.files));
  return path;
}

/// code_path = "auto": a coverage build of `commit`, the query once, gcov.
/// The builds of config with coverage flags, in their own cache, each keeping its
/// objects' notes (.gcno) as an artifact.
Result<std::unique_ptr<EngineBuilds>> OpenCoverageBuilds(const EngineSections& config,
                                                         BuildProgress* progress) {
  // Its own cache, so coverage objects never mix with the measured builds.
  EngineSections coverage = config;
  coverage.cache.dir = config.cache.dir / "coverage";
  return EngineBuilds::OpenAdjusted(coverage, progress, [](BuildSettings& settings) {
    settings.env = {
        {"CFLAGS", "--coverage -O0"}, {"CXXFLAGS", "--coverage -O0"}, {"LDFLAGS", "--coverage"}};
    settings.clean = false;  // the notes' paths name the scratch checkout
    settings.steps.push_back(
        {"sh", "-c",
         std::string("find . -name '*.gcno' -print0 | tar --null -cf ") + kNotesArchive + " -T -"});
    settings.artifacts.push_back(kNotesArchive);
  });
}

/// The path measured before for query at commit, kept in the build's entry; nullopt when
/// there is none for this query.
std::optional<CodePath> CachedCoveragePath(const fs::path& entry, const QueryConfig& query,
                                           const std::string& commit) {
  Result<std::string> cached = ReadFile(entry / kMeasuredFile);
  if (!cached) return std::nullopt;
  nlohmann::json doc = nlohmann::json::parse(*cached, nullptr, false);
  if (!doc.is_object() || doc.value("query", "") != query.name || !doc["files"].is_array()) {
    return std::nullopt;
  }
  CodePath path;
  path.source = CodePath::Source::kCoverage;
  path.commit = commit;
  for (const auto& file : doc["files"]) {
    if (file.is_string()) path.files.push_back(file.get<std::string>());
  }
  return path;
}

/// The files a run executed: the notes archive unpacked beside the run's .gcda files in
/// `data`, read by gcov; unknown (saying why) when there is no data or gcov fails.
Result<CodePath> ReadCoverageData(const fs::path& notes, const fs::path& data,
                                  const fs::path& checkout, const std::string& commit) {
  ProcessSpec untar;
  untar.argv = {"tar", "-xf", notes.string(), "-C", data.string()};
  if (ProcessResult r = RunProcess(untar); !r.ok()) {
    return Unknown(fmt::format("cannot unpack the coverage notes: tar {}", r.Describe(untar)));
  }
  std::vector<std::string> gcda;
  std::error_code ec;
  for (const auto& file : fs::recursive_directory_iterator(data, ec)) {
    if (file.path().extension() == ".gcda") gcda.push_back(file.path().string());
  }
  if (gcda.empty()) {
    return Unknown(
        "the query wrote no coverage data: do the build steps pass CFLAGS, CXXFLAGS and LDFLAGS "
        "to the compiler?");
  }
  ProcessSpec gcov;
  gcov.argv = {"gcov", "--json-format", "--stdout"};
  gcov.argv.insert(gcov.argv.end(), gcda.begin(), gcda.end());
  gcov.cwd = data;
  gcov.output_limit = 256 << 20;
  ProcessResult read = RunProcess(gcov);
  CULPRIT_TRY(Interrupted(read));
  if (!read.ok()) return Unknown(fmt::format("gcov {}", read.Describe(gcov)));

  CodePath path;
  path.source = CodePath::Source::kCoverage;
  path.commit = commit;
  path.files = ExecutedFiles(read.stdout_text, checkout.string());
  return path;
}

Result<CodePath> FromCoverage(const EngineSections& config, const QueryConfig& query,
                              const std::string& commit, BuildProgress* progress) {
  ProcessSpec gcov_version;
  gcov_version.argv = {"gcov", "--version"};
  if (!RunProcess(gcov_version).ok()) {
    return Unknown("gcov is not installed (it ships with g++), so coverage cannot be read");
  }
  Result<std::unique_ptr<EngineBuilds>> builds = OpenCoverageBuilds(config, progress);
  if (!builds) return Unknown(builds.error().message());
  Result<ResolvedBuild> build = (*builds)->ResolveCommit(commit);
  if (!build) {
    if (build.error().kind() == ErrorKind::kInterrupted) return build.error();
    return Unknown("the coverage build failed: " + FirstLine(build.error().message()));
  }
  const fs::path notes = build->context.artifacts.at(kNotesArchive);
  const fs::path entry = notes.parent_path().parent_path();
  // Measured once per commit (and build steps).
  if (std::optional<CodePath> cached = CachedCoveragePath(entry, query, commit)) return *cached;

  std::string pattern = (fs::temp_directory_path() / "culprit-coverage-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return Unknown("cannot create a temporary directory");
  const fs::path data = pattern;
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{data};

  // The .gcda files go where GCOV_PREFIX says, under their objects' paths
  // with the scratch checkout's leading components stripped: relative to the
  // checkout, as in the notes archive.
  const fs::path checkout =
      ((*builds)->cache().engine_dir() / "scratch" / "src").lexically_normal();
  int strip = 0;
  for (const auto& part : checkout.relative_path()) strip += part.empty() ? 0 : 1;
  Result<ProcessArm> arm = MakeQueryArm(config, query, *build, {}, {});
  if (!arm) return arm.error();
  arm->process.set_env["GCOV_PREFIX"] = data.string();
  arm->process.set_env["GCOV_PREFIX_STRIP"] = std::to_string(strip);
  ProcessResult run = RunProcess(arm->process);
  CULPRIT_TRY(Interrupted(run));
  if (!run.ok()) {
    return Unknown(fmt::format("the query {} on the coverage build", run.Describe(arm->process)));
  }

  Result<CodePath> path = ReadCoverageData(notes, data, checkout, commit);
  if (!path || path->source != CodePath::Source::kCoverage) return path;
  nlohmann::json doc = {{"query", query.name}, {"files", path->files}};
  // A cache: when it cannot be written, the next relevance check measures the path again.
  (void)WriteFileAtomically(entry / kMeasuredFile, ToJsonText(doc, 2) + "\n",
                            ExistingFile::kReplace);
  return path;
}

}  // namespace

bool CodePath::Contains(const std::string& path) const {
  switch (source) {
    case Source::kGlobs:
      return std::any_of(globs.begin(), globs.end(), [&](const std::string& glob) {
        return fnmatch(glob.c_str(), path.c_str(), 0) == 0;
      });
    case Source::kCoverage:
    case Source::kCommand:
      return std::binary_search(files.begin(), files.end(), path);
    case Source::kUnknown:
      return false;
  }
  return false;
}

std::string CodePath::Describe() const {
  switch (source) {
    case Source::kGlobs:
      return "globs " + Join(globs, ", ");
    case Source::kCoverage:
      return fmt::format("coverage at {} ({} files)", ShortCommit(commit), files.size());
    case Source::kCommand:
      return fmt::format("the code_path command at {} ({} files)", ShortCommit(commit),
                         files.size());
    case Source::kUnknown:
      return "unknown: " + why_unknown;
  }
  return "";
}

std::vector<std::string> ExecutedFiles(std::string_view gcov_json_lines,
                                       const std::string& checkout) {
  std::vector<std::string> files;
  for (std::string_view line : SplitLines(gcov_json_lines)) {
    nlohmann::json doc = nlohmann::json::parse(std::string(line), nullptr, false);
    if (!doc.is_object() || !doc.contains("files") || !doc["files"].is_array()) continue;
    fs::path cwd = doc.value("current_working_directory", std::string());
    for (const auto& file : doc["files"]) {
      if (!file.is_object() || !file.contains("lines") || !file["lines"].is_array()) continue;
      bool executed = std::any_of(file["lines"].begin(), file["lines"].end(), [](const auto& l) {
        return l.is_object() && l.contains("count") && l["count"].is_number() &&
               l["count"].template get<double>() > 0;
      });
      if (!executed) continue;
      fs::path source = file.value("file", std::string());
      if (source.empty()) continue;
      if (source.is_relative()) source = cwd / source;
      if (std::optional<std::string> relative = Inside(source, checkout)) {
        files.push_back(*relative);
      }
    }
  }
  return SortedUnique(std::move(files));
}

Result<CodePath> FindCodePath(const EngineSections& config, const QueryConfig& query,
                              const std::string& commit, BuildProgress* progress) {
  if (!query.code_path.empty()) {
    CodePath path;
    path.source = CodePath::Source::kGlobs;
    path.globs = query.code_path;
    return path;
  }
  if (!query.code_path_command.empty()) return FromCommand(config, query, commit, progress);
  if (query.code_path_auto) return FromCoverage(config, query, commit, progress);
  return Unknown(fmt::format("query '{}' has no code_path", query.name));
}

}  // namespace culprit
