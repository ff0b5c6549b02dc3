#include <gtest/gtest.h>

#include <regex>

#include "gates/config/json_source.h"
#include "gates/records/record.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

StatusOr<Record> Parse(const std::string& text) { return ParseRecord("r.json", text); }

RecordResult Check(const std::string& text, const std::string& root = "/tmp") {
  auto r = Parse(text);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? CheckRecord(*r, root) : RecordResult{};
}

std::string Field(const std::string& name, const std::string& expect, const std::string& value) {
  return "\"" + name + "\": {\"expect\": \"" + expect + "\", \"observe\": [\"echo\", \"" + value +
         "\"]}";
}

bool Matches(const std::string& pattern, const std::string& text) {
  return std::regex_search(text,
                           std::regex(pattern, std::regex::ECMAScript | std::regex::multiline));
}

TEST(Records, EachObservedFieldIsCheckedAgainstItsOwnConstant) {
  RecordResult r =
      Check("{\"record\": \"oracle\", \"fields\": {" + Field("distribution", "3.21.1", "3.21.1") +
            ", " + Field("runtime", "3.21.1.precompiled", "3.21.1.precompiled") + "}}");
  ASSERT_EQ(r.fields.size(), 2u);
  EXPECT_EQ(r.fields[0].verdict, Verdict::kMatch);
  EXPECT_EQ(r.fields[1].observed, "3.21.1.precompiled");
  EXPECT_TRUE(r.ok());
}

// A build on first use reports its progress on stderr; `java -version` prints only there.
TEST(Records, AnObserversStdoutIsItsValueAndStderrOnlyWhenStdoutIsBlank) {
  RecordResult r = Check(R"({"record": "tools", "fields": {
      "built": {"expect": "0.4.0", "observe": ["sh", "-c", "echo building it first >&2; echo 0.4.0; echo done >&2"]},
      "java": {"expect": "17.0.15", "observe": ["sh", "-c", "echo ' ' ; echo 17.0.15 >&2"]},
      "broken": {"expect": "1", "observe": ["sh", "-c", "echo partial; echo 'no such file' >&2; exit 3"]}}})");
  ASSERT_EQ(r.fields.size(), 3u);
  EXPECT_EQ(r.fields[0].observed, "0.4.0");
  EXPECT_EQ(r.fields[0].verdict, Verdict::kMatch);
  EXPECT_EQ(r.fields[1].observed, "17.0.15");
  EXPECT_EQ(r.fields[2].verdict, Verdict::kError);
  EXPECT_TRUE(Matches("exited 3: partial\nno such file$", r.fields[2].message))
      << r.fields[2].message;
}

TEST(Records, AMismatchNamesTheFieldAndBothValues) {
  RecordResult r =
      Check("{\"record\": \"oracle\", \"fields\": {" + Field("runtime", "b6000", "b6001") + "}}");
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(
      Matches(R"(^oracle\.runtime: observed "b6001", expected "b6000"$)", r.fields[0].message))
      << r.fields[0].message;
}

TEST(Records, APrefixRelationHoldsOrSaysWhichValuesBrokeIt) {
  std::string fields = Field("dist", "3.21.1", "3.21.1") + ", " + Field("rt", "3.21", "3.21");
  RecordResult ok =
      Check("{\"record\": \"o\", \"fields\": {" + fields +
            "}, \"relations\": [{\"kind\": \"prefix\", \"of\": \"dist\", \"is\": \"rt\"}]}");
  EXPECT_TRUE(ok.relations[0].ok);
  std::string bad = Field("dist", "3.21.1", "3.21.1") + ", " + Field("rt", "4.0", "4.0");
  RecordResult no =
      Check("{\"record\": \"o\", \"fields\": {" + bad +
            "}, \"relations\": [{\"kind\": \"prefix\", \"of\": \"dist\", \"is\": \"rt\"}]}");
  EXPECT_FALSE(no.ok());
  EXPECT_EQ(no.relations[0].message,
            "o: rt is a prefix of dist does not hold: dist=\"3.21.1\", rt=\"4.0\"");
  std::string inside = Field("dist", "v3.21.1", "v3.21.1") + ", " +
                       Field("rt", "3.21", "3.21");  // contained, not a prefix
  EXPECT_FALSE(
      Check("{\"record\": \"o\", \"fields\": {" + inside +
            "}, \"relations\": [{\"kind\": \"prefix\", \"of\": \"dist\", \"is\": \"rt\"}]}")
          .ok());
}

TEST(Records, ASuffixIsAllowedOnlyInTheModeThatAddsIt) {
  auto record = [](const std::string& mode, const std::string& runtime) {
    return "{\"record\": \"o\", \"fields\": {" + Field("mode", mode, mode) + ", " +
           Field("dist", "3.21.1", "3.21.1") + ", " + Field("runtime", runtime, runtime) +
           "}, \"relations\": [{\"kind\": \"suffix-when\", \"of\": \"runtime\", \"is\": \"dist\", "
           "\"suffix\": "
           "\".precompiled\", \"when\": {\"field\": \"mode\", \"equals\": \"precompiled\"}}]}";
  };
  EXPECT_TRUE(Check(record("precompiled", "3.21.1.precompiled")).ok());
  EXPECT_TRUE(
      Check(record("precompiled", "3.21.1")).ok());  // a source-like build in that mode is fine too
  EXPECT_TRUE(
      Check(record("source", "3.21.1")).ok());  // equal strings in source mode: no longer red
  RecordResult wrong = Check(record("source", "3.21.1.precompiled"));
  EXPECT_FALSE(wrong.ok());
  EXPECT_NE(wrong.relations[0].message.find("does not hold"), std::string::npos);
}

TEST(Records, AFileCanBeObservedThroughARegex) {
  TempDir dir;
  dir.Write("package-lock.json",
            "{\n  \"node-llama-cpp\": {\n    \"version\": \"3.21.1\"\n  }\n}\n");
  RecordResult r = Check(
      "{\"record\": \"lock\", \"fields\": {\"v\": {\"expect\": \"3.21.1\", \"observe_file\": "
      "\"package-lock.json\", \"regex\": \"\\\"version\\\": \\\"([^\\\"]+)\\\"\"}}}",
      dir.path());
  EXPECT_EQ(r.fields[0].observed, "3.21.1");
  EXPECT_TRUE(r.ok());
}

TEST(Records, AnOptionalToolThatIsMissingIsAbsentAndARequiredOneIsAnError) {
  RecordResult optional = Check(
      "{\"record\": \"t\", \"fields\": {\"nvcc\": {\"expect\": \"x\", \"observe\": "
      "[\"pg-no-such-tool\"], \"optional\": true}}}");
  EXPECT_EQ(optional.fields[0].verdict, Verdict::kAbsent);
  EXPECT_TRUE(optional.ok());
  RecordResult shell = Check(
      "{\"record\": \"t\", \"fields\": {\"nvcc\": {\"expect\": \"x\", \"observe\": "
      "[\"sh\", \"-c\", \"exit 127\"], \"optional\": true}}}");
  EXPECT_EQ(shell.fields[0].verdict, Verdict::kAbsent);
  RecordResult required = Check(
      "{\"record\": \"t\", \"fields\": {\"cc\": {\"expect\": \"x\", \"observe\": "
      "[\"pg-no-such-tool\"]}}}");
  EXPECT_EQ(required.fields[0].verdict, Verdict::kError);
  EXPECT_FALSE(required.ok());
}

// Two observed values against one constant is the shape that went red when a build mode
// made two versions equal; equal constants written per field are fine.
TEST(Records, OneConstantForSeveralObservedValuesIsRefused) {
  auto many = Parse(
      "{\"record\": \"o\", \"fields\": {\"v\": {\"expect\": \"3.21.1\",\n \"observe\": "
      "[[\"echo\", \"a\"], [\"echo\", \"b\"]]}}}");
  ASSERT_FALSE(many.ok());
  EXPECT_TRUE(
      Matches(R"(^r\.json:2:2: field "v": one field observes several values against one constant)",
              many.status().message()))
      << many.status().message();
  auto shared = Parse("{\"record\": \"o\", \"expect\": \"3.21.1\", \"fields\": {" +
                      Field("a", "1", "1") + "}}");
  ASSERT_FALSE(shared.ok());
  EXPECT_TRUE(Matches(R"(^r\.json:1:17: a record-level "expect" would be one constant)",
                      shared.status().message()))
      << shared.status().message();
  EXPECT_TRUE(Parse("{\"record\": \"o\", \"fields\": {" + Field("a", "3.21.1", "x") + ", " +
                    Field("b", "3.21.1", "y") + "}}")
                  .ok());
}

TEST(Records, AnInequalityRelationIsRefused) {
  auto r = Parse("{\"record\": \"o\", \"fields\": {" + Field("a", "1", "1") + ", " +
                 Field("b", "2", "2") +
                 "},\n \"relations\": [{\"kind\": \"differ\", \"of\": \"a\", \"is\": \"b\"}]}");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Matches(R"(^r\.json:2:\d+: relation 0: a relation of inequality asserts a symptom)",
                      r.status().message()))
      << r.status().message();
}

TEST(Records, AnExpectedValueReferringToAnotherFieldIsRefused) {
  for (const std::string& expect : {std::string("{\"ref\": \"a\"}"),
                                    std::string("\"${fields.a.expect}\""), std::string("\"$a\"")}) {
    auto r = Parse("{\"record\": \"o\", \"fields\": {" + Field("a", "1", "1") +
                   ", \"b\": {\"expect\": " + expect + ", \"observe\": [\"true\"]}}}");
    ASSERT_FALSE(r.ok()) << expect;
    EXPECT_NE(r.status().message().find("refers to another value"), std::string::npos)
        << r.status().message();
  }
}

TEST(Records, MalformedRecordsNameTheFileLineAndField) {
  EXPECT_EQ(
      Parse("{\"record\": \"o\", \"fields\": {\"a\": {\"expect\": \"1\"}}}").status().message(),
      "r.json:1:28: field \"a\": needs exactly one of \"observe\" (argv) or \"observe_file\" + "
      "\"regex\"");
  EXPECT_EQ(Parse("{\"record\": \"o\", \"fields\": {\"a\": {\"expect\": \"1\", \"observe\": "
                  "[\"x\"], \"obsrve\": 1}}}")
                .status()
                .message(),
            "r.json:1:67: field \"a\": unknown field \"obsrve\" (did you mean \"observe\"?)");
  EXPECT_EQ(
      Parse("{\"record\": \"o\", \"fields\": {\"a\": {\"observe\": [\"x\"]}}}").status().message(),
      "r.json:1:28: field \"a\": field \"a\" has no \"expect\" constant");
  auto rel = Parse("{\"record\": \"o\", \"fields\": {" + Field("a", "1", "1") +
                   "}, \"relations\": [{\"kind\": \"prefix\", \"of\": \"a\", \"is\": \"zz\"}]}");
  EXPECT_NE(rel.status().message().find("relation 0: no field named \"zz\""), std::string::npos)
      << rel.status().message();
  auto regex = Parse(
      "{\"record\": \"o\", \"fields\": {\"a\": {\"expect\": \"1\", \"observe_file\": \"f\", "
      "\"regex\": \"(\"}}}");
  EXPECT_NE(regex.status().message().find("invalid regex"), std::string::npos);
}

class RecordsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeRepo(dir_, "{\"schema_version\": 1, \"legs\": {}, \"suites\": {}}");
  }
  TempDir dir_;
};

TEST_F(RecordsCli, ExitsZeroOneOrTwo) {
  dir_.Write("records/a.json", "{\"record\": \"a\", \"fields\": {" + Field("v", "1", "1") + "}}");
  auto pass = testing::RunProofgate(dir_.path(), "records check --json");
  EXPECT_EQ(pass.exit_code, 0) << pass.err;
  EXPECT_EQ(Json::parse(pass.out)["ok"], true);
  dir_.Write("records/b.json", "{\"record\": \"b\", \"fields\": {" + Field("v", "2", "3") + "}}");
  auto fail = testing::RunProofgate(dir_.path(), "records check");
  EXPECT_EQ(fail.exit_code, 1);
  EXPECT_NE(fail.out.find("  b.v: observed \"3\", expected \"2\""), std::string::npos) << fail.out;
  dir_.Write("records/c.json",
             "{\"record\": \"c\", \"fields\": {" + Field("v", "9", "9") +
                 "}, \"relations\": [{\"kind\": \"differ\", \"of\": \"v\", \"is\": \"v\"}]}");
  auto invalid = testing::RunProofgate(dir_.path(), "records check");
  EXPECT_EQ(invalid.exit_code, 2);
  EXPECT_NE(invalid.err.find("records/c.json:1:"), std::string::npos) << invalid.err;
  EXPECT_EQ(testing::RunProofgate(dir_.path(), "records check records/a.json").exit_code, 0);
}

}  // namespace
}  // namespace pg
