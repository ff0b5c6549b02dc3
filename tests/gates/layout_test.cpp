// The folders' include graph has no cycle: a library never includes a folder that includes it
// back, so each layer reads, builds and tests without the ones above it (specs/layout.md).
// The CLI sits above every library; the engine knows nothing of proofgate; proofgate's includes
// are paths from the repository root, and the top-level gate data holds no code.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gates/core/file_io.h"

namespace pg {
namespace {

namespace fs = std::filesystem;
const std::vector<std::string> kProofgate = {"gates"};
const fs::path kRoot = PG_SOURCE_DIR;

// The first `depth` components of a path relative to the source root ("gates/runner").
std::string FolderOf(const fs::path& rel, size_t depth) {
  fs::path folder;
  size_t n = 0;
  for (auto it = rel.begin(); it != rel.end() && n < depth; ++it, ++n) {
    if (std::next(it) == rel.end()) break;  // the file's own name is not a folder
    folder /= *it;
  }
  return folder.string();
}

// Where an include resolves: the repository root (proofgate's one convention), next to the
// file, then the engine's include directories.
fs::path Resolve(const fs::path& from, const std::string& include) {
  for (const fs::path& base :
       {kRoot, kRoot / from.parent_path(), kRoot / "engine/include", kRoot / "engine/src"}) {
    std::error_code ec;
    if (fs::exists(base / include, ec))
      return fs::relative(fs::weakly_canonical(base / include), kRoot);
  }
  return {};
}

// The text with every raw string literal blanked (its newlines kept): the `#include` lines of
// the projects tests write are not the tests' own.
std::string WithoutRawStrings(const std::string& text) {
  static const std::regex raw(R"re(R"(\w{0,16})\()re");
  std::string out = text;
  std::smatch m;
  size_t from = 0;
  while (std::regex_search(out.cbegin() + static_cast<long>(from), out.cend(), m, raw)) {
    size_t open = from + static_cast<size_t>(m.position(0));
    size_t close = out.find(")" + m.str(1) + "\"", open + static_cast<size_t>(m.length(0)));
    if (close == std::string::npos) break;
    for (size_t i = open; i < close; ++i) {
      if (out[i] != '\n') out[i] = ' ';
    }
    from = close + 1;
  }
  return out;
}

struct Include {
  fs::path file;  // relative to the root
  int line = 0;
  std::string name;
};

// Every `#include "..."` of the C++ files under `tops`.
std::vector<Include> Includes(const std::vector<std::string>& tops) {
  const std::regex include_line(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::vector<Include> found;
  for (const std::string& top : tops) {
    std::error_code missing;
    if (!fs::is_directory(kRoot / top, missing)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() ||
          (ext != ".h" && ext != ".cpp" && ext != ".cu" && ext != ".cuh"))
        continue;
      auto text = ReadFile(entry.path().string());
      if (!text.ok()) continue;
      std::istringstream lines(WithoutRawStrings(*text));
      std::string line;
      std::smatch m;
      for (int n = 1; std::getline(lines, line); ++n) {
        if (std::regex_search(line, m, include_line))
          found.push_back({fs::relative(entry.path(), kRoot), n, m.str(1)});
      }
    }
  }
  return found;
}

using Graph = std::map<std::string, std::set<std::string>>;

Graph Edges(const std::vector<std::string>& folders, size_t depth) {
  Graph g;
  for (const Include& inc : Includes(folders)) {
    fs::path target = Resolve(inc.file, inc.name);
    if (target.empty()) continue;
    std::string from = FolderOf(inc.file, depth), to = FolderOf(target, depth);
    if (from != to && !to.empty()) g[from].insert(to);
  }
  return g;
}
// One cycle as "a -> b -> a", or "" when there is none.
std::string ACycle(const Graph& g) {
  std::map<std::string, int> state;  // 1 on the path, 2 done
  std::vector<std::string> path;
  std::string found;
  std::function<void(const std::string&)> visit = [&](const std::string& u) {
    state[u] = 1, path.push_back(u);
    auto out = g.find(u);
    for (const std::string& v : out == g.end() ? std::set<std::string>{} : out->second) {
      if (!found.empty()) break;
      if (state[v] == 1) {
        for (auto it = std::find(path.begin(), path.end(), v); it != path.end(); ++it)
          found += *it + " -> ";
        found += v;
      } else if (state[v] == 0) {
        visit(v);
      }
    }
    path.pop_back(), state[u] = 2;
  };
  for (const auto& [u, _] : g) {
    if (found.empty() && state[u] == 0) visit(u);
  }
  return found;
}

TEST(Layout, NoTopFolderIncludesOneThatIncludesItBack) {
  EXPECT_EQ(ACycle(Edges({"gates", "engine"}, 1)), "");
}

TEST(Layout, NoFolderOfProofgateIncludesOneThatIncludesItBack) {
  EXPECT_EQ(ACycle(Edges(kProofgate, 2)), "");
}

TEST(Layout, TheEngineIncludesNothingOfProofgate) {
  Graph g = Edges({"engine"}, 1);
  for (const std::string& folder : kProofgate) EXPECT_EQ(g["engine"].count(folder), 0u) << folder;
}

// One convention (specs/layout.md): a path from the repository root, so `core/...` is always
// the engine's and `gates/core/...` proofgate's, whichever file includes it.
TEST(Layout, ProofgateIncludesPathsFromTheRepositoryRoot) {
  std::vector<std::string> found;
  for (const Include& inc : Includes({"gates", "tests/gates"})) {
    std::error_code ec;
    if (!fs::is_regular_file(kRoot / inc.name, ec))
      found.push_back(inc.file.string() + ":" + std::to_string(inc.line) + ": " + inc.name);
  }
  EXPECT_TRUE(found.empty()) << ::testing::PrintToString(found);
}

// The CLI is the top floor: a library that included it could not be built or tested without it.
TEST(Layout, NothingBelowTheCliIncludesIt) {
  std::vector<std::string> found;
  for (const Include& inc : Includes(kProofgate)) {
    if (FolderOf(inc.file, 2) == "gates/cli") continue;
    if (FolderOf(Resolve(inc.file, inc.name), 2) == "gates/cli")
      found.push_back(inc.file.string() + ":" + std::to_string(inc.line) + ": " + inc.name);
  }
  EXPECT_TRUE(found.empty()) << ::testing::PrintToString(found);
}

// The gate data a reader of this repository opens holds data only; the code that reads it
// lives in gates/ (mutations/ once held 43 C++ files beside its catalogs).
TEST(Layout, TheDataFoldersHoldNoCode) {
  std::vector<std::string> found;
  for (const std::string top : {"mutations", "records", "preflight", "specs"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      std::string ext = entry.path().extension().string();
      bool code = ext == ".h" || ext == ".cpp" || ext == ".cu" ||
                  entry.path().filename() == "CMakeLists.txt";
      if (entry.is_regular_file() && code)
        found.push_back(fs::relative(entry.path(), kRoot).string());
    }
  }
  EXPECT_TRUE(found.empty()) << ::testing::PrintToString(found);
}

// Whether `at` is inside a "..." on its line (an escaped quote does not end one).
bool InStringLiteral(const std::string& line, size_t at) {
  bool in = false;
  for (size_t i = 0; i < at; ++i) {
    if (line[i] == '\\')
      ++i;
    else if (line[i] == '"')
      in = !in;
  }
  return in;
}

// proofgate reads integers out of text in one place (gates/core/integer_text.h: the whole text the
// number, or no value): std::stoi throws on a 10-digit build-log line number and atoi reads
// garbage as 0. A call inside a string literal is code proofgate writes for others.
TEST(Layout, ProofgateParsesIntegersInOnePlace) {
  const fs::path& root = kRoot;
  const std::regex other(
      R"re(\b(std::sto(i|l|ll|ul|ull)|atoi|atol|atoll|strtol|strtoul|strtoll|strtoull)\s*\()re");
  std::vector<std::string> found;
  for (const std::string& top : kProofgate) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp") ||
          entry.path().filename() == "integer_text.cpp")
        continue;
      auto text = ReadFile(entry.path().string());
      if (!text.ok()) continue;
      std::istringstream lines(*text);
      std::string line;
      for (int n = 1; std::getline(lines, line); ++n) {
        std::smatch m;
        if (!std::regex_search(line, m, other)) continue;
        if (InStringLiteral(line, static_cast<size_t>(m.position(0)))) continue;
        found.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(n) + ": " +
                        m.str(1));
      }
    }
  }
  EXPECT_TRUE(found.empty()) << ::testing::PrintToString(found);
}

// Every verb's code comes from the outcome model (specs/exit-codes.md): a name of an ExitCode
// outside gates/core/exit_code.* may compare one, or default a field to pass, and nothing
// else (seven files once chose theirs).
TEST(Layout, OnlyTheOutcomeModelChoosesAnExitCode) {
  const fs::path& root = kRoot;
  const std::regex named(R"re(ExitCode::k\w+)re");
  const std::regex compared(R"re((==|!=)\s*(pg::)?$)re");
  const std::regex defaulted(R"re(^\s*ExitCode \w+ = $)re");  // a field's default
  std::vector<std::string> found;
  for (const std::string& top : kProofgate) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      if (entry.path().stem() == "exit_code" && entry.path().parent_path().filename() == "core")
        continue;
      auto text = ReadFile(entry.path().string());
      if (!text.ok()) continue;
      std::istringstream lines(*text);
      std::string line;
      for (int n = 1; std::getline(lines, line); ++n) {
        for (std::sregex_iterator m(line.begin(), line.end(), named), end; m != end; ++m) {
          std::string before = line.substr(0, static_cast<size_t>(m->position(0)));
          if (std::regex_search(before, compared) || std::regex_search(before, defaulted)) continue;
          found.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(n) +
                          ": " + m->str(0));
        }
      }
    }
  }
  EXPECT_TRUE(found.empty()) << ::testing::PrintToString(found);
}

}  // namespace
}  // namespace pg
