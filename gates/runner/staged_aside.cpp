#include "runner/staged_aside.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file_io.h"
#include "core/journal.h"
#include "git/git.h"

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

std::vector<std::string> Rewritten(const std::vector<Recovered>& recovered) {
  std::vector<std::string> out;
  for (const Recovered& r : recovered) {
    if (r.rewritten) out.push_back(r.path);
  }
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<StagedAside>> StagedAside::Begin(const std::string& workdir, const std::string& state_dir) {
  PG_RETURN_IF_ERROR(MakeDirs(state_dir));
  int fd = TryLock(state_dir);
  if (fd < 0) return Status::Invalid(state_dir + "/staged.lock: another `proofgate preflight --staged` is running here");
  std::unique_ptr<StagedAside> aside(new StagedAside(workdir, state_dir + "/staged", fd));
  PG_RETURN_IF_ERROR(RecoverJournal(aside->journal_dir_, MissingFolder::kCreate).status());  // a killed run's
  PG_RETURN_IF_ERROR(aside->SetAside());
  return aside;
}

Status StagedAside::SetAside() {
  PG_ASSIGN_OR_RETURN(std::vector<std::string> files, git::UnstagedFiles(workdir_));
  Journal journal(journal_dir_);
  for (const std::string& f : files) {
    std::string path = workdir_ + f;
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0) {
      PG_RETURN_IF_ERROR(journal.RecordAbsent(path));
    } else if (S_ISREG(st.st_mode)) {
      PG_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
      PG_RETURN_IF_ERROR(journal.Record(path, bytes, st.st_mode & 07777));
    } else {
      return Status::Invalid(path + ": --staged sets aside unstaged changes of regular files only; stage or undo this one");
    }
    files_.push_back(f);  // journaled: from here on, putting back covers it
  }
  return git::CheckoutIndex(workdir_, files_);
}

Status StagedAside::PutBack(std::vector<std::string>* dropped) {
  if (put_back_) return Status();
  for (const std::string& f : files_) {
    auto now = ReadFile(workdir_ + f);
    auto staged = git::IndexedBytes(workdir_, f);
    if (dropped && (!now.ok() || !staged.ok() || *now != *staged)) dropped->push_back(f);
  }
  PG_RETURN_IF_ERROR(RecoverJournal(journal_dir_, MissingFolder::kCreate).status());
  put_back_ = true;
  return Status();
}

StagedAside::~StagedAside() {
  (void)PutBack(nullptr);
  if (lock_fd_ >= 0) close(lock_fd_);
}

StatusOr<std::vector<std::string>> RecoverStaged(const std::string& state_dir) {
  std::vector<std::string> out;
  if (access((state_dir + "/staged").c_str(), F_OK) != 0) return out;
  int fd = TryLock(state_dir);
  if (fd < 0) return out;  // a run holds it: its journal is its own
  auto recovered = RecoverJournal(state_dir + "/staged", MissingFolder::kCreate);
  close(fd);
  if (!recovered.ok()) return recovered.status();
  return Rewritten(*recovered);
}

}  // namespace pg
