// The folders' include graph has no cycle: a library never includes a folder that includes it
// back, so each layer reads, builds and tests without the ones above it (DESIGN.md "Layout").
// The CLI sits above every library; the engine knows nothing of proofgate.
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

#include "core/file_io.h"

namespace pg {
namespace {

namespace fs = std::filesystem;
const std::vector<std::string> kProofgate = {"cli", "gates", "mutations", "changes", "generate", "records"};

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

// Where an include resolves: next to the file, then the include directories CMake gives.
fs::path Resolve(const fs::path& root, const fs::path& from, const std::string& include) {
  for (const fs::path& base : {root / from.parent_path(), root / "gates", root, root / "engine/include", root / "engine/src"}) {
    std::error_code ec;
    if (fs::exists(base / include, ec)) return fs::relative(fs::weakly_canonical(base / include), root);
  }
  return {};
}

using Graph = std::map<std::string, std::set<std::string>>;

Graph Edges(const std::vector<std::string>& folders, size_t depth) {
  const fs::path root = PG_SOURCE_DIR;
  const std::regex include_line(R"re(#\s*include\s+"([^"]+)")re");
  Graph g;
  for (const std::string& top : folders) {
    std::error_code missing;
    if (!fs::is_directory(root / top, missing)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".cu" && ext != ".cuh")) continue;
      fs::path rel = fs::relative(entry.path(), root);
      auto text = ReadFile(entry.path().string());
      if (!text.ok()) continue;
      for (std::sregex_iterator it(text->begin(), text->end(), include_line), end; it != end; ++it) {
        fs::path target = Resolve(root, rel, (*it)[1].str());
        if (target.empty()) continue;
        std::string from = FolderOf(rel, depth), to = FolderOf(target, depth);
        if (from != to && !to.empty()) g[from].insert(to);
      }
    }
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
        for (auto it = std::find(path.begin(), path.end(), v); it != path.end(); ++it) found += *it + " -> ";
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
  std::vector<std::string> all = kProofgate;
  all.push_back("engine");
  EXPECT_EQ(ACycle(Edges(all, 1)), "");
}

TEST(Layout, NoFolderOfProofgateIncludesOneThatIncludesItBack) {
  EXPECT_EQ(ACycle(Edges(kProofgate, 2)), "");
}

TEST(Layout, TheEngineIncludesNothingOfProofgate) {
  Graph g = Edges({"engine"}, 1);
  for (const std::string& folder : kProofgate) EXPECT_EQ(g["engine"].count(folder), 0u) << folder;
}

// Whether `at` is inside a "..." on its line (an escaped quote does not end one).
bool InStringLiteral(const std::string& line, size_t at) {
  bool in = false;
  for (size_t i = 0; i < at; ++i) {
    if (line[i] == '\\') ++i;
    else if (line[i] == '"') in = !in;
  }
  return in;
}

// proofgate reads integers out of text in one place (core/integer_text.h: the whole text the
// number, or no value): std::stoi throws on a 10-digit build-log line number and atoi reads
// garbage as 0. A call inside a string literal is code proofgate writes for others.
TEST(Layout, ProofgateParsesIntegersInOnePlace) {
  const fs::path root = PG_SOURCE_DIR;
  const std::regex other(R"re(\b(std::sto(i|l|ll|ul|ull)|atoi|atol|atoll|strtol|strtoul|strtoll|strtoull)\s*\()re");
  std::vector<std::string> found;
  for (const std::string& top : kProofgate) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp") || entry.path().filename() == "integer_text.cpp") continue;
      auto text = ReadFile(entry.path().string());
      if (!text.ok()) continue;
      std::istringstream lines(*text);
      std::string line;
      for (int n = 1; std::getline(lines, line); ++n) {
        std::smatch m;
        if (!std::regex_search(line, m, other)) continue;
        if (InStringLiteral(line, static_cast<size_t>(m.position(0)))) continue;
        found.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(n) + ": " + m.str(1));
      }
    }
  }
  EXPECT_TRUE(found.empty()) << ::testing::PrintToString(found);
}

// Every verb's code comes from the outcome model (specs/exit-codes.md): a name of an ExitCode
// outside gates/core/exit_code.* may compare one, or default a field to pass, and nothing
// else (seven files once chose theirs).
TEST(Layout, OnlyTheOutcomeModelChoosesAnExitCode) {
  const fs::path root = PG_SOURCE_DIR;
  const std::regex named(R"re(ExitCode::k\w+)re");
  const std::regex compared(R"re((==|!=)\s*(pg::)?$)re");
  const std::regex defaulted(R"re(^\s*ExitCode \w+ = $)re");  // a field's default
  std::vector<std::string> found;
  for (const std::string& top : kProofgate) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      if (entry.path().stem() == "exit_code" && entry.path().parent_path().filename() == "core") continue;
      auto text = ReadFile(entry.path().string());
      if (!text.ok()) continue;
      std::istringstream lines(*text);
      std::string line;
      for (int n = 1; std::getline(lines, line); ++n) {
        for (std::sregex_iterator m(line.begin(), line.end(), named), end; m != end; ++m) {
          std::string before = line.substr(0, static_cast<size_t>(m->position(0)));
          if (std::regex_search(before, compared) || std::regex_search(before, defaulted)) continue;
          found.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(n) + ": " + m->str(0));
        }
      }
    }
  }
  EXPECT_TRUE(found.empty()) << ::testing::PrintToString(found);
}

}  // namespace
}  // namespace pg
