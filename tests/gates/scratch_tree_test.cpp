#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "git/git.h"
#include "mutations/catalog.h"
#include "mutations/scratch_tree.h"
#include "test_support.h"

namespace pg {
namespace {

using testing::TempDir;

class ScratchTree : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeRepo(dir_, "{}");  // src/code.txt "version 1", out/ ignored
    dir_.Write("run.sh", "#!/bin/sh\necho run\n");
    chmod((dir_.path() + "/run.sh").c_str(), 0755);
    ASSERT_TRUE(git::CommitAll(dir_.path(), "Add a script").ok());
    scratch_ = dir_.path() + "/out/scratch";
  }
  Mutation Mutate(const std::string& file, const std::string& find, const std::string& replace) {
    Mutation m;
    m.id = "M1";
    m.file = file;
    m.find = find;
    m.replace = replace;
    m.offset = dir_.Read(file).find(find);
    return m;
  }
  TempDir dir_;
  std::string scratch_;
};

TEST_F(ScratchTree, CopiesTrackedUntrackedAndUncommittedEditsButNothingIgnored) {
  dir_.Write("src/code.txt", "version 2, not committed\n");
  dir_.Write("notes.txt", "untracked\n");
  dir_.Write("out/big.bin", "ignored\n");
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  EXPECT_EQ(dir_.Read("out/scratch/src/code.txt"), "version 2, not committed\n");
  EXPECT_EQ(dir_.Read("out/scratch/notes.txt"), "untracked\n");
  EXPECT_FALSE(std::filesystem::exists(scratch_ + "/out/big.bin"));
  EXPECT_TRUE(git::Dirty(scratch_).value().empty());
  EXPECT_EQ(dir_.Read("src/code.txt"), "version 2, not committed\n");  // the user's edit is untouched
}

TEST_F(ScratchTree, ApplyThenRestoreGivesBackEveryByteAndACleanTree) {
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  auto applied = AppliedMutation::Apply(scratch_, Mutate("src/code.txt", "version 1", "version 99"));
  ASSERT_TRUE(applied.ok()) << applied.status().message();
  EXPECT_EQ(dir_.Read("out/scratch/src/code.txt"), "version 99\n");
  EXPECT_EQ(git::Dirty(scratch_).value(), std::vector<std::string>{"src/code.txt"});
  EXPECT_EQ(dir_.Read("src/code.txt"), "version 1\n");  // never the user's file
  ASSERT_TRUE(applied->Restore().ok());
  EXPECT_EQ(dir_.Read("out/scratch/src/code.txt"), "version 1\n");
  EXPECT_TRUE(git::Dirty(scratch_).value().empty());
}

TEST_F(ScratchTree, AnExecutableStaysExecutableThroughAMutation) {
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  auto applied = AppliedMutation::Apply(scratch_, Mutate("run.sh", "echo run", "exit 1"));
  ASSERT_TRUE(applied.ok());
  struct stat st {};
  stat((scratch_ + "/run.sh").c_str(), &st);
  EXPECT_TRUE(st.st_mode & S_IXUSR);
  Status restored = applied->Restore();
  EXPECT_TRUE(restored.ok()) << restored.message();
}

TEST_F(ScratchTree, ApplyRefusesAFileThatNoLongerHasTheFindText) {
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  Mutation m = Mutate("src/code.txt", "version 1", "x");
  dir_.Write("out/scratch/src/code.txt", "something else\n");
  auto applied = AppliedMutation::Apply(scratch_, m);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().message(), "mutation \"M1\": src/code.txt changed since the catalog was checked");
}

}  // namespace
}  // namespace pg
