#include <gtest/gtest.h>

#include "gates/config/json_source.h"
#include "gates/specs/spec_doc.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

std::string Spec(const std::string& gates, const std::string& extra = "## Owed\n- nothing\n") {
  return "# Spec: x\n\n## Scope\n- src/\n\n## Gates\n" + gates + "\n" + extra;
}

TEST(Specs, ParsesSectionsAndEveryGateCommandWithItsLine) {
  auto spec =
      ParseSpec("specs/x.md", Spec("```sh\n# a comment\n./tests/run -R '^X'\n\nmake check\n```\n"));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->sections, (std::vector<std::string>{"Scope", "Gates", "Owed"}));
  ASSERT_EQ(spec->gates.size(), 2u);
  EXPECT_EQ(spec->gates[0].line, 9);
  EXPECT_EQ(spec->gates[0].command, "./tests/run -R '^X'");
  EXPECT_EQ(spec->gates[1].command, "make check");
}

// A gate's leg is named after its spec file and line: letters, digits, '_', '-' and '.' kept,
// anything else (a space, a '+') made '_', so the name is one word in reports and --leg.
TEST(Specs, AGatesLegIsNamedAfterItsSpecAndLine) {
  auto spec = ParseSpec("specs/vt-serve_v1.2 x+y.md", Spec("```sh\ntrue\n```\n"));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  SuiteConfig config = SpecGatesConfig({*spec});
  ASSERT_EQ(config.legs.size(), 1u);
  EXPECT_EQ(config.legs[0].name, "vt-serve_v1.2_x_y.8");
}

TEST(Specs, AMissingSectionIsNamed) {
  auto spec = ParseSpec("specs/x.md", Spec("```sh\ntrue\n```\n", ""));
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), "specs/x.md:1: missing section \"## Owed\"");
  EXPECT_EQ(spec.status().kind(), ErrorKind::kInvalidInput);
}

TEST(Specs, GatesWithoutACommandAreInvalid) {
  auto spec = ParseSpec("specs/x.md", Spec("Run the tests by hand.\n"));
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), "specs/x.md:6: \"## Gates\" has no fenced command to run");
}

TEST(Specs, HeadingsInsideFencesAreNotSections) {
  auto spec = ParseSpec("specs/x.md", Spec("```sh\ntrue\n```\n```md\n## Owed\n```\n", ""));
  EXPECT_FALSE(spec.ok());
}

class SpecsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeRepo(dir_, "{\"schema_version\": 1, \"legs\": {}, \"suites\": {}}");
  }
  TempDir dir_;
};

TEST_F(SpecsCli, GateCommandsRunVerbatimFromTheRootAndMustPass) {
  dir_.Write("specs/good.md", Spec("```sh\ntest -f src/code.txt\necho ran >> out/good\n```\n"));
  auto pass = testing::RunProofgate(dir_.path() + "/src", "specs check --json");
  EXPECT_EQ(pass.exit_code, 0) << pass.err;
  EXPECT_EQ(dir_.Read("out/good"), "ran\n");
  Json doc = Json::parse(pass.out);
  EXPECT_EQ(doc["verb"], "specs check");
  EXPECT_EQ(doc["legs"][0]["name"], "good.8");
  EXPECT_EQ(doc["legs"][0]["argv"][2], "test -f src/code.txt");
}

TEST_F(SpecsCli, AFailingGateFailsTheCheckAndSkipsTheRestOfThatSpec) {
  dir_.Write("specs/bad.md", Spec("```sh\nexit 3\necho never >> out/bad\n```\n"));
  dir_.Write("specs/other.md", Spec("```sh\necho ran >> out/other\n```\n"));
  auto r = testing::RunProofgate(dir_.path(), "specs check --json");
  EXPECT_EQ(r.exit_code, 1);
  Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["legs"][0]["name"], "bad.8");
  EXPECT_EQ(doc["legs"][0]["outcome"], "fail");
  EXPECT_EQ(doc["legs"][1]["outcome"], "skipped");
  EXPECT_EQ(doc["legs"][2]["name"], "other.8");
  EXPECT_EQ(doc["legs"][2]["outcome"], "pass");
  EXPECT_EQ(dir_.Read("out/bad"), "");
  EXPECT_EQ(dir_.Read("out/other"), "ran\n");
}

TEST_F(SpecsCli, AnInvalidSpecExitsTwo) {
  dir_.Write("specs/broken.md", "# Spec\n## Scope\n");
  auto r = testing::RunProofgate(dir_.path(), "specs check");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "proofgate: specs/broken.md:1: missing section \"## Gates\"\n");
}

}  // namespace
}  // namespace pg
