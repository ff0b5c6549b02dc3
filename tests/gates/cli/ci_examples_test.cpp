// The example pipelines in docs/ci (specs/reports.md): the GitHub workflow passes a real
// workflow validator, and every proofgate flag either example uses is one proofgate's own
// --help lists for that verb, so a renamed flag or a report a verb does not write reddens here.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "gates/core/file_io.h"
#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

const std::string kRoot = PG_SOURCE_DIR;
const std::string kValidator = kRoot + "/tests/ci-tools/node_modules/.bin/action-validator";

struct Command {
  std::string verb;
  std::vector<std::string> flags;
};

// `proofgate VERB ... --flag ...` on each line, commands joined by `||` taken one by one.
std::vector<Command> ProofgateCommands(const std::string& yaml) {
  static const std::regex call(R"re((?:\$PROOFGATE|build/gates/cli/proofgate)[ \t]+([^|>\n]*))re");
  std::vector<Command> out;
  for (auto it = std::sregex_iterator(yaml.begin(), yaml.end(), call); it != std::sregex_iterator();
       ++it) {
    std::istringstream words((*it)[1].str());
    Command c;
    words >> c.verb;
    if (c.verb == "anchors" || c.verb == "records" || c.verb == "specs") {
      std::string noun_verb;
      words >> noun_verb;
      c.verb += " " + noun_verb;
    }
    for (std::string w; words >> w;) {
      if (w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1])))
        c.flags.push_back(w.substr(0, w.find('=')));
    }
    out.push_back(c);
  }
  return out;
}

TEST(CiExamples, TheGithubWorkflowPassesActionValidatorAndABrokenOneDoesNot) {
  if (!std::filesystem::exists(kValidator))
    GTEST_SKIP() << "action-validator not installed (scripts/install-ci-tools needs npm)";
  auto good = RunCapture({kValidator, kRoot + "/docs/ci/github-actions.yml"}, kRoot, 60);
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(good->exit.exit_code, 0) << good->output;
  // The validator can say no: the same workflow with a misspelt key.
  testing::TempDir dir;
  std::string text = ReadFile(kRoot + "/docs/ci/github-actions.yml").value();
  text.replace(text.find("\njobs:"), 6, "\njobz:");
  std::string broken = dir.Write("broken.yml", text);
  auto bad = RunCapture({kValidator, broken}, dir.path(), 60);
  ASSERT_TRUE(bad.ok());
  EXPECT_NE(bad->exit.exit_code, 0) << bad->output;
}

TEST(CiExamples, EveryProofgateFlagTheExamplesUseIsOneItsVerbTakes) {
  std::set<std::string> verbs;
  for (const char* file : {"/docs/ci/github-actions.yml", "/docs/ci/gitlab-ci.yml"}) {
    auto yaml = ReadFile(kRoot + file);
    ASSERT_TRUE(yaml.ok()) << file;
    std::vector<Command> commands = ProofgateCommands(*yaml);
    EXPECT_GE(commands.size(), 5u) << file;
    for (const Command& c : commands) {
      verbs.insert(c.verb);
      auto help = testing::RunProofgate(kRoot, c.verb + " --help");
      ASSERT_EQ(help.exit_code, 0) << file << ": proofgate " << c.verb << ": " << help.err;
      for (const std::string& flag : c.flags) {
        std::regex listed("(^|[ ,])" + flag + "([ ,=]|$)", std::regex::multiline);
        EXPECT_TRUE(std::regex_search(help.out, listed))
            << file << ": proofgate " << c.verb << " " << flag << " is not in:\n"
            << help.out;
      }
    }
  }
  EXPECT_EQ(verbs, (std::set<std::string>{"gate", "merge-reports", "mutate", "preflight"}));
}

}  // namespace
}  // namespace pg
