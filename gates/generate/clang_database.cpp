#include "gates/generate/clang_database.h"

#include <clang-c/CXCompilationDatabase.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <memory>
#include <set>

#include "gates/generate/clang_text.h"
#include "gates/generate/source_kind.h"

namespace pg {
namespace {

struct Database {
  CXCompilationDatabase db = nullptr;
  ~Database() { clang_CompilationDatabase_dispose(db); }  // null-safe, as libclang's disposers are
};

StatusOr<std::unique_ptr<Database>> OpenDatabase(const std::string& build_dir) {
  auto d = std::make_unique<Database>();
  CXCompilationDatabase_Error err = CXCompilationDatabase_NoError;
  d->db = clang_CompilationDatabase_fromDirectory(build_dir.c_str(), &err);
  if (err != CXCompilationDatabase_NoError || !d->db) {
    return Status::Invalid(build_dir +
                           "/compile_commands.json: missing or unreadable (configure with "
                           "CMAKE_EXPORT_COMPILE_COMMANDS=ON)");
  }
  return d;
}

// The compile command's arguments as a clang driver takes them: the compiler named clang++ (the
// driver mode made explicit), relative paths resolved in the command's directory, GCC-only
// warning flags tolerated, and no warning an error (last: clang warns where GCC does not).
std::vector<std::string> ClangArgs(CXCompileCommand cmd, const std::string& file) {
  std::vector<std::string> args;
  unsigned n = clang_CompileCommand_getNumArgs(cmd);
  for (unsigned i = 0; i < n; ++i) args.push_back(Str(clang_CompileCommand_getArg(cmd, i)));
  if (!args.empty())
    args[0] = file.size() > 2 && file.compare(file.size() - 2, 2, ".c") == 0 ? "clang" : "clang++";
  std::string dir = Str(clang_CompileCommand_getDirectory(cmd));
  args.insert(args.begin() + 1, {"-working-directory=" + dir, "-Wno-unknown-warning-option",
                                 "-Wno-unused-command-line-argument", "-ferror-limit=0"});
  args.push_back("-Wno-error");
  return args;
}

// What of a command changes the preprocessor's output, in order: two commands with the same key
// see the same code (ninja's per-target -I of Meson's private dirs, -o and -MF differ freely).
std::string PreprocessorKey(const std::vector<std::string>& args) {
  static const char* const kJoined[] = {"-D", "-U", "-std=", "-x"};
  static const char* const kSeparate[] = {"-D", "-U", "-x", "-include", "-imacros"};
  std::string key;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool separate = std::any_of(std::begin(kSeparate), std::end(kSeparate),
                                [&](const char* f) { return a == f; });
    bool joined = std::any_of(std::begin(kJoined), std::end(kJoined),
                              [&](const char* f) { return a.rfind(f, 0) == 0; });
    if (separate && i + 1 < args.size()) {
      key += a + '\0' + args[++i] + '\n';
    } else if (joined) {
      key += a + '\n';
    }
  }
  return key;
}

}  // namespace

std::optional<std::vector<std::string>> OlderStandard(std::vector<std::string> args) {
  static const std::pair<const char*, const char*> kOlder[] = {
      {"c++23", "c++2b"}, {"gnu++23", "gnu++2b"}, {"c++26", "c++2b"}, {"gnu++26", "gnu++2b"},
      {"c++2c", "c++2b"}, {"gnu++2c", "gnu++2b"}, {"c23", "c2x"},     {"gnu23", "gnu2x"},
      {"c2y", "c2x"},     {"gnu2y", "gnu2x"}};
  bool changed = false;
  for (std::string& a : args) {
    for (const auto& [now, before] : kOlder) {
      if (a == std::string("-std=") + now) a = std::string("-std=") + before, changed = true;
    }
  }
  return changed ? std::optional<std::vector<std::string>>(std::move(args)) : std::nullopt;
}

std::string ConfigurationOf(const std::vector<std::string>& args) {
  std::string key = PreprocessorKey(args), out;
  for (char c : key) out += c == '\0' || c == '\n' ? ' ' : c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.empty() ? "its default flags" : out;
}

StatusOr<std::vector<std::string>> CompiledFiles(const std::string& build_dir) {
  PG_ASSIGN_OR_RETURN(std::unique_ptr<Database> d, OpenDatabase(build_dir));
  CXCompileCommands all = clang_CompilationDatabase_getAllCompileCommands(d->db);
  std::vector<std::string> files;
  for (unsigned i = 0; i < clang_CompileCommands_getSize(all); ++i) {
    CXCompileCommand cmd = clang_CompileCommands_getCommand(all, i);
    std::string file = Str(clang_CompileCommand_getFilename(cmd));
    std::string dir = Str(clang_CompileCommand_getDirectory(cmd));
    // Meson writes files relative to the directory ("../src/a.c"): made absolute and normal,
    // as CMake writes them, so they compare with the tree's paths.
    if (!file.empty() && file[0] != '/')
      file = std::filesystem::path(dir + "/" + file).lexically_normal().string();
    if (IsSourceFile(file)) files.push_back(file);
  }
  clang_CompileCommands_dispose(all);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

StatusOr<std::vector<std::vector<std::string>>> ClangCommands(const std::string& build_dir,
                                                              const std::string& file) {
  PG_ASSIGN_OR_RETURN(std::unique_ptr<Database> d, OpenDatabase(build_dir));
  CXCompileCommands cmds = clang_CompilationDatabase_getCompileCommands(d->db, file.c_str());
  if (!cmds || clang_CompileCommands_getSize(cmds) == 0) {
    if (cmds) clang_CompileCommands_dispose(cmds);
    return Status::Invalid(file + ": not compiled by " + build_dir + "/compile_commands.json");
  }
  std::vector<std::vector<std::string>> out;
  std::set<std::string> seen;
  for (unsigned i = 0; i < clang_CompileCommands_getSize(cmds); ++i) {
    std::vector<std::string> args = ClangArgs(clang_CompileCommands_getCommand(cmds, i), file);
    if (seen.insert(PreprocessorKey(args)).second) out.push_back(std::move(args));
  }
  clang_CompileCommands_dispose(cmds);
  return out;
}

}  // namespace pg
