#include <gtest/gtest.h>

#include <filesystem>

#include "gates/git/git.h"
#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

std::string GitCli(const std::string& dir, const std::string& args) {
  auto r = RunCapture({"sh", "-c", "git " + args + " 2>/dev/null"}, dir, 30);
  if (!r.ok()) return "";
  std::string out = r->output;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class GitTree : public ::testing::Test {
 protected:
  void SetUp() override { testing::MakeRepo(dir_, "{}"); }
  std::string Hash() {
    auto h = git::WorkingTreeHash(dir_.path());
    EXPECT_TRUE(h.ok()) << h.status().message();
    return h.ok() ? *h : "";
  }
  TempDir dir_;
};

TEST_F(GitTree, CleanTreeHashIsTheHeadTreeId) {
  EXPECT_EQ(Hash(), GitCli(dir_.path(), "rev-parse HEAD^{tree}"));
}

TEST_F(GitTree, EditingATrackedFileChangesTheHash) {
  std::string before = Hash();
  dir_.Write("src/code.txt", "version 2\n");
  EXPECT_NE(Hash(), before);
  dir_.Write("src/code.txt", "version 1\n");
  EXPECT_EQ(Hash(), before);
}

TEST_F(GitTree, UntrackedFilesCountAndIgnoredFilesDoNot) {
  std::string before = Hash();
  dir_.Write("out/ignored.log", "x");
  EXPECT_EQ(Hash(), before);
  dir_.Write("new.txt", "x");
  EXPECT_NE(Hash(), before);
}

TEST_F(GitTree, DeletingATrackedFileChangesTheHash) {
  std::string before = Hash();
  std::filesystem::remove(dir_.path() + "/src/code.txt");
  EXPECT_NE(Hash(), before);
}

TEST_F(GitTree, HashingWritesNeitherObjectsNorTheIndex) {
  dir_.Write("new.txt", "untracked content\n");
  std::string objects_before = GitCli(dir_.path(), "count-objects -v");
  std::string index_before = dir_.Read(".git/index");
  Hash();
  EXPECT_EQ(GitCli(dir_.path(), "count-objects -v"), objects_before);
  EXPECT_EQ(dir_.Read(".git/index"), index_before);
  EXPECT_EQ(GitCli(dir_.path(), "status --porcelain"), "?? new.txt");
}

// Debian's libgit2 asks mbedTLS to parse its default bundle as it starts; ours answers
// instead (git_no_transport.cpp), so a start costs no certificate parsing.
TEST_F(GitTree, LibgitIsGivenNoCertificates) {
  if (!std::filesystem::exists("/etc/ssl/certs/ca-certificates.crt")) {
    GTEST_SKIP() << "no CA bundle on this machine: libgit2 asks for none";
  }
  Hash();
  EXPECT_GT(git::CertificateLoadsRefused(), 0);
}

TEST(GitHash, BlobIdMatchesGitHashObject) {
  TempDir dir;
  dir.Write("f", "hello\n");
  EXPECT_EQ(git::HashBytes("hello\n"), GitCli(dir.path(), "hash-object f"));
}

TEST(GitDiscover, OutsideARepositoryIsInvalidInput) {
  TempDir dir;
  auto repo = git::Discover(dir.path());
  ASSERT_FALSE(repo.ok());
  EXPECT_EQ(repo.status().kind(), ErrorKind::kInvalidInput);
}

}  // namespace
}  // namespace pg
