#include "gates/mutate/mutant.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "gates/core/file_io.h"
#include "gates/core/sha256.h"
#include "gates/git/git.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

// `original` with every mutation of one file applied, last offset first.
StatusOr<std::string> Mutated(const std::string& file, const std::string& original,
                              std::vector<const Mutation*> ms) {
  std::sort(ms.begin(), ms.end(),
            [](const Mutation* a, const Mutation* b) { return a->offset > b->offset; });
  std::string out = original;
  size_t limit = std::string::npos;
  for (const Mutation* m : ms) {
    if (original.compare(m->offset, m->find.size(), m->find) != 0) {
      return Status::Invalid("mutation \"" + m->id + "\": " + file +
                             " changed since the catalog was checked");
    }
    if (limit != std::string::npos && m->offset + m->find.size() > limit) {
      return Status::Invalid("mutation \"" + m->id + "\" overlaps another one applied with it in " +
                             file);
    }
    out.replace(m->offset, m->find.size(), m->replace);
    limit = m->offset;
  }
  return out;
}

}  // namespace

StatusOr<AppliedMutant> AppliedMutant::Apply(const std::string& tree,
                                             const std::vector<const Mutation*>& mutations,
                                             Journal* journal) {
  std::map<std::string, std::vector<const Mutation*>> by_file;
  for (const Mutation* m : mutations) by_file[m->file].push_back(m);
  // Everything is read and checked before the first write: a refusal changes nothing.
  std::vector<std::pair<File, std::string>> planned;
  for (const auto& [file, ms] : by_file) {
    File f;
    f.path = tree + "/" + file;
    PG_ASSIGN_OR_RETURN(f.original, ReadFile(f.path));
    f.sha256 = Sha256Hex(f.original);
    f.perms = static_cast<unsigned>(fs::status(f.path).permissions()) & 07777;
    PG_ASSIGN_OR_RETURN(std::string mutated, Mutated(file, f.original, ms));
    planned.emplace_back(std::move(f), std::move(mutated));
  }
  AppliedMutant a;
  a.tree_ = tree;
  a.journal_ = journal;
  // What git shows before the mutant (an in-tree build's outputs) is no mutant's doing.
  PG_ASSIGN_OR_RETURN(std::vector<std::string> before, git::Dirty(tree));
  a.before_ = {before.begin(), before.end()};
  for (const auto& [f, mutated] : planned) {
    Status step = journal ? journal->Record(f.path, f.original, f.perms) : Status();
    if (step.ok()) {
      a.files_.push_back(f);  // from here on Restore puts it back, even if the write half-fails
      step = a.Write(f, mutated);
    }
    if (!step.ok()) {
      Status undo = a.Restore();  // the files already mutated go back before we report
      return undo.ok() ? step : undo;
    }
  }
  return a;
}

// Atomic replace keeps readers from seeing half a file; the mode is put back because the
// replacement is a new file (an executable script must stay executable).
Status AppliedMutant::Write(const File& f, const std::string& content) const {
  PG_RETURN_IF_ERROR(WriteFileAtomic(f.path, content));
  std::error_code ec;
  fs::permissions(f.path, static_cast<fs::perms>(f.perms), ec);
  return ec ? Status::Io(f.path + ": cannot restore its mode: " + ec.message()) : Status();
}

Status AppliedMutant::Restore() {
  for (const File& f : files_) {
    PG_RETURN_IF_ERROR(Write(f, f.original));
    PG_ASSIGN_OR_RETURN(std::string now, ReadFile(f.path));
    if (Sha256Hex(now) != f.sha256)
      return Status::Internal(f.path + ": restored bytes differ from the original (sha256)");
  }
  PG_ASSIGN_OR_RETURN(std::vector<std::string> dirty, git::Dirty(tree_));
  for (const std::string& path : dirty) {
    if (!before_.count(path))
      return Status::Internal(tree_ + ": not clean after restoring (" + path + ")");
  }
  for (const File& f : files_) {
    if (journal_) PG_RETURN_IF_ERROR(journal_->Forget(f.path));
  }
  files_.clear();
  return Status();
}

}  // namespace pg
