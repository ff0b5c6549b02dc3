#include "gates/mutate/scratch_tree.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>

#include "gates/core/file_io.h"
#include "gates/core/journal.h"
#include "gates/git/git.h"
#include "gates/mutate/catalog.h"
#include "gates/mutate/mutant.h"
#include "tests/gates/support/test_support.h"

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
  // The scratch tree made, and `m` applied in it with `journal` keeping the original.
  StatusOr<AppliedMutant> MakeAndApply(const Mutation& m, Journal* journal) {
    Status made = MakeScratchTree(dir_.path(), scratch_);
    if (!made.ok()) return made;
    return AppliedMutant::Apply(scratch_, {&m}, journal);
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
  EXPECT_EQ(dir_.Read("src/code.txt"),
            "version 2, not committed\n");  // the user's edit is untouched
}

TEST_F(ScratchTree, ATrackedFileInsideAnIgnoredFolderIsCopiedAndNothingElseThere) {
  dir_.Write("res/gen/readme.txt", "tests write here\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Keep the output folder").ok());
  dir_.Write(".gitignore", dir_.Read(".gitignore") + "res/gen/\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Ignore what tests write").ok());
  dir_.Write("res/gen/result.xml", "written by a test\n");
  ASSERT_TRUE(SyncScratchTree(dir_.path(), scratch_).ok());
  EXPECT_EQ(dir_.Read("out/scratch/res/gen/readme.txt"), "tests write here\n");
  EXPECT_FALSE(std::filesystem::exists(scratch_ + "/res/gen/result.xml"));
  dir_.Write("res/gen/readme.txt", "edited\n");
  ASSERT_TRUE(SyncScratchTree(dir_.path(), scratch_).ok());
  EXPECT_EQ(dir_.Read("out/scratch/res/gen/readme.txt"), "edited\n")
      << "a sync keeps it in line too";
  EXPECT_TRUE(git::Dirty(scratch_).value().empty());
}

TEST_F(ScratchTree, ApplyThenRestoreGivesBackEveryByteAndACleanTree) {
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  Mutation m = Mutate("src/code.txt", "version 1", "version 99");
  auto applied = AppliedMutant::Apply(scratch_, {&m}, nullptr);
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
  Mutation m = Mutate("run.sh", "echo run", "exit 1");
  auto applied = AppliedMutant::Apply(scratch_, {&m}, nullptr);
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
  auto applied = AppliedMutant::Apply(scratch_, {&m}, nullptr);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().message(),
            "mutation \"M1\": src/code.txt changed since the catalog was checked");
}

TEST_F(ScratchTree, TwoMutationsInOneFileApplyTogetherAndRestore) {
  dir_.Write("src/two.txt", "alpha beta gamma\n");
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  Mutation a = Mutate("src/two.txt", "alpha", "A"), b = Mutate("src/two.txt", "gamma", "GAMMA");
  auto applied = AppliedMutant::Apply(scratch_, {&a, &b}, nullptr);
  ASSERT_TRUE(applied.ok()) << applied.status().message();
  EXPECT_EQ(dir_.Read("out/scratch/src/two.txt"), "A beta GAMMA\n");
  ASSERT_TRUE(applied->Restore().ok());
  EXPECT_EQ(dir_.Read("out/scratch/src/two.txt"), "alpha beta gamma\n");
}

TEST_F(ScratchTree, OverlappingMutationsAreRefusedAndNothingIsWritten) {
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  Mutation a = Mutate("src/code.txt", "version 1", "v"), b = Mutate("src/code.txt", "1", "2");
  auto applied = AppliedMutant::Apply(scratch_, {&a, &b}, nullptr);
  ASSERT_FALSE(applied.ok());
  EXPECT_NE(applied.status().message().find("overlaps"), std::string::npos)
      << applied.status().message();
  EXPECT_EQ(dir_.Read("out/scratch/src/code.txt"), "version 1\n");
}

TEST_F(ScratchTree, SyncCopiesOnlyWhatChangedAndDropsWhatIsGone) {
  dir_.Write("src/keep.txt", "same\n");
  dir_.Write("src/gone.txt", "soon deleted\n");
  ASSERT_TRUE(SyncScratchTree(dir_.path(), scratch_).ok());
  auto kept_time = std::filesystem::last_write_time(scratch_ + "/src/keep.txt");
  dir_.Write("src/code.txt", "version 2\n");
  std::filesystem::remove(dir_.path() + "/src/gone.txt");
  dir_.Write("src/new.txt", "new\n");
  ASSERT_TRUE(SyncScratchTree(dir_.path(), scratch_).ok());
  EXPECT_EQ(dir_.Read("out/scratch/src/code.txt"), "version 2\n");
  EXPECT_EQ(dir_.Read("out/scratch/src/new.txt"), "new\n");
  EXPECT_FALSE(std::filesystem::exists(scratch_ + "/src/gone.txt"));
  EXPECT_EQ(std::filesystem::last_write_time(scratch_ + "/src/keep.txt"),
            kept_time);  // the build stays incremental
  EXPECT_TRUE(git::Dirty(scratch_).value().empty());
}

// `git status --porcelain` of `dir` by the git command users run (libgit2 matches a directory
// pattern through a link where git does not).
std::string GitStatus(const std::string& dir) {
  std::string out;
  FILE* p = popen(("git -C '" + dir + "' status --porcelain 2>&1").c_str(), "r");
  if (p == nullptr) return "popen failed";
  char buf[256];
  while (fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  return out;
}

// Found on json-c/json-c, whose tests are links to one script: each link was named by its
// target, so the copy's script became a link to itself and a sync deleted the links (and a
// link the user removed stayed in the copy, taken for its target).
TEST_F(ScratchTree, SymlinksAreCopiedAsLinksUnderTheirOwnNamesAndSurviveASync) {
  dir_.Write("tests/basic.test", "#!/bin/sh\necho basic\n");
  std::filesystem::create_symlink("basic.test", dir_.path() + "/tests/a.test");
  std::filesystem::create_symlink("basic.test", dir_.path() + "/tests/z.test");
  std::filesystem::create_symlink("../tests/nowhere", dir_.path() + "/src/dangling");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "links").ok());
  for (int pass = 0; pass < 2; ++pass) {  // made, then synced
    ASSERT_TRUE((pass == 0 ? MakeScratchTree(dir_.path(), scratch_)
                           : SyncScratchTree(dir_.path(), scratch_))
                    .ok());
    EXPECT_FALSE(std::filesystem::is_symlink(scratch_ + "/tests/basic.test")) << pass;
    auto script = ReadFile(scratch_ + "/tests/basic.test");
    EXPECT_EQ(script.ok() ? *script : "", "#!/bin/sh\necho basic\n") << pass;
    for (const char* link : {"/tests/a.test", "/tests/z.test", "/src/dangling"}) {
      std::error_code ec;
      EXPECT_TRUE(std::filesystem::is_symlink(scratch_ + link, ec))
          << link << " after pass " << pass;
    }
  }
  std::filesystem::remove(dir_.path() +
                          "/tests/z.test");  // a link the user removed leaves the copy too
  ASSERT_TRUE(SyncScratchTree(dir_.path(), scratch_).ok());
  std::error_code ec;
  EXPECT_FALSE(std::filesystem::is_symlink(scratch_ + "/tests/z.test", ec))
      << "a removed link stayed";
}

TEST_F(ScratchTree, CarriedIgnoredPathsAreLinkedToTheUsersCopyAndLeaveTheTreeClean) {
  dir_.Write(".gitignore", "out/\ndeps/\n");  // a directory pattern, as "node_modules/" is
  dir_.Write("deps/lib/pkg.txt", "installed\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Ignore deps").ok());
  for (int round = 0; round < 2; ++round) {  // a second sync removes the link; linking restores it
    ASSERT_TRUE(SyncScratchTree(dir_.path(), scratch_).ok());
    ASSERT_TRUE(LinkCarried(dir_.path(), scratch_, {"deps"}).ok());
    EXPECT_TRUE(std::filesystem::is_symlink(scratch_ + "/deps"));
    EXPECT_EQ(dir_.Read("out/scratch/deps/lib/pkg.txt"), "installed\n");
    EXPECT_TRUE(git::Dirty(scratch_).value().empty()) << "round " << round;
    // git itself, too: its "deps/" matches a directory, and to it a link is a file.
    EXPECT_EQ(GitStatus(scratch_), "") << "round " << round;
  }
  std::filesystem::remove_all(dir_.path() + "/deps");
  ASSERT_TRUE(LinkCarried(dir_.path(), scratch_, {"deps"}).ok());
  std::error_code ec;
  EXPECT_FALSE(std::filesystem::is_symlink(scratch_ + "/deps", ec));
  EXPECT_FALSE(std::filesystem::exists(scratch_ + "/deps", ec));
}

// A scratch tree without an exclude file (a git without templates makes none) gets one that
// holds the carried paths and nothing else.
TEST_F(ScratchTree, ANewExcludeFileHoldsOnlyTheCarriedPaths) {
  dir_.Write(".gitignore", "out/\ndeps/\n");
  dir_.Write("deps/pkg.txt", "installed\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Ignore deps").ok());
  ASSERT_TRUE(SyncScratchTree(dir_.path(), scratch_).ok());
  std::filesystem::remove(scratch_ + "/.git/info/exclude");
  ASSERT_TRUE(LinkCarried(dir_.path(), scratch_, {"deps"}).ok());
  EXPECT_EQ(dir_.Read("out/scratch/.git/info/exclude"), "/deps\n");
}

TEST_F(ScratchTree, ACarriedPathMustBeIgnoredAndInsideTheRoot) {
  auto parse = [&](const std::string& carry) {
    return ParseCatalog(
        "m.json",
        "{\"schema_version\": 1, \"carry\": [\"" + carry +
            "\"], \"mutations\": [{\"id\": \"M1\", "
            "\"file\": \"src/code.txt\", \"find\": \"version 1\", \"replace\": \"v\", "
            "\"expect\": [{\"test\": \"A.B\", \"message\": \"x\"}]}]}",
        dir_.path());
  };
  EXPECT_TRUE(parse("out").ok());
  EXPECT_EQ(parse("src").status().message(),
            "m.json:1:23: carried path \"src\" is not ignored by git: the scratch tree copies it "
            "already");
  EXPECT_EQ(parse("../elsewhere").status().message(),
            "m.json:1:23: carried path \"../elsewhere\" must be relative and inside the root");
  EXPECT_EQ(parse("out/../src").status().message(),
            "m.json:1:23: carried path \"out/../src\" must be relative and inside the root");
  for (const char* outside : {"", "/tmp/deps", "..", "out/.."}) {
    EXPECT_EQ(parse(outside).status().message(), "m.json:1:23: carried path \"" +
                                                     std::string(outside) +
                                                     "\" must be relative and inside the root");
  }
}

TEST_F(ScratchTree, TheJournalPutsBackAFileAMutantWasLeftIn) {
  Journal journal(dir_.path() + "/out/journal");
  Mutation m = Mutate("run.sh", "echo run", "exit 1");
  auto applied = MakeAndApply(m, &journal);
  ASSERT_TRUE(applied.ok()) << applied.status().message();
  // The process "dies" here: the mutant stays, only the journal knows the original.
  auto recovered = RecoverJournal(journal.dir());
  ASSERT_TRUE(recovered.ok()) << recovered.status().message();
  ASSERT_EQ(recovered->size(), 1u);
  EXPECT_TRUE((*recovered)[0].rewritten);
  EXPECT_EQ(dir_.Read("out/scratch/run.sh"), "#!/bin/sh\necho run\n");
  struct stat st {};
  stat((scratch_ + "/run.sh").c_str(), &st);
  EXPECT_TRUE(st.st_mode & S_IXUSR);
  EXPECT_TRUE(std::filesystem::is_empty(journal.dir()));
}

// Found by mutate --generate (journal.cpp's survivors): a process that died with the original
// bytes already back (or before writing the mutant) left an entry whose file needs no
// rewrite, only a fresh mtime, since objects may have been built from the mutant since.
TEST_F(ScratchTree, RecoveryOfAFileHoldingItsOriginalGivesAFreshMtimeNotARewrite) {
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  std::string path = scratch_ + "/src/code.txt";
  Journal journal(dir_.path() + "/out/journal");
  ASSERT_TRUE(journal.Record(path, ReadFile(path).value(), 0644).ok());
  struct timespec old[2] = {{1000, 0}, {1000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), old, 0), 0);
  auto recovered = RecoverJournal(journal.dir());
  ASSERT_TRUE(recovered.ok()) << recovered.status().message();
  ASSERT_EQ(recovered->size(), 1u);
  EXPECT_FALSE((*recovered)[0].rewritten);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_GT(st.st_mtim.tv_sec, 1000) << "the mtime was left as it was";
  EXPECT_EQ(dir_.Read("out/scratch/src/code.txt"), "version 1\n");
}

TEST_F(ScratchTree, ARestoredMutantLeavesNoJournalEntry) {
  Journal journal(dir_.path() + "/out/journal");
  Mutation m = Mutate("src/code.txt", "version 1", "version 2");
  auto applied = MakeAndApply(m, &journal);
  ASSERT_TRUE(applied.ok()) << applied.status().message();
  EXPECT_FALSE(std::filesystem::is_empty(journal.dir()));
  ASSERT_TRUE(applied->Restore().ok());
  EXPECT_TRUE(std::filesystem::is_empty(journal.dir()));
}

TEST_F(ScratchTree, RecoveryRefusesACorruptSavedOriginal) {
  Journal journal(dir_.path() + "/out/journal");
  Mutation m = Mutate("src/code.txt", "version 1", "version 2");
  ASSERT_TRUE(MakeAndApply(m, &journal).ok());
  for (const auto& f : std::filesystem::directory_iterator(journal.dir())) {
    if (f.path().extension() == ".orig")
      dir_.Write("out/journal/" + f.path().filename().string(), "garbage\n");
  }
  auto recovered = RecoverJournal(journal.dir());
  ASSERT_FALSE(recovered.ok());
  EXPECT_NE(recovered.status().message().find("do not match their sha256"), std::string::npos);
  EXPECT_EQ(dir_.Read("out/scratch/src/code.txt"), "version 2\n");  // not overwritten with garbage
}

// An entry's mode is an octal number of permission bits: anything else is no entry of ours.
TEST_F(ScratchTree, RecoveryRefusesAnEntryWhoseModeIsNoOctalNumber) {
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  for (std::string mode : {"-644", "rw-r--r--", "0x1a4"}) {
    Journal journal(dir_.path() + "/out/journal");
    ASSERT_TRUE(journal.Record(scratch_ + "/src/code.txt", "version 0\n", 0644).ok());
    for (const auto& f : std::filesystem::directory_iterator(journal.dir())) {
      if (f.path().extension() != ".entry") continue;
      std::string entry = ReadFile(f.path().string()).value();
      entry.replace(entry.rfind("644"), 3, mode);
      ASSERT_TRUE(WriteFileAtomic(f.path().string(), entry).ok());
    }
    auto recovered = RecoverJournal(journal.dir());
    ASSERT_FALSE(recovered.ok()) << mode;
    EXPECT_NE(recovered.status().message().find("not a journal entry"), std::string::npos)
        << recovered.status().message();
    EXPECT_EQ(dir_.Read("out/scratch/src/code.txt"), "version 1\n") << mode;
    std::filesystem::remove_all(journal.dir());
  }
}

// Found by mutate --generate (journal.cpp's survivors): an entry whose hash is not 64 hex digits,
// and one for a relative path (put back relative to wherever recovery runs), are refused.
TEST_F(ScratchTree, AnEntryWithAShortHashOrForARelativePathIsRefused) {
  Journal journal(dir_.path() + "/out/journal");
  ASSERT_TRUE(journal.Record("relative.txt", "bytes\n", 0644).ok());
  auto relative = RecoverJournal(journal.dir());
  ASSERT_FALSE(relative.ok());
  EXPECT_NE(relative.status().message().find(
                "names relative.txt, a file this entry was not recorded for"),
            std::string::npos)
      << relative.status().message();
  std::filesystem::remove_all(journal.dir());
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  ASSERT_TRUE(journal.Record(scratch_ + "/src/code.txt", "version 0\n", 0644).ok());
  for (const auto& f : std::filesystem::directory_iterator(journal.dir())) {
    if (f.path().extension() != ".entry") continue;
    std::string entry = ReadFile(f.path().string()).value();
    size_t hash = entry.find('\n') + 1;
    ASSERT_TRUE(WriteFileAtomic(f.path().string(), entry.erase(hash, 1)).ok());  // 63 digits
  }
  auto short_entry = RecoverJournal(journal.dir());
  ASSERT_FALSE(short_entry.ok());
  EXPECT_NE(short_entry.status().message().find("not a journal entry"), std::string::npos)
      << short_entry.status().message();
}

// Mode 0 (no permission bits) is a mode like any other: the file gets it back.
TEST_F(ScratchTree, AModeOfZeroIsPutBack) {
  ASSERT_TRUE(MakeScratchTree(dir_.path(), scratch_).ok());
  Journal journal(dir_.path() + "/out/journal");
  ASSERT_TRUE(journal.Record(scratch_ + "/src/code.txt", "version 0\n", 0).ok());
  auto recovered = RecoverJournal(journal.dir());
  ASSERT_TRUE(recovered.ok()) << recovered.status().message();
  struct stat st {};
  ASSERT_EQ(stat((scratch_ + "/src/code.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0u);
  EXPECT_EQ(dir_.Read("out/scratch/src/code.txt"), "version 0\n");
}

}  // namespace
}  // namespace pg
