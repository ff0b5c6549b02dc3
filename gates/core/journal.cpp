#include "gates/core/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <sstream>

#include "gates/core/file_io.h"
#include "gates/core/integer_text.h"
#include "gates/core/sha256.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

// One entry per path, named by the hash of its path: "<key>.orig" holds the original (a file's
// bytes, a link's target, nothing), "<key>.entry" the path, the original's sha256 and the mode,
// one per line, then its kind ("file", "absent", "link"; no line: a file) and the state it was
// left in (no line: any).
std::string KeyOf(const std::string& path) { return Sha256Hex(path).substr(0, 32); }

struct Entry {
  std::string path, sha256, kind = "file", written;
  unsigned mode = 0644;
};

StatusOr<Entry> ParseEntry(const std::string& file, const std::string& text) {
  std::istringstream in(text);
  Entry e;
  std::string mode;
  std::optional<long> bits;
  if (!std::getline(in, e.path) || !std::getline(in, e.sha256) || !std::getline(in, mode) ||
      e.sha256.size() != 64 || !(bits = ParseInteger(mode, 8)) || *bits < 0) {
    return Status::Invalid(file +
                           ": not a journal entry (path, sha256 and octal mode, one a line)");
  }
  // An entry is named after the path it saved: one naming another file was not written by
  // proofgate, and recovering it could write anywhere.
  if (fs::path(file).stem().string() != KeyOf(e.path) || !fs::path(e.path).is_absolute()) {
    return Status::Invalid(file + ": names " + e.path + ", a file this entry was not recorded for");
  }
  e.mode = static_cast<unsigned>(*bits) & 07777;
  if (std::getline(in, e.kind) && e.kind != "file" && e.kind != "absent" && e.kind != "link") {
    return Status::Invalid(file + ": unknown kind \"" + e.kind + "\"");
  }
  if (e.kind.empty()) e.kind = "file";
  std::getline(in, e.written);
  return e;
}

Status WriteEntry(const std::string& dir, const Entry& e, const std::string& original) {
  PG_RETURN_IF_ERROR(MakeDirs(dir));
  std::string base = dir + "/" + KeyOf(e.path);
  // Bytes first, entry second: a kill between the two leaves an orphan .orig, never an entry
  // without its bytes.
  PG_RETURN_IF_ERROR(WriteFileAtomic(base + ".orig", original));
  std::ostringstream entry;
  entry << e.path << "\n"
        << Sha256Hex(original) << "\n"
        << std::oct << e.mode << "\n"
        << e.kind << "\n"
        << e.written << "\n";
  return WriteFileAtomic(base + ".entry", entry.str());
}

// Moves what is at `path` into <journal>.kept/ under the entry's key: a directory in the
// original's way, or an original that may not overwrite a newer edit.
StatusOr<std::string> KeepAside(const std::string& journal, const std::string& path,
                                const std::string& suffix) {
  std::string kept =
      journal + ".kept/" + KeyOf(path) + "-" + fs::path(path).filename().string() + suffix;
  PG_RETURN_IF_ERROR(MakeDirs(journal + ".kept"));
  std::error_code ec;
  fs::rename(path, kept, ec);
  if (ec) return Status::Io(path + ": cannot move it to " + kept + ": " + ec.message());
  return kept;
}

Status PutBackFile(const Entry& e, const std::string& original, bool* rewritten) {
  auto now = ReadFile(e.path);
  *rewritten = !now.ok() || *now != original;
  if (*rewritten) PG_RETURN_IF_ERROR(WriteFileAtomic(e.path, original));
  // Same bytes or not, objects may have been built from the mutant after these bytes were
  // last written: a fresh mtime makes every build tool distrust them.
  if (!*rewritten && utimensat(AT_FDCWD, e.path.c_str(), nullptr, 0) != 0) {
    return Status::Io(e.path + ": cannot give it a fresh mtime");
  }
  if (chmod(e.path.c_str(), e.mode) != 0) return Status::Io(e.path + ": cannot restore its mode");
  PG_ASSIGN_OR_RETURN(std::string check, ReadFile(e.path));
  if (Sha256Hex(check) != e.sha256)
    return Status::Internal(e.path + ": sha256 differs after recovery");
  return Status();
}

Status PutBack(const std::string& journal, const Entry& e, const std::string& original,
               Recovered* r) {
  std::error_code ec;
  struct stat st {};
  bool there = lstat(e.path.c_str(), &st) == 0;
  if (there && S_ISDIR(st.st_mode)) {  // a writer made a folder where the original was not one
    PG_ASSIGN_OR_RETURN(r->moved, KeepAside(journal, e.path, ".dir"));
    there = false;
  }
  if (e.kind == "file" && !(there && S_ISLNK(st.st_mode)))
    return PutBackFile(e, original, &r->rewritten);
  if (there) fs::remove(e.path, ec);
  if (ec) return Status::Io(e.path + ": cannot remove: " + ec.message());
  if (e.kind == "file")
    return PutBackFile(e, original, &r->rewritten);  // a link stood where the file was
  r->rewritten = there || e.kind == "link";
  if (e.kind == "link" && symlink(original.c_str(), e.path.c_str()) != 0)
    return Status::Io(e.path + ": cannot make the link again");
  return Status();
}

Status RecoverEntry(const std::string& dir, const std::string& base, MissingFolder missing,
                    std::vector<Recovered>* out) {
  PG_ASSIGN_OR_RETURN(std::string text, ReadFile(base + ".entry"));
  PG_ASSIGN_OR_RETURN(Entry e, ParseEntry(base + ".entry", text));
  PG_ASSIGN_OR_RETURN(std::string original, ReadFile(base + ".orig"));
  if (Sha256Hex(original) != e.sha256)
    return Status::Invalid(base + ".orig: saved bytes do not match their sha256");
  Recovered r{e.path, false, false, false, "", ""};
  std::error_code ec;
  // A scratch tree removed since (gc, rm -rf) holds nothing to put back: the entry is dropped.
  r.gone = !fs::is_directory(fs::path(e.path).parent_path(), ec);
  if (r.gone && missing == MissingFolder::kCreate && e.kind != "absent") {
    PG_RETURN_IF_ERROR(MakeDirs(fs::path(e.path).parent_path().string()));
    r.gone = false;
  }
  if (!r.gone && !e.written.empty() && FileState(e.path) != e.written) {
    // Written over since the writer left it (an edit after a kill): that edit stays, and the
    // original is kept beside the journal.
    r.kept_theirs = true;
    r.kept = dir + ".kept/" + KeyOf(e.path) + "-" + fs::path(e.path).filename().string();
    PG_RETURN_IF_ERROR(MakeDirs(dir + ".kept"));
    if (e.kind == "file") PG_RETURN_IF_ERROR(WriteFileAtomic(r.kept, original));
    if (e.kind == "file" && chmod(r.kept.c_str(), e.mode) != 0)
      return Status::Io(r.kept + ": cannot give it its mode");
    if (e.kind == "link" && symlink(original.c_str(), r.kept.c_str()) != 0)
      return Status::Io(r.kept + ": cannot make the link");
    if (e.kind == "absent") r.kept.clear();
  } else if (!r.gone) {
    PG_RETURN_IF_ERROR(PutBack(dir, e, original, &r));
  }
  out->push_back(r);
  fs::remove(base + ".entry", ec);
  fs::remove(base + ".orig", ec);
  return Status();
}

}  // namespace

std::string FileState(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return "absent";
  if (S_ISDIR(st.st_mode)) return "dir";
  std::error_code ec;
  if (S_ISLNK(st.st_mode)) return "link:" + fs::read_symlink(path, ec).string();
  auto bytes = ReadFile(path);
  return "file:" + (bytes.ok() ? Sha256Hex(*bytes) : std::string("unreadable")) + ":" +
         std::to_string(st.st_mode & 07777);
}

Status Journal::Record(const std::string& path, const std::string& original, unsigned mode) {
  return WriteEntry(dir_, Entry{path, "", "file", "", mode}, original);
}

Status Journal::RecordAbsent(const std::string& path) {
  return WriteEntry(dir_, Entry{path, "", "absent", "", 0}, "");
}

Status Journal::RecordLink(const std::string& path, const std::string& target) {
  return WriteEntry(dir_, Entry{path, "", "link", "", 0777}, target);
}

Status Journal::RecordWritten(const std::string& path, const std::string& state) {
  std::string base = dir_ + "/" + KeyOf(path);
  PG_ASSIGN_OR_RETURN(std::string text, ReadFile(base + ".entry"));
  PG_ASSIGN_OR_RETURN(Entry e, ParseEntry(base + ".entry", text));
  PG_ASSIGN_OR_RETURN(std::string original, ReadFile(base + ".orig"));
  e.written = state;
  return WriteEntry(dir_, e, original);
}

Status Journal::Forget(const std::string& path) {
  std::string base = dir_ + "/" + KeyOf(path);
  std::error_code ec;
  fs::remove(base + ".entry", ec);
  if (!ec) fs::remove(base + ".orig", ec);
  return ec ? Status::Io(base + ".entry: cannot remove: " + ec.message()) : Status();
}

StatusOr<std::vector<Recovered>> RecoverJournal(const std::string& dir, MissingFolder missing) {
  std::vector<Recovered> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  std::vector<std::string> entries, leftovers;
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    std::string name = f.path().string();
    if (f.path().extension() == ".entry")
      entries.push_back(name.substr(0, name.size() - 6));
    else
      leftovers.push_back(name);
  }
  Status first;  // one entry that cannot be put back leaves the others to be put back
  for (const std::string& base : entries) {
    Status s = RecoverEntry(dir, base, missing, &out);
    if (!s.ok() && first.ok()) first = s;
  }
  if (!first.ok()) return first;
  // What is left are originals whose entry was never written (the file was not touched yet)
  // and temporaries of interrupted journal writes.
  for (const std::string& name : leftovers) fs::remove(name, ec);
  return out;
}

}  // namespace pg
