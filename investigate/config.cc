#include "investigate/config.h"

#include <fmt/format.h>

#include "base/atomic_file.h"
#include "base/config_reader.h"
#include "overrides/override_config.h"

namespace culprit {
namespace fs = std::filesystem;

namespace {

const std::vector<std::string>& SectionNames() {
  static const auto* names = new std::vector<std::string>{
      "engine",   "queries", "engines", "overrides", "harness", "residency",
      "registry", "measure", "bisect",  "records",   "cache"};
  return *names;
}

}  // namespace

Result<Config> ParseConfig(std::string_view text, const fs::path& file) {
  std::error_code ec;
  fs::path absolute = fs::absolute(file, ec).lexically_normal();
  if (ec) absolute = file;
  Config config;
  config.file = absolute;
  config.base_dir = absolute.parent_path();
  config.digest = ConfigDigest(text);

  Result<ConfigDocument> document =
      ConfigDocument::Parse(text, ConfigSource(file.string(), config.base_dir));
  if (!document) return document.error();
  ConfigTable root = document->root();
  // Sections are read in this order, so that of two mistakes the same one is
  // always reported; later sections may refer to earlier ones.
  CULPRIT_TRY(root.CheckKeys("", SectionNames()));
  CULPRIT_TRY(ReadEngineSection(root, &config.engine));
  CULPRIT_TRY(ReadQueriesSection(root, config.engine, &config.queries));
  CULPRIT_TRY(ReadEnginesSection(root, config.queries, &config.engines));
  CULPRIT_TRY(ReadOverridesSection(root, &config.overrides));
  CULPRIT_TRY(ReadHarnessSection(root, config.engine, &config.harness));
  CULPRIT_TRY(ReadResidencySection(root, config.queries, config.harness, &config.residency));
  CULPRIT_TRY(ReadRegistrySection(root, config.engine, config.queries, &config.registry));
  CULPRIT_TRY(ReadMeasureSection(root, &config.measure));
  CULPRIT_TRY(ReadMeasuredRuns(root, &config.measured_runs));
  CULPRIT_TRY(ReadBisectSection(root, &config.bisect));
  CULPRIT_TRY(ReadRecordsSection(root, &config.records));
  CULPRIT_TRY(ReadCacheSection(root, &config.cache));
  return config;
}

Result<Config> LoadConfig(const fs::path& file) {
  auto text = ReadFile(file);
  if (!text) {
    // A configuration that cannot be read is a usage problem (exit 2), not a failure of the work.
    return Error::Usage(text.error().message())
        .WithHint("run `culprit init` to write a starter culprit.toml, or pass --config PATH");
  }
  Result<Config> config = ParseConfig(*text, file);
  if (!config) return config.error();
  // On disk, relative paths mean something: an engine directory that is not there is refused
  // now, before any command runs (whether it is a git repository matters only to build).
  CULPRIT_TRY(CheckEngineRepository(config->engine, RepositoryUse::kWorkingTree));
  return config;
}

Result<fs::path> FindConfig(const std::optional<fs::path>& explicit_path) {
  if (explicit_path) {
    std::error_code ec;
    if (fs::is_directory(*explicit_path, ec)) {
      fs::path inside = *explicit_path / "culprit.toml";
      if (fs::exists(inside, ec)) return inside;
      return Error::Usage(fmt::format("no culprit.toml in directory {}", explicit_path->string()))
          .WithHint(
              "run `culprit init` there to write a starter file, or pass the file itself "
              "with --config");
    }
    if (!fs::exists(*explicit_path, ec)) {
      return Error::Usage(fmt::format("config file {} does not exist", explicit_path->string()))
          .WithHint(
              "check the --config path, or run `culprit init` to write a starter "
              "culprit.toml");
    }
    return *explicit_path;
  }
  fs::path here = "culprit.toml";
  std::error_code ec;
  if (fs::exists(here, ec)) return here;
  return Error::Usage(fmt::format("no culprit.toml in the current directory ({})",
                                  fs::current_path(ec).string()))
      .WithHint("run `culprit init` to write a starter culprit.toml, or pass --config PATH");
}

}  // namespace culprit
