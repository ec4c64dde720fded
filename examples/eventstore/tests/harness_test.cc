// The harness protocol: answers, errors, and staying usable after an error.

#include "session/harness.h"

#include <sstream>

#include "check.h"

using namespace eventstore;

namespace {

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

int CountWords(const std::string& line) {
  std::istringstream stream(line);
  int n = 0;
  for (std::string w; stream >> w;) ++n;
  return n;
}

}  // namespace

TEST(HarnessAnswersEachCommand) {
  Session session(StoreOptions{1, 3000, 0});
  bool quit = false;
  CHECK_EQ(HandleCommand(session, "hold traversal_index", &quit), std::string("ok"));
  CHECK_EQ(HandleCommand(session, "release traversal_index", &quit), std::string("ok"));
  const std::string ms = HandleCommand(session, "run series.count 3", &quit);
  CHECK(StartsWith(ms, "ms "));
  CHECK_EQ(CountWords(ms), 4);
  CHECK(!quit);
  CHECK_EQ(HandleCommand(session, "quit", &quit), std::string(""));
  CHECK(quit);
}

TEST(HarnessRejectsBadCommandsClearly) {
  Session session(StoreOptions{1, 3000, 0});
  bool quit = false;
  const char* bad[] = {"frobnicate",
                       "hold",
                       "hold a b",
                       "hold nothing_like_it",
                       "release plain_columns",
                       "run series.count",
                       "run series.count 0",
                       "run series.count -2",
                       "run series.count 2x",
                       "run nope 2",
                       "quit now"};
  for (const char* line : bad) {
    const std::string answer = HandleCommand(session, line, &quit);
    CHECK(StartsWith(answer, "error "));
    CHECK(answer.size() > 10);
    CHECK(answer.find('\n') == std::string::npos);
    CHECK(!quit);
  }
  CHECK(HandleCommand(session, "frobnicate", &quit).find("run QUERY N") != std::string::npos);
  CHECK(HandleCommand(session, "run nope 2", &quit).find("series.count") != std::string::npos);
}

TEST(ServeStaysUsableAfterErrorsAndStopsAtQuit) {
  Session session(StoreOptions{1, 3000, 0});
  std::istringstream in(
      "bogus\n"
      "\n"
      "hold plain_columns\r\n"
      "run interval.join 2\n"
      "run series.count x\n"
      "run path.traverse 1\n"
      "quit\n"
      "run series.count 1\n");
  std::ostringstream out, log;
  CHECK_EQ(Serve(session, in, out, log), 0);
  std::istringstream lines(out.str());
  std::vector<std::string> answers;
  for (std::string line; std::getline(lines, line);) answers.push_back(line);
  CHECK_EQ(answers.size(), 5u);  // nothing for the blank line, nothing after quit
  if (answers.size() == 5) {
    CHECK(StartsWith(answers[0], "error unknown command 'bogus'"));
    CHECK_EQ(answers[1], std::string("ok"));
    CHECK(StartsWith(answers[2], "ms ") && CountWords(answers[2]) == 3);
    CHECK(StartsWith(answers[3], "error usage: run QUERY N"));
    CHECK(StartsWith(answers[4], "ms ") && CountWords(answers[4]) == 2);
  }
  CHECK(log.str().find("serving 3000 events") != std::string::npos);
}
