#include "gates/runner/leg_files.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "gates/core/own_outputs.h"
#include "gates/git/git.h"
#include "gates/runner/input_glob.h"

extern char** environ;

namespace fs = std::filesystem;

namespace pg {
namespace {

constexpr char kFilesWord[] = "{files}";
constexpr size_t kPointer = sizeof(char*);

bool UsesFiles(const Leg& leg) {
  return std::any_of(leg.argv.begin(), leg.argv.end(),
                     [](const std::string& a) { return a.find(kFilesWord) != std::string::npos; });
}

// A path as sh reads it back: bare when it holds nothing sh treats specially.
std::string ShellQuoted(const std::string& s) {
  if (!s.empty() &&
      s.find_first_not_of(
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./+-=,:@%") ==
          std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Joined(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& f : files) out += (out.empty() ? "" : " ") + ShellQuoted(f);
  return out;
}

// The leg's argv with `{files}` replaced by `batch`.
std::vector<std::string> Expanded(const std::vector<std::string>& argv,
                                  const std::vector<std::string>& batch) {
  std::vector<std::string> out;
  for (const std::string& a : argv) {
    if (a == kFilesWord) {
      out.insert(out.end(), batch.begin(), batch.end());
      continue;
    }
    std::string s = a;
    for (size_t at = s.find(kFilesWord); at != std::string::npos; at = s.find(kFilesWord, at)) {
      std::string files = Joined(batch);
      s.replace(at, std::strlen(kFilesWord), files);
      at += files.size();
    }
    out.push_back(s);
  }
  return out;
}

bool Fits(const std::vector<std::string>& argv, const ArgLimits& limits) {
  size_t total = kPointer;
  for (const std::string& a : argv) {
    if (a.size() + 1 > limits.one) return false;
    total += a.size() + 1 + kPointer;
  }
  return total <= limits.total;
}

// Consecutive runs of `files`, each as long as one command holds; a file that fits no command
// alone is an error naming it.
StatusOr<std::vector<std::vector<std::string>>> Batches(const Leg& leg,
                                                        const std::vector<std::string>& files,
                                                        const ArgLimits& limits) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> batch;
  for (const std::string& f : files) {
    batch.push_back(f);
    if (Fits(Expanded(leg.argv, batch), limits)) continue;
    batch.pop_back();
    if (batch.empty())
      return Status::Invalid("leg \"" + leg.name + "\": " + f +
                             " alone is past the argument limit");
    out.push_back(std::move(batch));
    batch = {f};
    if (!Fits(Expanded(leg.argv, batch), limits))
      return Status::Invalid("leg \"" + leg.name + "\": " + f +
                             " alone is past the argument limit");
  }
  if (!batch.empty()) out.push_back(std::move(batch));
  return out;
}

// The run's files the leg's globs match (all of them when it has none), relative to the root.
std::vector<std::string> MatchedFromRoot(const Leg& leg, const RunFiles& run) {
  auto any = [](const std::vector<std::string>& globs, const std::string& f) {
    return std::any_of(globs.begin(), globs.end(),
                       [&](const std::string& g) { return FilesGlobMatch(g, f); });
  };
  std::vector<std::string> out;
  for (const std::string& f : run.files) {
    if ((leg.files.empty() || any(leg.files, f)) && !any(leg.exclude, f)) out.push_back(f);
  }
  return out;
}

// The same files as `{files}` names them: relative to the leg's cwd.
std::vector<std::string> Matched(const Leg& leg, const RunFiles& run) {
  std::vector<std::string> out;
  for (const std::string& f : MatchedFromRoot(leg, run)) {
    std::string rel =
        leg.cwd.empty() ? f : fs::path(f).lexically_relative(leg.cwd).generic_string();
    out.push_back(rel[0] == '-' ? "./" + rel : rel);  // never read as an option
  }
  return out;
}

std::string Listed(const std::vector<std::string>& globs) {
  std::string out;
  for (const std::string& g : globs) out += (out.empty() ? "" : ", ") + g;
  return out;
}

// "no staged file matches its files: *.cpp (excluding gen/*)".
std::string NoFilesReason(const Leg& leg, const RunFiles& run) {
  std::string noun = "no " + run.Noun();
  if (!leg.files.empty()) {
    return noun + " matches its files: " + Listed(leg.files) +
           (leg.exclude.empty() ? "" : " (excluding " + Listed(leg.exclude) + ")");
  }
  if (!leg.exclude.empty()) return noun + " but those it excludes: " + Listed(leg.exclude);
  return noun + " to pass as {files}";
}

}  // namespace

std::string RunFiles::Noun() const {
  if (set == FileSet::kStaged) return "staged file";
  if (set == FileSet::kBase) return "file changed since " + base;
  return "file";
}

StatusOr<RunFiles> ListRunFiles(const std::string& root, FileSet set, const std::string& base) {
  RunFiles out{set, base, {}};
  auto repo = git::Discover(root);
  if (!repo.ok()) {
    if (set != FileSet::kAll)
      return Status::Invalid(root + ": --staged and --base need a git repository");
    out.files = ExpandGlobs(root, {"**"});
    return out;
  }
  StatusOr<std::vector<std::string>> files =
      set == FileSet::kStaged ? git::StagedFiles(repo->workdir)
      : set == FileSet::kBase ? git::FilesChangedSince(repo->workdir, base)
                              : git::WorkingFiles(repo->workdir);
  if (!files.ok())
    return set == FileSet::kBase
               ? Status::Invalid("--base " + base + ": " + files.status().message())
               : files.status();
  // git names paths from the working tree's top; legs, from the root (suites.json's folder),
  // which may lie below it: a file outside the root is none of the run's.
  std::string prefix = PrefixInTree(repo->workdir, root);
  for (std::string& f : *files) {
    if (f.compare(0, prefix.size(), prefix) == 0) out.files.push_back(f.substr(prefix.size()));
  }
  return out;
}

bool FilesGlobMatch(const std::string& glob, const std::string& path) {
  if (GlobMatch(glob, path)) return true;
  return glob.find('/') == std::string::npos && GlobMatch(glob, fs::path(path).filename().string());
}

ArgLimits SystemArgLimits() {
  long arg_max = sysconf(_SC_ARG_MAX);
  size_t env = 0;
  for (char** e = environ; e && *e; ++e) env += std::strlen(*e) + 1 + kPointer;
  size_t max = arg_max > 0 ? static_cast<size_t>(arg_max) : 131072;
  return {max > env ? (max - env) / 2 : 4096, 32 * 4096 - 1};
}

StatusOr<FileLegs> ExpandFileLegs(const std::vector<const Leg*>& legs, const RunFiles& files,
                                  const ArgLimits& limits) {
  FileLegs out;
  std::map<std::string, std::vector<std::string>> batch_names;  // a batched leg → its batches
  for (const Leg* leg : legs) {
    Leg copy = *leg;
    copy.needs.clear();
    for (const std::string& need : leg->needs) {
      auto it = batch_names.find(need);
      if (it == batch_names.end())
        copy.needs.push_back(need);
      else
        copy.needs.insert(copy.needs.end(), it->second.begin(), it->second.end());
    }
    bool uses = UsesFiles(*leg), filters = !leg->files.empty() || !leg->exclude.empty();
    std::vector<std::string> matched =
        !filters && !uses ? std::vector<std::string>{} : Matched(*leg, files);
    if ((filters || uses) && matched.empty()) out.no_files[leg->name] = NoFilesReason(*leg, files);
    if (!uses || matched.empty()) {
      if (leg->stage_fixed) out.fixable[leg->name] = MatchedFromRoot(*leg, files);
      out.legs.push_back(std::move(copy));
      continue;
    }
    PG_ASSIGN_OR_RETURN(auto batches, Batches(*leg, matched, limits));
    std::vector<std::string> from_root = MatchedFromRoot(*leg, files);  // in `matched`'s order
    for (size_t i = 0, first = 0; i < batches.size(); first += batches[i].size(), ++i) {
      Leg batch = copy;
      if (batches.size() > 1) batch.name += "#" + std::to_string(i + 1);
      batch.argv = Expanded(leg->argv, batches[i]);
      batch.definition +=
          "\n{files}: " + Joined(batches[i]);  // the files are part of its cache key
      if (batches.size() > 1) batch_names[leg->name].push_back(batch.name);
      if (leg->stage_fixed) {
        out.fixable[batch.name].assign(from_root.begin() + first,
                                       from_root.begin() + first + batches[i].size());
      }
      out.legs.push_back(std::move(batch));
    }
  }
  return out;
}

}  // namespace pg
