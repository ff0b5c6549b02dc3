#include "core/journal.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <sstream>

#include "core/file_io.h"
#include "core/integer_text.h"
#include "core/sha256.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

// One entry per file, named by the hash of its path: "<key>.orig" holds the bytes, "<key>.entry"
// the path, the bytes' sha256 and the mode, one per line, and "absent" on a fourth line when
// there was no file (its .orig is empty).
std::string KeyOf(const std::string& path) { return Sha256Hex(path).substr(0, 32); }

constexpr char kAbsent[] = "absent";

struct Entry {
  std::string path, sha256;
  unsigned mode = 0644;
  bool absent = false;
};

StatusOr<Entry> ParseEntry(const std::string& file, const std::string& text) {
  std::istringstream in(text);
  Entry e;
  std::string mode;
  std::optional<long> bits;
  if (!std::getline(in, e.path) || !std::getline(in, e.sha256) || !std::getline(in, mode) || e.sha256.size() != 64 ||
      !(bits = ParseInteger(mode, 8)) || *bits < 0) {
    return Status::Invalid(file + ": not a journal entry (path, sha256 and octal mode, one a line)");
  }
  // An entry is named after the path it saved: one naming another file was not written by
  // proofgate, and recovering it could write anywhere.
  if (fs::path(file).stem().string() != KeyOf(e.path) || !fs::path(e.path).is_absolute()) {
    return Status::Invalid(file + ": names " + e.path + ", a file this entry was not recorded for");
  }
  e.mode = static_cast<unsigned>(*bits) & 07777;
  std::string absent;
  e.absent = std::getline(in, absent) && absent == kAbsent;
  return e;
}

Status PutBack(const Entry& e, const std::string& original, bool* rewritten) {
  std::error_code ec;
  if (e.absent) {
    *rewritten = fs::remove(e.path, ec);
    return ec ? Status::Io(e.path + ": cannot remove: " + ec.message()) : Status();
  }
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
  if (Sha256Hex(check) != e.sha256) return Status::Internal(e.path + ": sha256 differs after recovery");
  return Status();
}

Status RecoverEntry(const std::string& base, MissingFolder missing, std::vector<Recovered>* out) {
  PG_ASSIGN_OR_RETURN(std::string text, ReadFile(base + ".entry"));
  PG_ASSIGN_OR_RETURN(Entry e, ParseEntry(base + ".entry", text));
  PG_ASSIGN_OR_RETURN(std::string original, ReadFile(base + ".orig"));
  if (Sha256Hex(original) != e.sha256) return Status::Invalid(base + ".orig: saved bytes do not match their sha256");
  Recovered r{e.path, false, false};
  std::error_code ec;
  // A scratch tree removed since (gc, rm -rf) holds nothing to put back: the entry is dropped.
  r.gone = !fs::is_directory(fs::path(e.path).parent_path(), ec);
  if (r.gone && missing == MissingFolder::kCreate && !e.absent) {
    PG_RETURN_IF_ERROR(MakeDirs(fs::path(e.path).parent_path().string()));
    r.gone = false;
  }
  if (!r.gone) PG_RETURN_IF_ERROR(PutBack(e, original, &r.rewritten));
  out->push_back(r);
  fs::remove(base + ".entry", ec);
  fs::remove(base + ".orig", ec);
  return Status();
}

}  // namespace

Status Journal::Record(const std::string& path, const std::string& original, unsigned mode) {
  PG_RETURN_IF_ERROR(MakeDirs(dir_));
  std::string base = dir_ + "/" + KeyOf(path);
  // Bytes first, entry second: a kill between the two leaves an orphan .orig, never an entry
  // without its bytes.
  PG_RETURN_IF_ERROR(WriteFileAtomic(base + ".orig", original));
  std::ostringstream entry;
  entry << path << "\n" << Sha256Hex(original) << "\n" << std::oct << mode << "\n";
  return WriteFileAtomic(base + ".entry", entry.str());
}

Status Journal::RecordAbsent(const std::string& path) {
  PG_RETURN_IF_ERROR(MakeDirs(dir_));
  std::string base = dir_ + "/" + KeyOf(path);
  PG_RETURN_IF_ERROR(WriteFileAtomic(base + ".orig", ""));
  return WriteFileAtomic(base + ".entry", path + "\n" + Sha256Hex("") + "\n0\n" + kAbsent + "\n");
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
    if (f.path().extension() == ".entry") entries.push_back(name.substr(0, name.size() - 6));
    else leftovers.push_back(name);
  }
  for (const std::string& base : entries) PG_RETURN_IF_ERROR(RecoverEntry(base, missing, &out));
  // What is left are originals whose entry was never written (the file was not touched yet)
  // and temporaries of interrupted journal writes.
  for (const std::string& name : leftovers) fs::remove(name, ec);
  return out;
}

}  // namespace pg
