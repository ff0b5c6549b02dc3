// `proofgate init` choosing the build system that registers tests, `--kind`, and the
// documentation switches it turns off where their tool is absent (#64).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

// PATH for one test, put back after: init's choices depend on what PATH holds.
class PathFor {
 public:
  explicit PathFor(const std::string& path) : old_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    setenv("PATH", path.c_str(), 1);
  }
  ~PathFor() { setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

// martinus/unordered_dense's shape at 63ac634: CMake packages the header and registers no test;
// Meson builds and registers them.
TEST(InitKinds, ACMakeTreeWithoutTestsBesideAMesonBuildThatRegistersThemIsMeson) {
  TempDir dir;
  dir.Write("CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.20)\nproject(ud CXX)\nadd_library(ud INTERFACE)\n");
  dir.Write("meson.build", "project('ud', 'cpp')\nsubdir('test')\n");
  dir.Write("test/meson.build", "t = executable('ud-test', 'main.cpp')\ntest('ud-test', t)\n");
  auto meson = RunProofgate(dir.path(), "init");
  ASSERT_EQ(meson.exit_code, 0) << meson.out << meson.err;
  EXPECT_NE(meson.out.find("init: a Meson project"), std::string::npos) << meson.out;
  EXPECT_NE(meson.out.find("meson.build registers tests: the legs run Meson"), std::string::npos)
      << meson.out;
  std::filesystem::remove(dir.path() + "/preflight/suites.json");
  auto cmake = RunProofgate(dir.path(), "init --kind cmake");
  ASSERT_EQ(cmake.exit_code, 0) << cmake.out << cmake.err;
  EXPECT_NE(cmake.out.find("init: a CMake project"), std::string::npos) << cmake.out;
  std::filesystem::remove(dir.path() + "/preflight/suites.json");
  // Meson registers no test either: a test( in a comment or a string is none
  dir.Write("test/meson.build",
            "t = executable('ud-test', 'main.cpp')  # test('ud-test', t) one day\n"
            "message('call test( later')\n");
  auto neither = RunProofgate(dir.path(), "init");
  ASSERT_EQ(neither.exit_code, 0) << neither.out << neither.err;
  EXPECT_NE(neither.out.find("init: a CMake project"), std::string::npos) << neither.out;
}

TEST(InitKinds, AKindWhoseFilesAreAbsentOrThatIsUnknownIsRefusedAndNothingWritten) {
  TempDir dir;
  dir.Write("Cargo.toml", "[package]\nname = \"x\"\n");
  dir.Write("tests/test_x.py", "def test_x():\n    pass\n");
  auto meson = RunProofgate(dir.path(), "init --kind meson");
  EXPECT_EQ(meson.exit_code, 2) << meson.out << meson.err;
  EXPECT_NE(meson.err.find("--kind meson: no meson.build here or in a directory right under it"),
            std::string::npos)
      << meson.err;
  auto unknown = RunProofgate(dir.path(), "init --kind rust");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out << unknown.err;
  EXPECT_NE(unknown.err.find("--kind: rust not in {cmake,meson,cargo,pytest,npm,make}"),
            std::string::npos)
      << unknown.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/preflight/suites.json"));
  auto pytest =
      RunProofgate(dir.path(), "init --kind pytest");  // Cargo.toml comes first without --kind
  ASSERT_EQ(pytest.exit_code, 0) << pytest.out << pytest.err;
  EXPECT_NE(pytest.out.find("init: a pytest project"), std::string::npos) << pytest.out;
}

// uriparser's URIPARSER_BUILD_DOCS is ON and its configure fails without Doxygen.
TEST(InitKinds, ADocsSwitchWhoseToolIsAbsentIsTurnedOff) {
  TempDir dir, bin;
  dir.Write("CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.20)\nproject(u C)\nenable_testing()\n"
            "option(U_BUILD_DOCS \"Build API documentation (requires Doxygen)\" ON)\n"
            "option(U_MANUAL_DOCUMENTATION \"The manual, with Sphinx\" ON)\n"
            "option(U_OTHER_DOCS \"Docs nobody builds, with Sphinx\" OFF)\n"
            "option(U_DOCSTRINGS \"Not a documentation switch, whatever Sphinx says\" ON)\n"
            "add_test(NAME t COMMAND true)\n");
  bin.Write("doxygen", "#!/bin/sh\n");
  std::filesystem::permissions(bin.path() + "/doxygen", std::filesystem::perms::owner_all);
  std::filesystem::create_symlink("/bin/sh", bin.path() + "/sh");  // what runs proofgate here
  {
    PathFor path(bin.path());  // Doxygen here, Sphinx not
    auto init = RunProofgate(dir.path(), "init");
    ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
    EXPECT_NE(
        init.out.find("note: U_MANUAL_DOCUMENTATION (sphinx-build is not on PATH) turned off"),
        std::string::npos)
        << init.out;
  }
  std::string suites = dir.Read("preflight/suites.json");
  EXPECT_NE(suites.find("\"-DU_MANUAL_DOCUMENTATION=OFF\""), std::string::npos) << suites;
  EXPECT_NE(
      suites.find("\"-S\", \"{tree}\", \"-B\", \"{build}\", \"-DCMAKE_BUILD_TYPE=RelWithDebInfo\", "
                  "\"-DU_MANUAL_DOCUMENTATION=OFF\""),
      std::string::npos)
      << suites;  // the scratch copies' configure too
  EXPECT_EQ(suites.find("U_BUILD_DOCS"), std::string::npos) << suites;  // its tool is there
  EXPECT_EQ(suites.find("U_OTHER_DOCS"), std::string::npos) << suites;  // off already
  EXPECT_EQ(suites.find("U_DOCSTRINGS"), std::string::npos) << suites;
}

}  // namespace
}  // namespace pg
