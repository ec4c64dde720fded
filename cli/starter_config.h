#pragma once

// The commented starter culprit.toml that `culprit init` writes, with build
// steps that fit the build system it finds in the repository.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace culprit {

/// How the engine in a directory is probably built, from the files at its top.
struct BuildSystem {
  std::string name;  ///< "CMake", "Cargo", ...; "unknown" when nothing was recognised.
  std::vector<std::vector<std::string>> steps;
  /// The artifact path relative to the checkout, "{name}" standing for the
  /// engine's name; empty when the build makes no single program (npm).
  std::string artifact;
  /// The query's command when there is no artifact to run ({tree}-relative).
  std::vector<std::string> command_without_artifact;
  /// Compiles C or C++ (CMake, Meson, autotools, make): a compiler cache can serve it.
  bool c_family = false;
};

/// What `culprit init` found of a compiler cache, to offer in the starter file.
struct CompilerCacheOffer {
  bool found = false;  ///< ccache and its masquerade directory are on this host.
  std::string detail;  ///< Where ccache is, or why it cannot be used (one line).
};

/// The build system of `dir`, recognised by its files, first match wins:
/// CMakeLists.txt, meson.build, Cargo.toml, go.mod, configure (autotools),
/// Makefile/makefile/GNUmakefile, package.json. Otherwise "unknown", with
/// CMake-shaped steps to edit.
BuildSystem DetectBuildSystem(const std::filesystem::path& dir);

/// The commented starter file `culprit init` writes; ParseConfig accepts it.
/// `engine_name_hint` (e.g. the repository's directory name) names the artifact;
/// characters other than letters, digits, '.', '_' and '-' are dropped. For a C-family
/// build, `ccache` found turns on `compiler_cache = "ccache"` (said in a comment); not
/// found, the line is there commented out, with `ccache.detail` as the reason.
std::string StarterConfig(std::string_view engine_name_hint, const BuildSystem& build,
                          const CompilerCacheOffer& ccache = {});

/// As above, for a CMake project.
std::string StarterConfig(std::string_view engine_name_hint);

}  // namespace culprit
