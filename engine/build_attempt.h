#pragma once

// One attempt at building a commit into its build cache entry: the [engine] fetch or the
// build steps in a checkout, the artifacts copied, the build log, and the entry.json that
// remembers how it went (engine/build_entry.h). The cache (engine/build_cache.cc) decides
// when to build and holds the locks; this does the building. Internal to engine/.

#include <filesystem>

#include "base/result.h"
#include "engine/build_cache.h"
#include "engine/git_repo.h"

namespace culprit {

/// Builds `commit` into the entry `entry_dir` (emptied first): [engine] fetch when the
/// settings have one and it places every artifact, else the build steps in a checkout under
/// `scratch` (its src/, or a fresh clean-XXXXXX/ in clean mode), then the artifacts copied.
/// Ok: the entry is written buildable. Every error ends the build; those that are the
/// commit's fault (a step failed or timed out, an artifact is missing) are remembered in the
/// entry as unbuildable, the others (a step that cannot start, a full disk, Ctrl-C) are not.
/// The caller holds the scratch lock and the entry's lock exclusive. Progress goes through
/// `progress` (may be null); `steps_run` counts the steps run.
Status RunBuildAttempt(const GitRepo& repo, const CommitInfo& commit, const BuildSettings& settings,
                       const std::filesystem::path& entry_dir, const std::filesystem::path& scratch,
                       BuildProgress* progress, int& steps_run);

}  // namespace culprit
