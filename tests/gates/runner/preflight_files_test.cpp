// Legs that run for their files, on a real repository: `files` globs matched against every file,
// the staged ones or those changed since a base; `{files}` expanded and batched.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::Git;
using testing::RunProofgate;
using testing::TempDir;

// The last line leg `leg` printed (its log's tail in --json, after the log's own header).
std::string Listed(const testing::CliResult& run, const std::string& leg = "list") {
  std::string key = "\"name\": \"" + leg + "\"";
  size_t at = run.out.find(key);
  if (at == std::string::npos) return "(no leg " + leg + ")";
  size_t tail = run.out.find("\"output_tail\": \"", at);
  size_t end = run.out.find('"', tail + 16);
  if (tail == std::string::npos) return "";
  std::string text = run.out.substr(tail + 16, end - tail - 16);
  if (text.size() >= 2 && text.substr(text.size() - 2) == "\\n") text.resize(text.size() - 2);
  size_t line = text.rfind("\\n");
  return line == std::string::npos ? text : text.substr(line + 2);
}

TEST(PreflightFiles, ALegWhoseFilesMatchNothingIsSkippedAndFailsNothing) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {
    "cpp": {"run": "exit 1", "files": ["*.cpp"]},
    "after": {"run": "true", "needs": ["cpp"]}},
    "suites": {"default": ["after"]}})");
  auto none = RunProofgate(dir.path(), "preflight --no-cache");
  EXPECT_EQ(none.exit_code, 0) << none.out << none.err;
  EXPECT_NE(none.out.find("no file matches its files: *.cpp"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("after"), std::string::npos) << none.out;
  dir.Write("src/deep/a.cpp", "int a;\n");  // untracked, in a folder: "*.cpp" matches its name
  auto some = RunProofgate(dir.path(), "preflight --no-cache");
  EXPECT_EQ(some.exit_code, 1) << "its file is there: the leg runs, and fails\n"
                               << some.out << some.err;
}

TEST(PreflightFiles, FilesExpandToTheMatchedFilesRelativeToTheLegsCwd) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {
    "list": {"run": ["printf", "%s;", "{files}"], "cwd": "src", "files": ["src/**/*.c"]},
    "quoted": {"run": "printf '%s;' {files}", "files": ["*.c"]}},
    "suites": {"default": ["list", "quoted"]}})");
  dir.Write("src/a.c", "");
  dir.Write("src/sub/it's b.c", "");
  dir.Write("top.h", "");
  auto run = RunProofgate(dir.path(), "preflight --no-cache --json");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Listed(run), "a.c;sub/it's b.c;") << "one argument a file, relative to src/";
  EXPECT_EQ(Listed(run, "quoted"), "src/a.c;src/sub/it's b.c;") << "quoted in a shell string";
}

// lefthook's `exclude`: what the globs match, less what it excludes; a leg with `exclude` alone
// is about every file but those.
TEST(PreflightFiles, ExcludeGlobsLeaveFilesOut) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {
    "list": {"run": ["printf", "%s;", "{files}"], "files": ["*.c"], "exclude": ["gen/**"]},
    "rest": {"run": ["printf", "%s;", "{files}"], "exclude": ["*.c", "*.txt", "*.json", ".gitignore"]},
    "none": {"run": "exit 1", "files": ["gen/*.c"], "exclude": ["gen/*"]}},
    "suites": {"default": ["list", "rest", "none"]}})");
  dir.Write("a.c", "");
  dir.Write("gen/b.c", "");
  dir.Write("top.h", "");
  auto run = RunProofgate(dir.path(), "preflight --no-cache --json");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Listed(run), "a.c;");
  EXPECT_EQ(Listed(run, "rest"), "top.h;");
  EXPECT_NE(run.out.find("no file matches its files: gen/*.c (excluding gen/*)"), std::string::npos)
      << run.out;
}

// suites.json below the working tree's top: the run's files are those under its root, named
// from there, as its legs are.
TEST(PreflightFiles, ARootBelowTheTopHasItsOwnFilesNamedFromIt) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {}, "suites": {"default": []}})");
  dir.Write("app/preflight/suites.json", R"({"schema_version": 1, "legs": {
    "list": {"run": ["printf", "%s;", "{files}"], "files": ["*.c"]}},
    "suites": {"default": ["list"]}})");
  dir.Write("app/a.c", "");
  dir.Write("other/o.c", "");
  auto run = RunProofgate(dir.path() + "/app", "preflight --no-cache --json");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Listed(run), "a.c;") << "other/o.c lies outside the root";
}

TEST(PreflightFiles, StagedBaseAndAllFilesChooseTheFileSet) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {
    "list": {"run": ["printf", "%s;", "{files}"], "files": ["*.c"]}},
    "suites": {"default": ["list"]}})");
  dir.Write("old.c", "1\n");
  dir.Write("edited.c", "1\n");
  dir.Write("gone.c", "1\n");
  dir.Write("removed.c", "1\n");
  Git(dir, {"add", "."});
  Git(dir, {"commit", "-qm", "four files"});
  dir.Write("edited.c", "2\n");                        // unstaged
  Git(dir, {"rm", "-q", "gone.c"});                    // a staged deletion
  std::filesystem::remove(dir.path() + "/removed.c");  // an unstaged one: no set lists either
  dir.Write("staged.c", "1\n");
  Git(dir, {"add", "staged.c"});
  dir.Write("untracked.c", "1\n");
  auto staged = RunProofgate(dir.path(), "preflight --no-cache --json --staged");
  EXPECT_EQ(Listed(staged), "staged.c;") << staged.out << staged.err;
  auto since = RunProofgate(dir.path(), "preflight --no-cache --json --base HEAD~1");
  EXPECT_EQ(Listed(since), "edited.c;old.c;staged.c;untracked.c;") << since.out << since.err;
  auto all = RunProofgate(dir.path(), "preflight --no-cache --json --all-files");
  EXPECT_EQ(Listed(all), "edited.c;old.c;staged.c;untracked.c;") << all.out << all.err;
  auto head = RunProofgate(dir.path(), "preflight --no-cache --json --base HEAD");
  EXPECT_EQ(Listed(head), "edited.c;staged.c;untracked.c;")
      << "committed files are no change since HEAD";
  EXPECT_EQ(RunProofgate(dir.path(), "preflight --staged --base HEAD").exit_code, 2);
  TempDir plain;  // no repository: nothing is staged, nothing has a base
  plain.Write(
      "preflight/suites.json",
      R"({"schema_version": 1, "legs": {"t": {"run": "true"}}, "suites": {"default": ["t"]}})");
  auto outside = RunProofgate(plain.path(), "preflight --staged");
  EXPECT_EQ(outside.exit_code, 2) << outside.err;
  EXPECT_NE(outside.err.find("--staged and --base need a git repository"), std::string::npos)
      << outside.err;
  auto unknown = RunProofgate(dir.path(), "preflight --base no-such-ref");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--base no-such-ref: no revision \"no-such-ref\""), std::string::npos)
      << unknown.err;
}

// 1,200 names of 120 bytes in one `sh -c` string are past Linux's 128 KiB for one argument:
// two batches, and the leg that needs the leg needs both (it reads what each wrote).
TEST(PreflightFiles, FilesPastOneCommandsLimitRunInBatches) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {
    "count": {"run": "sleep 0.2; echo {files} | wc -w > \"out/$PROOFGATE_LEG\"", "files": ["many/*.txt"]},
    "after": {"run": "cat 'out/count#1' 'out/count#2'", "needs": ["count"]}},
    "suites": {"default": ["after"]}})");
  for (int i = 0; i < 1200; ++i) {
    std::string n = std::to_string(10000 + i);
    dir.Write("many/" + n + std::string(111, 'x') + ".txt", "");
  }
  auto run = RunProofgate(dir.path(), "preflight --no-cache --json -j 3");
  ASSERT_EQ(run.exit_code, 0) << run.out.substr(0, 2000) << run.err;
  EXPECT_EQ(std::stoi(dir.Read("out/count#1")) + std::stoi(dir.Read("out/count#2")), 1200)
      << "every file in one batch or the other";
  EXPECT_EQ(Listed(run, "count#3"), "(no leg count#3)");
}

}  // namespace
}  // namespace pg
