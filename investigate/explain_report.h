#pragma once

// The pure half of `culprit explain` (investigate/explain.h): from the two runs' function
// profiles, the commits and what the change touched, to the facts (every function's delta,
// ranked, placed against the change and the query's path) and the archived record.

#include <set>
#include <string>
#include <vector>

#include "engine/function_profile.h"
#include "engine/history.h"
#include "probes/code_path.h"
#include "records/explain_payload.h"
#include "records/record.h"

namespace culprit {

/// One side of an explain: a commit, its build's run of the query under cachegrind.
struct ExplainSide {
  CommitInfo commit;
  FunctionProfile profile;                 ///< The process tree's out files, merged.
  std::set<std::string> repository_files;  ///< The files of the commit's tree.
  std::vector<std::string> command;        ///< The query's argv (without valgrind's).
  double wall_ms = 0;                      ///< The run under valgrind.
};

/// Everything the facts are made of.
struct ExplainInputs {
  std::string query;
  std::string metric;  ///< The query's metric, as named.
  ExplainSide parent, change;
  std::vector<std::string> changed_files;  ///< git diff parent..change.
  /// The query's path as configured (globs or a command); unknown when the query has no
  /// code_path or it is "auto": then the profiles say it (every repository file whose code
  /// either run executed is on the path, as coverage would say).
  CodePath code_path;
  std::string valgrind;  ///< `valgrind --version`.
  bool cache_sim = false;
};

/// `profile` with each function's file replaced by its path in the repository
/// (RepositoryPath) when it is one of `repository_files`, functions that then coincide
/// merged: so two builds made in different directories name the same files.
FunctionProfile InRepository(const FunctionProfile& profile,
                             const std::set<std::string>& repository_files);

/// Where the function whose (repository) file is `file` stands: touched when the change
/// touched the file; on the path when the path holds it, or, with an unknown path, when it
/// is a repository file at all (`in_repository`); elsewhere otherwise.
FunctionPlace PlaceOf(const std::string& file, bool in_repository,
                      const std::vector<std::string>& changed_files, const CodePath& path);

/// The facts: both profiles put in the repository's terms, diffed, ranked by the absolute
/// delta of instructions, each function placed.
ExplainFacts MakeExplainFacts(const ExplainInputs& in);

/// The `explain` record of the facts: two arms (the parent, the change) with one sample each
/// (the tree's instructions), no verdict (an explain measures, it does not decide), the
/// facts as its payload and the commits, metric and counting as details.
Record MakeExplainRecord(const ExplainInputs& in, const ExplainFacts& facts,
                         const std::string& config_digest);

}  // namespace culprit
