#!/usr/bin/env python3
"""Regenerates history/patches/ (and COMMITS.md) from the engine's final source.

Maintainer tool, not used by make-history. The engine's source in this folder
(ENGINE_PATHS) is the LAST commit of the history. Each commit below is a list
of edits; the script undoes them all, newest first, to obtain the base
engine, then replays them forward in a scratch repository and exports every
commit with `git format-patch`. Every edit must match exactly once, so a
change to the final source that breaks an edit fails loudly here.

    python3 history/regenerate.py        # from examples/eventstore
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE_PATHS = [".gitignore", "CMakeLists.txt", "CHANGELOG.md", "docs", "src", "tests"]
# What series.count executes (see docs/ARCHITECTURE.md).
SCAN_PATH = [r"^src/scan/", r"^src/store/", r"^src/session/session\.", r"^src/main\.cc$"]

ADA = ("Ada Lindqvist", "ada@eventstore.example")
BROOK = ("Brook Okafor", "brook@eventstore.example")
CHEN = ("Chen Wei", "chen@eventstore.example")


def read(path):
    with open(os.path.join(HERE, path)) as f:
        return f.read()


def sub(path, old, new):
    """Forward edit: `old` becomes `new` in `path`."""
    return ("sub", path, old, new)


def ins_after(path, anchor, text):
    return ("sub", path, anchor, anchor + text)


def create(path):
    """Forward edit: `path` appears, with its final content (as edited by later commits)."""
    return ("create", path)


def lines_of(path, start_marker, end_marker, keep_blank=True):
    """The whole lines of `path` from the one containing start_marker up to the one
    containing end_marker (excluded); without a trailing blank line unless keep_blank."""
    text = read(path)
    begin = text.index(start_marker)
    begin = text.rindex("\n", 0, begin) + 1
    end = text.index(end_marker, begin)
    end = text.rindex("\n", 0, end) + 1
    lines = text[begin:end]
    if not keep_blank and lines.endswith("\n\n"):
        lines = lines[:-1]
    return lines


USAGE_FN = lines_of("src/session/harness.cc", "std::string Usage(", "}  // namespace") 

COMMITS = [
    (ADA, "eventstore 1.0: an in-memory bi-temporal event store",
     "Generated columns (entity, target, valid time, recorded time, value),\n"
     "three queries (series.count, path.traverse, interval.join), a\n"
     "scan-parallelism gate, and the bench, serve and registry commands.", []),
    (BROOK, "docs: how to build, test and run the engine", "",
     [ins_after("docs/README.md", "recorded) during each of 4096 probe intervals.\n",
                "\n" + lines_of("docs/README.md", "## Building", "## Persistence", keep_blank=False))]),
    (CHEN, "Ignore build directories", "", [create(".gitignore")]),
    (BROOK, "docs: document the harness protocol", "", [create("docs/PROTOCOL.md")]),
    (CHEN, "tests: interval.join at the edges of the time window", "",
     [sub("tests/engine_test.cc", "",
          "  probes.push_back({kWindowStart, kWindowStart});  // a point at the start\n"
          "  probes.push_back({kWindowEnd + kMaxRecordingDelay, kWindowEnd + kMaxRecordingDelay + 1});\n")]),
    (ADA, "harness: one Usage() helper for malformed commands",
     "No change in behaviour beyond the wording of the usage errors.",
     [sub("src/session/harness.cc", "", USAGE_FN),
      sub("src/session/harness.cc",
          '    if (words.size() != 2) return "error usage: " + command + " NAME";\n',
          "    if (words.size() != 2) return Usage(command);\n"),
      sub("src/session/harness.cc", '    if (words.size() != 3) return "error usage: run QUERY N";\n',
          "    if (words.size() != 3) return Usage(command);\n"),
      sub("src/session/harness.cc",
          "    if (used != words[2].size() || reps < 1 || reps > kMaxRepetitions) {\n"
          '      return "error usage: run QUERY N (N from 1 to 100000)";\n    }\n',
          "    if (used != words[2].size() || reps < 1 || reps > kMaxRepetitions) return Usage(command);\n")]),
    (BROOK, "Start a changelog", "", [create("CHANGELOG.md")]),
    (CHEN, "interval.join: compute ranks as iterator differences", "",
     [sub("src/join/interval_join.cc",
          "    const auto started =\n"
          "        std::distance(starts.begin(), std::upper_bound(starts.begin(), starts.end(), probe.end));\n"
          "    const auto finished =\n"
          "        std::distance(ends.begin(), std::lower_bound(ends.begin(), ends.end(), probe.begin));\n",
          "    const auto started = std::upper_bound(starts.begin(), starts.end(), probe.end) - starts.begin();\n"
          "    const auto finished = std::lower_bound(ends.begin(), ends.end(), probe.begin) - ends.begin();\n"),
      sub("src/join/interval_join.cc", "#include <algorithm>\n#include <iterator>\n", "#include <algorithm>\n")]),
    (ADA, "series.count: skip rows recorded after the latest snapshot",
     "Such rows count in no snapshot; with the default snapshots there are\n"
     "none, so the default query's answer is unchanged.",
     [sub("src/scan/series_count.cc", "#include <algorithm>\n", "#include <algorithm>\n#include <limits>\n"),
      sub("src/scan/series_count.cc", "",
          "  // Rows recorded after the latest snapshot count nowhere.\n"
          "  const int64_t latest = snapshots == 0 ? std::numeric_limits<int64_t>::min()\n"
          "                                        : *std::max_element(as_of, as_of + snapshots);\n"),
      sub("src/scan/series_count.cc", "", "      if (r > latest) continue;\n")]),
    (BROOK, "docs: define every query precisely", "",
     [create("docs/QUERIES.md"),
      ins_after("docs/README.md", "recorded) during each of 4096 probe intervals.\n",
                "\nSee [QUERIES.md](QUERIES.md) for the exact definitions.\n")]),
    (CHEN, "tests: ForEachChunk covers every row exactly once", "",
     [sub("tests/engine_test.cc", "",
          lines_of("tests/engine_test.cc", "TEST(ForEachChunkCoversEveryRowOnce)",
                   "TEST(TraversalMatchesHopLimitedReference)"))]),
    (ADA, "bench: report the scan plan on stderr", "",
     [sub("src/main.cc", "", '#include "scan/parallel_gate.h"\n'),
      sub("src/main.cc", "", lines_of("src/main.cc", "const ScanPlan plan = PlanScan", "std::vector<double> ignored"))]),
    (ADA, "Recalibrate the scan-parallelism gate: 524288 rows",
     "Spawning the scan threads costs more than it saves on chunks below\n"
     "about half a million rows on two cores; the default one-million-event\n"
     "store is above both thresholds and stays parallel.",
     [sub("src/scan/parallel_gate.h", "constexpr size_t kParallelScanThreshold = 262144;",
          "constexpr size_t kParallelScanThreshold = 524288;")]),
    (BROOK, "Changelog for 1.2", "",
     [ins_after("CHANGELOG.md", "# Changelog\n\n",
                lines_of("CHANGELOG.md", "## 1.2", "## 1.1"))]),
    (ADA, "Persist the traversal index with write-behind checkpoints",
     "Rebuilding the index after a crash costs a full pass over the\n"
     "relationship columns and a sort of every adjacency list. While an index\n"
     "is resident, a background checkpointer now re-serializes and checksums\n"
     "it every 10 ms and rewrites its file whenever the checksum changes, so\n"
     "a crash loses at most one period. Loading a checkpoint verifies it.",
     [create("src/index/index_persistence.h"), create("src/index/index_persistence.cc"),
      sub("src/index/traversal_index.cc", "", '\n#include "index/index_persistence.h"\n'),
      sub("src/index/traversal_index.cc", "", "  index->StartCheckpointing();\n"),
      sub("src/index/traversal_index.cc", "",
          lines_of("src/index/traversal_index.cc", "std::unique_ptr<TraversalIndex> TraversalIndex::FromParts",
                   "size_t TraversalIndex::Bytes()")),
      sub("src/index/traversal_index.h", "", "class IndexCheckpointer;\n\n"),
      sub("src/index/traversal_index.h", "",
          lines_of("src/index/traversal_index.h", "/// Adopts already-built arrays", "  TraversalIndex(const TraversalIndex&)")),
      sub("src/index/traversal_index.h", "",
          "  /// Starts write-behind persistence of this index (see index_persistence.h).\n"
          "  void StartCheckpointing();\n"),
      sub("src/index/traversal_index.h", "",
          "  // Declared last so it is destroyed first: its thread reads the arrays above.\n"
          "  std::unique_ptr<IndexCheckpointer> checkpointer_;\n")]),
    (CHEN, "tests: traversal index checkpoints round-trip and detect damage", "",
     [create("tests/persistence_test.cc")]),
    (BROOK, "docs: where the traversal index checkpoint lives", "",
     [sub("docs/README.md", "", "\n## Persistence" + read("docs/README.md").split("\n## Persistence", 1)[1])]),
    (CHEN, "Ignore traversal index checkpoints", "", [ins_after(".gitignore", "build-*/\n", "*.idx\n")]),
    (ADA, "serve: accept CRLF line ends",
     "Clients on Windows send CRLF; the CR made every command unknown.",
     [sub("src/session/harness.cc", "", "    if (!line.empty() && line.back() == '\\r') line.pop_back();\n"),
      sub("tests/harness_test.cc", '      "hold plain_columns\\n"\n', '      "hold plain_columns\\r\\n"\n'),
      sub("docs/PROTOCOL.md", "process keeps serving. Blank lines are ignored.\n",
          "process keeps serving. Blank lines are ignored; CRLF line ends are accepted.\n")]),
    (BROOK, "docs: an example session in PROTOCOL.md", "",
     [ins_after("docs/PROTOCOL.md", "CRLF line ends are accepted.\n",
                "\n" + read("docs/PROTOCOL.md").split("accepted.\n\n", 1)[1])]),
    (CHEN, "interval.join: reserve the answer up front", "",
     [sub("src/join/interval_join.cc", "", "  result.per_probe.reserve(probes.size());\n")]),
    (CHEN, "Add a CLI test and run it with CTest", "",
     [create("tests/cli_test.sh"),
      sub("CMakeLists.txt", "",
          lines_of("CMakeLists.txt", "add_test(NAME eventstore.cli", "# The history tests", keep_blank=False))]),
    (CHEN, "tests: registry --only in the CLI test", "",
     [sub("tests/cli_test.sh", "",
          lines_of("tests/cli_test.sh", 'out=$("$exe" registry --events 20000 --reps 2 --only', '"$exe" bench --query nope',
                   keep_blank=False))]),
    (BROOK, "docs: architecture overview", "", [create("docs/ARCHITECTURE.md")]),
    (ADA, "store: explain valid and recorded time", "",
     [sub("src/store/event_store.h", "",
          lines_of("src/store/event_store.h", '// Every event says "entity E', "// The columns are generated"))]),
    (CHEN, "index: explain why the frontier carries arrival times", "",
     [sub("src/index/traversal_index.cc", "",
          "  // The frontier carries each entity's arrival as of the start of the hop, so\n"
          "  // an improvement found during hop h is only followed in hop h + 1.\n")]),
    (BROOK, "tests: answers do not depend on what is resident", "",
     [sub("tests/engine_test.cc", "",
          "\nTEST(SessionAnswersAreStable" + read("tests/engine_test.cc").split("\nTEST(SessionAnswersAreStable", 1)[1])]),
    (ADA, "harness: say that blank lines get no answer", "",
     [sub("src/session/harness.h", "// Everything else the engine has to say goes to `log`.\n",
          "// Blank lines are ignored. Everything else the engine has to say goes to `log`.\n")]),
    (CHEN, "join: document the closed-interval convention", "",
     [sub("src/join/interval_join.h", "/// An interval of seconds.\n",
          "/// A closed interval [begin, end] of seconds, begin <= end.\n")]),
    (BROOK, "docs: QUERIES.md states the interval.join formula", "",
     [sub("docs/QUERIES.md",
          "the probe, by two binary searches over sorted copies of the two time\n"
          "columns. Checksum: FNV-1a over the 4096 counts.\n",
          "the probe: `#(valid <= e) - #(recorded < b)`, two binary searches over sorted\n"
          "copies of the two time columns. Checksum: FNV-1a over the 4096 counts.\n")]),
    (ADA, "registry: flush each result line as it is printed",
     "A reader of a pipe sees each query's line when it is done.",
     [sub("src/main.cc", "", "      std::fflush(stdout);\n")]),
    (BROOK, "Changelog for 1.3", "",
     [ins_after("CHANGELOG.md", "# Changelog\n\n", lines_of("CHANGELOG.md", "## 1.3", "## 1.2"))]),
]
TAGS = {0: "v1.0", len(COMMITS) - 1: "v1.3"}


def final_tree():
    files = {}
    for p in ENGINE_PATHS:
        full = os.path.join(HERE, p)
        if os.path.isdir(full):
            for root, _, names in os.walk(full):
                for n in names:
                    rel = os.path.relpath(os.path.join(root, n), HERE)
                    files[rel] = read(rel)
        else:
            files[p] = read(p)
    return files


def undo(files, edit):
    if edit[0] == "create":
        assert edit[1] in files, edit[1]
        del files[edit[1]]
        return
    _, path, old, new = edit
    text = files[path]
    count = text.count(new)
    if count != 1:
        sys.exit(f"regenerate: edit on {path} matches {count} times:\n{new}")
    files[path] = text.replace(new, old)


def main():
    final = final_tree()
    # states[k] = tree after commit k.
    states = [None] * len(COMMITS)
    files = dict(final)
    for k in range(len(COMMITS) - 1, -1, -1):
        states[k] = dict(files)
        for edit in reversed(COMMITS[k][3]):
            undo(files, edit)

    scratch = tempfile.mkdtemp(prefix="eventstore-history-")
    env = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1", TZ="UTC")
    git = lambda *a: subprocess.run(["git", "-C", scratch, *a], check=True, env=env,
                                    stdout=subprocess.PIPE, text=True).stdout
    git("init", "-q", "-b", "main")
    rows = []
    for k, (author, subject, body, edits) in enumerate(COMMITS):
        for old in set(os.listdir(scratch)) - {".git"}:
            p = os.path.join(scratch, old)
            shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        for rel, text in states[k].items():
            p = os.path.join(scratch, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        date = f"2024-03-{k + 1:02d}T10:00:00+0000" if k < 31 else f"2024-04-{k - 30:02d}T10:00:00+0000"
        cenv = dict(env, GIT_AUTHOR_NAME=author[0], GIT_AUTHOR_EMAIL=author[1], GIT_AUTHOR_DATE=date,
                    GIT_COMMITTER_NAME=author[0], GIT_COMMITTER_EMAIL=author[1], GIT_COMMITTER_DATE=date)
        subprocess.run(["git", "-C", scratch, "add", "-A"], check=True, env=cenv)
        message = subject + ("\n\n" + body if body else "")
        subprocess.run(["git", "-C", scratch, "-c", "commit.gpgsign=false", "commit", "-q",
                        "--allow-empty", "-m", message], check=True, env=cenv)
        changed = git("show", "--name-only", "--format=", "HEAD").split() if k else ["(everything)"]
        on_path = k == 0 or any(re.search(p, f) for p in SCAN_PATH for f in changed)
        rows.append((k + 1, subject, author[0], changed, on_path))

    out = os.path.join(HERE, "history", "patches")
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run(["git", "-C", scratch, "format-patch", "-q", "--root", "--no-signature",
                    "--zero-commit", "--full-index", "-o", out, "main"], check=True, env=env)
    with open(os.path.join(HERE, "history", "COMMITS.md"), "w") as f:
        f.write("# The eventstore history\n\n"
                "Generated by `history/regenerate.py`; replayed by `make-history`. "
                "\"Scan path\" means the commit changes a file `series.count` executes "
                "(src/scan, src/store, src/session/session.*, src/main.cc).\n\n"
                "| # | tag | subject | author | files | scan path |\n|---|---|---|---|---|---|\n")
        for n, subject, who, changed, on_path in rows:
            tag = TAGS.get(n - 1, "")
            f.write(f"| {n} | {tag} | {subject} | {who} | {', '.join(changed)} | "
                    f"{'yes' if on_path else 'no'} |\n")
    shutil.rmtree(scratch)
    print(f"regenerate: {len(COMMITS)} commits written to {out}")


if __name__ == "__main__":
    main()
