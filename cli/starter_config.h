#pragma once

// The commented starter culprit.toml that `culprit init` writes.

#include <string>
#include <string_view>

namespace culprit {

/// The commented starter file `culprit init` writes; ParseConfig accepts it.
/// `engine_name_hint` (e.g. the repository's directory name) names the artifact;
/// characters other than letters, digits, '.', '_' and '-' are dropped.
std::string StarterConfig(std::string_view engine_name_hint);

}  // namespace culprit
