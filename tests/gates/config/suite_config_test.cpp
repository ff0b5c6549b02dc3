#include "gates/config/suite_config.h"

#include <gtest/gtest.h>

#include <string>

namespace pg {
namespace {

std::string ErrorOf(const std::string& text) {
  auto config = ParseSuiteConfig("suites.json", text);
  if (config.ok()) return "(parsed)";
  EXPECT_EQ(config.status().kind(), ErrorKind::kInvalidInput);
  return config.status().message();
}

const char kValid[] = R"({ "schema_version": 1,
  // comments are allowed
  "legs": {
    "build": { "run": ["cmake", "--build", "build"], "timeout_s": 1800 },
    "unit":  { "run": "ctest --test-dir build", "needs": ["build"], "env": {"A": "1"} },
    "perf":  { "run": ["build/perf"], "needs": ["build"], "timing": true, "locks": ["cpu"] }
  },
  "suites": { "default": ["unit"], "perf": ["perf"] } })";

TEST(SuiteConfig, ParsesLegsInFileOrderWithTheirFields) {
  auto config = ParseSuiteConfig("suites.json", kValid);
  ASSERT_TRUE(config.ok()) << config.status().message();
  ASSERT_EQ(config->legs.size(), 3u);
  EXPECT_EQ(config->legs[0].name, "build");
  EXPECT_EQ(config->legs[0].timeout_s, 1800);
  EXPECT_EQ(config->legs[1].argv, (std::vector<std::string>{"sh", "-c", "ctest --test-dir build"}));
  EXPECT_EQ(config->legs[1].env[0].second, "1");
  EXPECT_TRUE(config->legs[2].timing);
  EXPECT_EQ(config->legs[2].locks, std::vector<std::string>{"cpu"});
}

TEST(SuiteConfig, SelectingASuitePullsInItsNeedsFirst) {
  auto config = ParseSuiteConfig("suites.json", kValid);
  ASSERT_TRUE(config.ok());
  auto legs = SelectLegs(*config, {"default", "perf"});
  ASSERT_TRUE(legs.ok());
  std::vector<std::string> names;
  for (const Leg* leg : *legs) names.push_back(leg->name);
  EXPECT_EQ(names, (std::vector<std::string>{"build", "unit", "perf"}));
}

TEST(SuiteConfig, UnknownSuiteNamesTheKnownOnes) {
  auto config = ParseSuiteConfig("suites.json", kValid);
  ASSERT_TRUE(config.ok());
  auto legs = SelectLegs(*config, {"defualt"});
  ASSERT_FALSE(legs.ok());
  EXPECT_EQ(legs.status().message(),
            "suites.json: no suite or leg named \"defualt\" (suites: default, perf; legs: build, "
            "unit, perf)");
  auto flag = SelectLegs(*config, {}, {"uint"});
  ASSERT_FALSE(flag.ok());
  EXPECT_EQ(flag.status().message(),
            "--leg uint: suites.json has no leg named \"uint\" (legs: build, unit, perf)");
}

// A leg's outputs are what it makes in the tree: "", absolute paths and ".." are refused.
TEST(SuiteConfig, OutputsOutsideTheRootAreRefused) {
  for (const char* bad : {"", "/etc/passwd", "../x", "a/../../x", ".."}) {
    std::string text =
        std::string(R"({"schema_version": 1, "legs": {"b": {"run": ["true"], "outputs": [")") +
        bad + R"("]}}, "suites": {"default": ["b"]}})";
    auto config = ParseSuiteConfig("suites.json", text);
    ASSERT_FALSE(config.ok()) << bad;
    EXPECT_NE(config.status().message().find(
                  std::string("field \"outputs\" names paths inside the root, got \"") + bad),
              std::string::npos)
        << config.status().message();
  }
  EXPECT_TRUE(
      ParseSuiteConfig("suites.json", R"({"schema_version": 1, "legs": {"b": {"run": ["true"],
      "outputs": ["build", "out/*.o", "a..b", ".gitignored", "./build/"]}}, "suites": {"default": ["b"]}})")
          .ok());
}

// Outputs are left out of the tree hash: the root itself, or .git, would leave out everything.
TEST(SuiteConfig, TheRootOrGitsFolderIsNoOutput) {
  for (const char* bad : {".", "./", "./.", ".git", ".git/x", "./.git"}) {
    std::string text =
        std::string(R"({"schema_version": 1, "legs": {"b": {"run": ["true"], "outputs": [")") +
        bad + R"("]}}, "suites": {"default": ["b"]}})";
    auto config = ParseSuiteConfig("suites.json", text);
    ASSERT_FALSE(config.ok()) << bad;
    EXPECT_NE(config.status().message().find("not the root or .git, got"), std::string::npos)
        << config.status().message();
  }
}

// `exclude` takes files out of a leg's set; it lists at least one glob, none empty.
TEST(SuiteConfig, ExcludeListsGlobs) {
  for (const char* bad : {R"([])", R"([""])", R"("gen/*")"}) {
    std::string text =
        std::string(R"({"schema_version": 1, "legs": {"b": {"run": ["true"], "exclude": )") + bad +
        R"(}}, "suites": {"default": ["b"]}})";
    auto config = ParseSuiteConfig("suites.json", text);
    ASSERT_FALSE(config.ok()) << bad;
    EXPECT_NE(config.status().message().find("\"exclude\""), std::string::npos)
        << config.status().message();
  }
}

// `files` lists at least one glob; `{files}` is a whole argv element, or inside a shell string.
TEST(SuiteConfig, FilesListsGlobsAndFilesStandsWholeInAnArgv) {
  auto parse = [](const std::string& leg) {
    return ParseSuiteConfig("suites.json", R"({"schema_version": 1, "legs": {"b": )" + leg +
                                               R"(}, "suites": {"default": ["b"]}})");
  };
  auto empty = parse(R"({"run": ["true"], "files": []})");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("suites.json:1:"), std::string::npos)
      << empty.status().message();
  EXPECT_NE(empty.status().message().find("field \"files\" lists no glob"), std::string::npos)
      << empty.status().message();
  auto glued = parse(R"({"run": ["cc", "-c{files}"]})");
  ASSERT_FALSE(glued.ok());
  EXPECT_NE(
      glued.status().message().find("\"{files}\" must be a whole argument of an argv \"run\""),
      std::string::npos)
      << glued.status().message();
  auto blank = parse(R"({"run": ["true"], "files": [""]})");
  ASSERT_FALSE(blank.ok());
  EXPECT_NE(blank.status().message().find("field \"files\" has an empty glob"), std::string::npos)
      << blank.status().message();
  // Inside quotes the names are quoted twice, and "$(cmd)" in a name would run.
  for (const char* quoted : {R"("sh -c 'printf %s {files}'")", R"("echo \"{files}\"")"}) {
    auto refused = parse(std::string(R"({"run": )") + quoted + "}");
    ASSERT_FALSE(refused.ok()) << quoted;
    EXPECT_NE(refused.status().message().find("\"{files}\" inside quotes in a \"run\" string"),
              std::string::npos)
        << refused.status().message();
  }
  EXPECT_TRUE(parse(R"({"run": "echo '{' {files} \"}\""})").ok());
  auto ok = parse(R"({"run": "cc -c {files}", "files": ["src/**/*.c", "*.h"]})");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->legs[0].files, (std::vector<std::string>{"src/**/*.c", "*.h"}));
  EXPECT_TRUE(parse(R"({"run": ["cc", "-c", "{files}"]})").ok());
}

// A leg's cwd is where {files} are relative to: "src/a/.." is src, and one leaving the root is
// refused.
TEST(SuiteConfig, ACwdIsNormalisedAndStaysInsideTheRoot) {
  auto parse = [](const std::string& cwd) {
    return ParseSuiteConfig(
        "suites.json", R"({"schema_version": 1, "legs": {"b": {"run": ["true"], "cwd": ")" + cwd +
                           R"("}}, "suites": {"default": ["b"]}})");
  };
  ASSERT_TRUE(parse("src/a/..").ok());
  EXPECT_EQ(parse("src/a/..")->legs[0].cwd, "src");
  EXPECT_EQ(parse("./src/")->legs[0].cwd, "src");
  EXPECT_EQ(parse(".")->legs[0].cwd, "");
  for (const char* out : {"..", "../x", "src/../.."}) {
    auto refused = parse(out);
    ASSERT_FALSE(refused.ok()) << out;
    EXPECT_NE(refused.status().message().find("field \"cwd\" must stay inside the repository root"),
              std::string::npos)
        << refused.status().message();
  }
}

// `preflight unit` (no suite is named so) and `preflight --leg unit` run that leg and its needs.
TEST(SuiteConfig, ALegNameRunsThatLegWithItsNeeds) {
  auto config = ParseSuiteConfig("suites.json", kValid);
  ASSERT_TRUE(config.ok());
  for (auto [suites, legs] :
       {std::pair<std::vector<std::string>, std::vector<std::string>>{{"unit"}, {}},
        {{}, {"unit"}}}) {
    auto selected = SelectLegs(*config, suites, legs);
    ASSERT_TRUE(selected.ok()) << selected.status().message();
    std::vector<std::string> names;
    for (const Leg* leg : *selected) names.push_back(leg->name);
    EXPECT_EQ(names, (std::vector<std::string>{"build", "unit"}));
  }
}

TEST(SuiteConfig, UnknownFieldNamesLineAndSuggestsTheField) {
  EXPECT_EQ(
      ErrorOf(
          "{\"schema_version\": 1, \"legs\": {\n \"unit\": {\"run\": [\"true\"],\n  \"neds\": []}},"
          " \"suites\": {}}"),
      "suites.json:3:3: leg \"unit\": unknown field \"neds\" (did you mean \"needs\"?)");
}

TEST(SuiteConfig, UnknownTopLevelFieldIsRefused) {
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {}, \"suites\": {},\n \"sutes\": 1}"),
            "suites.json:2:2: unknown field \"sutes\" (did you mean \"suites\"?)");
}

TEST(SuiteConfig, NeedOfAnUnknownLegNamesBoth) {
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\n \"unit\": {\"run\": [\"true\"], "
                    "\"needs\": [\"biuld\"]}},"
                    " \"suites\": {}}"),
            "suites.json:2:38: leg \"unit\" needs unknown leg \"biuld\"");
}

TEST(SuiteConfig, AnUnknownLegCloseToAKnownOneSuggestsIt) {
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\"build\": {\"run\": [\"true\"]},\n"
                    " \"unit\": {\"run\": [\"true\"], \"needs\": [\"biuld\"]}}, \"suites\": {}}"),
            "suites.json:2:38: leg \"unit\" needs unknown leg \"biuld\" (did you mean \"build\"?)");
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\"build\": {\"run\": [\"true\"]}},\n"
                    " \"suites\": {\"default\": [\"lint\"]}}"),
            "suites.json:2:25: suite \"default\" lists unknown leg \"lint\"");
}

TEST(SuiteConfig, SuiteMemberMustBeALeg) {
  EXPECT_EQ(
      ErrorOf("{\"schema_version\": 1, \"legs\": {}, \"suites\": {\n \"default\": [\"unit\"]}}"),
      "suites.json:2:14: suite \"default\" lists unknown leg \"unit\"");
}

TEST(SuiteConfig, CycleIsPrintedWholeAtTheClosingNeed) {
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\n"
                    " \"a\": {\"run\": [\"true\"], \"needs\": [\"b\"]},\n"
                    " \"b\": {\"run\": [\"true\"], \"needs\": [\"c\"]},\n"
                    " \"c\": {\"run\": [\"true\"], \"needs\": [\"a\"]}}, \"suites\": {}}"),
            "suites.json:4:35: needs form a cycle: a -> b -> c -> a");
}

TEST(SuiteConfig, LegNeedingItselfIsRefused) {
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\"a\": {\"run\": \"x\", \"needs\": "
                    "[\"a\"]}}, \"suites\": {}}"),
            "suites.json:1:60: leg \"a\" needs itself");
}

TEST(SuiteConfig, DuplicateLegNameIsRefused) {
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\n \"a\": {\"run\": \"x\"},\n \"a\": "
                    "{\"run\": \"y\"}},"
                    " \"suites\": {}}"),
            "suites.json:3:2: duplicate key \"a\"");
}

TEST(SuiteConfig, DuplicateSuiteMemberIsRefused) {
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\"a\": {\"run\": \"x\"}},\n \"suites\": "
                    "{\"s\": [\"a\", \"a\"]}}"),
            "suites.json:2:24: suite \"s\" lists leg \"a\" twice");
}

TEST(SuiteConfig, WrongTypeNamesTheFieldAndTheValue) {
  EXPECT_EQ(
      ErrorOf(
          "{\"schema_version\": 1, \"legs\": {\"a\": {\"run\": \"x\",\n \"timeout_s\": \"ten\"}},"
          " \"suites\": {}}"),
      "suites.json:2:2: leg \"a\": field \"timeout_s\" must be a number > 0, got \"ten\"");
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\"a\": {\"run\": \"x\", \"timing\": 1}}, "
                    "\"suites\": {}}"),
            "suites.json:1:50: leg \"a\": field \"timing\" must be true or false, got 1");
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\"a\": {\"run\": \"x\", \"needs\": [3]}}, "
                    "\"suites\": {}}"),
            "suites.json:1:60: leg \"a\": field \"needs\"[0] must be a string, got 3");
}

TEST(SuiteConfig, EmptyRunIsRefusedInBothForms) {
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\"a\": {\"run\": []}}, \"suites\": {}}"),
            "suites.json:1:38: leg \"a\": field \"run\" is an empty command");
  EXPECT_EQ(
      ErrorOf("{\"schema_version\": 1, \"legs\": {\"a\": {\"run\": \"  \"}}, \"suites\": {}}"),
      "suites.json:1:38: leg \"a\": field \"run\" is an empty command");
}

TEST(SuiteConfig, MissingRunAndMissingVersionAreNamed) {
  EXPECT_EQ(ErrorOf("{\"schema_version\": 1, \"legs\": {\"a\": {}}, \"suites\": {}}"),
            "suites.json:1:32: leg \"a\": missing required field \"run\"");
  EXPECT_EQ(ErrorOf("{\"legs\": {}, \"suites\": {}}"),
            "suites.json:1:1: missing required field \"schema_version\"");
  EXPECT_EQ(ErrorOf("{\"schema_version\": 2, \"legs\": {}, \"suites\": {}}"),
            "suites.json:1:2: schema_version 2 is not supported (this proofgate reads 1)");
}

TEST(SuiteConfig, LegNamesMustBeUsableAsFileNames) {
  EXPECT_EQ(
      ErrorOf("{\"schema_version\": 1, \"legs\": {\"../x\": {\"run\": \"x\"}}, \"suites\": {}}"),
      "suites.json:1:32: leg name \"../x\" must start with a letter or digit and use only "
      "letters, digits, '_', '.', '-'");
}

// Every prefix of a valid file is either valid or a positioned error; nothing crashes.
TEST(SuiteConfig, NeverCrashesOnTruncatedOrMangledInput) {
  std::string text = kValid;
  for (size_t n = 0; n < text.size(); ++n) {
    auto config = ParseSuiteConfig("suites.json", text.substr(0, n));
    if (!config.ok()) {
      EXPECT_EQ(config.status().message().rfind("suites.json:", 0), 0u);
    }
    std::string mangled = text;
    mangled[n] = "{}[]\",:x0"[n % 9];
    auto again = ParseSuiteConfig("suites.json", mangled);
    if (!again.ok()) {
      EXPECT_EQ(again.status().message().rfind("suites.json", 0), 0u);
    }
  }
}

}  // namespace
}  // namespace pg
