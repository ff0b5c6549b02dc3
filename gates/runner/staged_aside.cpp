#include "gates/runner/staged_aside.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "gates/core/file_io.h"
#include "gates/git/git.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

// One `--staged` run at a time per repository: the lock is held for the whole run, and a
// journal found with the lock free belongs to a run that is gone.
int TryLock(const std::string& state_dir) {
  int fd = open((state_dir + "/staged.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  close(fd);
  return -1;
}

// The topmost folder of `rel` that does not exist (empty: all do).
std::string FirstMissingFolder(const std::string& workdir, const std::string& rel) {
  std::string missing;
  std::error_code ec;
  for (fs::path p = fs::path(rel).parent_path(); !p.empty(); p = p.parent_path()) {
    if (!fs::exists(workdir + p.string(), ec)) missing = p.string();
  }
  return missing;
}

Status Record(Journal& journal, const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return journal.RecordAbsent(path);
  std::error_code ec;
  if (S_ISLNK(st.st_mode)) return journal.RecordLink(path, fs::read_symlink(path, ec).string());
  if (!S_ISREG(st.st_mode))
    return Status::Invalid(path + ": --staged sets aside files and links; this is neither");
  PG_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  return journal.Record(path, bytes, st.st_mode & 07777);
}

}  // namespace

StatusOr<std::unique_ptr<StagedAside>> StagedAside::Begin(const std::string& workdir,
                                                          const std::string& state_dir) {
  PG_RETURN_IF_ERROR(MakeDirs(state_dir));
  int fd = TryLock(state_dir);
  if (fd < 0)
    return Status::Invalid(state_dir +
                           "/staged.lock: another `proofgate preflight --staged` is running here");
  std::unique_ptr<StagedAside> aside(new StagedAside(workdir, state_dir + "/staged", fd));
  PG_ASSIGN_OR_RETURN(aside->recovered_, RecoverJournal(aside->journal_dir_,
                                                        MissingFolder::kCreate));  // a killed run's
  PG_RETURN_IF_ERROR(aside->SetAside());
  return aside;
}

namespace {

// What --staged refuses before it sets anything aside: a name the journal's lines cannot hold,
// and a path under a link where git tracks a folder (checking out would write through it,
// outside the tree).
Status CheckSettable(const std::string& workdir, const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    if (f.find('\n') != std::string::npos) {
      return Status::Invalid(workdir + f +
                             ": --staged cannot set aside a file whose name holds a newline; stage "
                             "or undo its change");
    }
    for (fs::path p = fs::path(f).parent_path(); !p.empty(); p = p.parent_path()) {
      std::error_code ec;
      if (fs::is_symlink(workdir + p.string(), ec)) {
        return Status::Invalid(workdir + p.string() +
                               ": a link where git tracks a folder; --staged would write through "
                               "it (stage or undo it)");
      }
    }
  }
  return Status();
}

}  // namespace

Status StagedAside::SetAside() {
  PG_ASSIGN_OR_RETURN(std::vector<std::string> files, git::UnstagedFiles(workdir_));
  PG_RETURN_IF_ERROR(CheckSettable(workdir_, files));
  Journal journal(journal_dir_);
  for (const std::string& f : files) {
    PG_RETURN_IF_ERROR(Record(journal, workdir_ + f));
    files_.push_back(f);  // journaled: from here on, putting back covers it
    made_[f] = FirstMissingFolder(workdir_, f);
  }
  // Journaled, each path goes before the index's version is written: a link there would be
  // written through (outside the tree, or into another tracked file).
  std::error_code ec;
  for (const std::string& f : files_) {
    if (!fs::is_directory(fs::symlink_status(workdir_ + f, ec))) fs::remove(workdir_ + f, ec);
  }
  PG_RETURN_IF_ERROR(git::CheckoutIndex(workdir_, files_));
  // What the index's version left each path as: recovery after a kill puts back only paths
  // still so (an edit made since is the user's), and a leg that changed one is named.
  for (const std::string& f : files_) {
    written_[f] = FileState(workdir_ + f);
    PG_RETURN_IF_ERROR(journal.RecordWritten(workdir_ + f, written_[f]));
  }
  return Status();
}

Status StagedAside::PutBack(std::vector<std::string>* notes) {
  if (put_back_) return Status();
  Journal journal(journal_dir_);
  for (const std::string& f : files_) {
    std::string now = FileState(workdir_ + f);
    if (now == written_[f]) continue;
    if (notes)
      notes->push_back(
          f + ": a leg changed it; its unstaged changes are back and the leg's change is dropped");
    // A leg's change: the user's version wins, so the journal is told this is what was left.
    PG_RETURN_IF_ERROR(journal.RecordWritten(workdir_ + f, now));
  }
  PG_ASSIGN_OR_RETURN(std::vector<Recovered> back,
                      RecoverJournal(journal_dir_, MissingFolder::kCreate));
  for (const Recovered& r : back) {
    if (notes && !r.moved.empty())
      notes->push_back(r.path.substr(workdir_.size()) + ": a folder in its way was moved to " +
                       r.moved);
  }
  RemoveFoldersItMade();
  put_back_ = true;
  return Status();
}

// Checking out a file whose folder the user had removed made that folder: gone again with it.
void StagedAside::RemoveFoldersItMade() const {
  std::error_code ec;
  for (const auto& [f, top] : made_) {
    if (top.empty() || fs::exists(workdir_ + f, ec)) continue;
    for (fs::path p = fs::path(f).parent_path(); !p.empty() && p.string().size() >= top.size();
         p = p.parent_path()) {
      rmdir((workdir_ + p.string()).c_str());  // only an empty folder goes
    }
  }
}

StagedAside::~StagedAside() {
  (void)PutBack(nullptr);
  if (lock_fd_ >= 0) close(lock_fd_);
}

StatusOr<std::vector<Recovered>> RecoverStaged(const std::string& state_dir) {
  if (access((state_dir + "/staged").c_str(), F_OK) != 0) return std::vector<Recovered>{};
  int fd = TryLock(state_dir);
  if (fd < 0) return std::vector<Recovered>{};  // a run holds it: its journal is its own
  auto recovered = RecoverJournal(state_dir + "/staged", MissingFolder::kCreate);
  close(fd);
  return recovered;
}

std::vector<std::string> RecoveryNotes(const std::vector<Recovered>& recovered,
                                       const std::string& workdir) {
  std::vector<std::string> out;
  for (const Recovered& r : recovered) {
    std::string rel = r.path.rfind(workdir, 0) == 0 ? r.path.substr(workdir.size()) : r.path;
    if (r.kept_theirs) {
      out.push_back(rel +
                    ": edited since a killed `preflight --staged` set its unstaged changes aside; "
                    "your edit stays" +
                    (r.kept.empty() ? std::string(" (the set-aside change was its deletion)")
                                    : "; the set-aside version is at " + r.kept));
    } else if (r.rewritten) {
      out.push_back(rel +
                    ": put back the unstaged change a killed `preflight --staged` had set aside");
    }
    if (!r.moved.empty()) out.push_back(rel + ": a folder in its way was moved to " + r.moved);
  }
  return out;
}

}  // namespace pg
