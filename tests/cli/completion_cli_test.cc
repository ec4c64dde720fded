// The installed shell completion and man page (dist/command-docs, written by
// `cmake --install`): bash completes commands, options, query names from the
// culprit.toml here (or --config) and revisions of its engine's repository;
// zsh does the same through bashcompinit, driven in a real interactive zsh;
// the man page renders without a warning and has every command.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/process.h"
#include "tests/support/culprit_cli.h"
#include "tests/support/install_tree.h"
#include "tests/support/temp_dir.h"

namespace culprit {
namespace {

namespace fs = std::filesystem;

ProcessResult RunIn(const std::vector<std::string>& argv, const fs::path& cwd,
                    const std::map<std::string, std::string>& set_env = {}) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.cwd = cwd;
  spec.set_env = set_env;
  spec.timeout = std::chrono::minutes(2);
  return RunProcess(spec);
}

bool Have(const std::string& program) {
  return RunIn({"sh", "-c", "command -v " + program}, "/").ok();
}

// A directory with a culprit.toml of two queries whose engine repository has a
// branch and a tag, and other.toml with a query of its own.
fs::path WriteProject(const fs::path& dir) {
  const fs::path work = dir / "project";
  WriteTextFile(work / "culprit.toml",
                "[engine]\nrepo = \"engine\"\nbuild = [[\"true\"]]\n\n"
                "[queries.\"series.count\"]\ncommand = [\"true\"]\n\n"
                "[queries.loop]  # the loop\ncommand = [\"true\"]\n");
  WriteTextFile(work / "other.toml", "[queries.elsewhere]\ncommand = [\"true\"]\n");
  const std::string repo = (work / "engine").string();
  for (std::vector<std::string> git : {std::vector<std::string>{"init", "-q", "-b", "main", repo},
                                       {"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t",
                                        "commit", "-q", "--allow-empty", "-m", "first"},
                                       {"-C", repo, "tag", "v9.1"},
                                       {"-C", repo, "branch", "topic"}}) {
    git.insert(git.begin(), "git");
    ProcessResult r = RunIn(git, dir);
    EXPECT_TRUE(r.ok()) << DescribeRun(r);
  }
  return work;
}

TEST(InstalledCompletion, BashCompletesCommandsOptionsQueriesAndRevisions) {
  TempDir dir;
  const fs::path prefix = dir.path() / "prefix";
  InstallCulprit(prefix);
  const fs::path completion = prefix / "share/bash-completion/completions/culprit";
  ASSERT_TRUE(fs::exists(completion));
  const fs::path work = WriteProject(dir.path());
  WriteTextFile(dir.path() / "complete.bash",
                "source '" + completion.string() +
                    "'\n"
                    "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1));\n"
                    "  _culprit_complete culprit \"${COMP_WORDS[COMP_CWORD]}\" "
                    "\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
                    "  echo \"$*|${COMPREPLY[*]}\"; }\n"
                    "t culprit rec\n"
                    "t culprit records ''\n"
                    "t culprit records list --v\n"
                    "t culprit demo --stop\n"
                    "t culprit demo --stop-after ''\n"
                    "t culprit run -q ''\n"
                    "t culprit compare --query s\n"
                    "t culprit --config other.toml run ''\n"
                    "t culprit bisect run --good ''\n"
                    "t culprit compare main ''\n"
                    "t culprit compare --name a b v\n");
  ProcessResult r = RunIn({"bash", (dir.path() / "complete.bash").string()}, work);
  ASSERT_TRUE(r.ok()) << DescribeRun(r);
  EXPECT_EQ(r.stdout_text,
            "culprit rec|records\n"
            "culprit records |list show report export merge -h --help --dir\n"
            "culprit records list --v|--verdict\n"
            "culprit demo --stop|--stop-after\n"
            "culprit demo --stop-after |history confirm probes bisect relevance\n"
            "culprit run -q |series.count loop\n"
            "culprit compare --query s|series.count\n"
            "culprit --config other.toml run |elsewhere\n"
            "culprit bisect run --good |main topic v9.1 HEAD\n"
            "culprit compare main |main topic v9.1 HEAD\n"
            "culprit compare --name a b v|v9.1\n")
      << DescribeRun(r);
}

// A real interactive zsh (zsh/zpty), its completion system started with the
// installed site-functions on fpath: each line is typed with a TAB and run, and
// `culprit` there is a function that prints the words it got.
TEST(InstalledCompletion, ZshCompletesThroughItsCompletionSystem) {
  if (!Have("zsh")) GTEST_SKIP() << "zsh is not installed: its completion is not checked";
  TempDir dir;
  const fs::path prefix = dir.path() / "prefix";
  InstallCulprit(prefix);
  ASSERT_TRUE(fs::exists(prefix / "share/zsh/site-functions/_culprit"));
  const fs::path work = WriteProject(dir.path());
  WriteTextFile(dir.path() / "drive.zsh",
                "zmodload zsh/zpty\n"
                "zpty z 'zsh -f -i'\n"
                "zpty -w z 'PS1=\"%% \"; fpath=(" +
                    (prefix / "share/zsh/site-functions").string() +
                    " $fpath); autoload -U compinit; compinit -u -D'\n"
                    "zpty -w z 'culprit() { print -r -- \"ARGS:$*\"; }; cd " +
                    work.string() +
                    "'\n"
                    "zpty -w -n z $'culprit records l\\t\\n'\n"
                    "zpty -w -n z $'culprit demo --stop-after hi\\t\\n'\n"
                    "zpty -w -n z $'culprit run -q lo\\t\\n'\n"
                    "zpty -w -n z $'culprit bisect run --good v9\\t\\n'\n"
                    "zpty -w -n z $'print END-OF-RUN\\n'\n"
                    "while zpty -r z line; do\n"
                    "  line=${line//[$'\\r\\n']/}\n"
                    "  [[ $line == ARGS:* ]] && print -r -- \"$line\"\n"
                    "  [[ $line == END-OF-RUN* ]] && break\n"
                    "done\n"
                    "zpty -d z\n");
  ProcessResult r = RunIn({"zsh", "-f", (dir.path() / "drive.zsh").string()}, work);
  ASSERT_TRUE(r.ok()) << DescribeRun(r);
  EXPECT_EQ(r.stdout_text,
            "ARGS:records list\n"
            "ARGS:demo --stop-after history\n"
            "ARGS:run -q loop\n"
            "ARGS:bisect run --good v9.1\n")
      << DescribeRun(r);
}

TEST(InstalledManPage, RendersEveryCommandWithoutAWarning) {
  TempDir dir;
  const fs::path prefix = dir.path() / "prefix";
  InstallCulprit(prefix);
  const fs::path page = prefix / "share/man/man1/culprit.1";
  ASSERT_TRUE(fs::exists(page));
  if (!Have("groff")) GTEST_SKIP() << "groff is not installed: the man page is not rendered";
  ProcessResult r = RunIn({"groff", "-man", "-Tutf8", "-ww", page.string()}, dir.path());
  ASSERT_TRUE(r.ok()) << DescribeRun(r);
  EXPECT_EQ(r.stderr_text, "") << "groff warned";
  // groff's terminal output marks bold and italics with backspaces.
  std::string text;
  for (size_t i = 0; i < r.stdout_text.size(); ++i) {
    if (i + 1 < r.stdout_text.size() && r.stdout_text[i + 1] == '\b') {
      ++i;
      continue;
    }
    text += r.stdout_text[i];
  }
  ProcessResult help = RunIn({(prefix / "bin/culprit").string(), "help"}, dir.path());
  ASSERT_TRUE(help.ok()) << DescribeRun(help);
  int commands = 0;
  bool in_commands = false;
  std::istringstream lines(help.stdout_text);
  for (std::string line; std::getline(lines, line);) {
    if (line == "Subcommands:") {
      in_commands = true;
    } else if (in_commands && line.starts_with("  ")) {
      const std::string name = line.substr(2, line.find(' ', 2) - 2);
      EXPECT_TRUE(Contains(text, "culprit " + name + "\n")) << name;
      ++commands;
    }
  }
  EXPECT_GE(commands, 10);
  EXPECT_TRUE(Contains(text, "culprit records list")) << text;
  EXPECT_TRUE(Contains(text, "--stop-after")) << text;
  EXPECT_TRUE(Contains(text, "share/culprit/examples")) << text;
  if (Have("man")) {
    ProcessResult man =
        RunIn({"man", "-l", page.string()}, dir.path(), {{"MANPAGER", "cat"}, {"MANWIDTH", "100"}});
    EXPECT_TRUE(man.ok()) << DescribeRun(man);
    EXPECT_TRUE(Contains(man.stdout_text, "CULPRIT(1)")) << DescribeRun(man);
  }
}

}  // namespace
}  // namespace culprit
