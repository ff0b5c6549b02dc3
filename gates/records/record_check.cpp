#include <map>
#include <regex>

#include "gates/core/file_io.h"
#include "gates/records/record.h"
#include "gates/runner/capture.h"

namespace pg {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// The observed value, or a verdict (absent/error) with the reason.
FieldResult Observe(const Record& r, const RecordField& f, const std::string& root) {
  FieldResult out{f.name, f.expect, "", Verdict::kError, ""};
  std::string where = r.name + "." + f.name + ": ";
  if (!f.observe.empty()) {
    auto run = RunCapture(f.observe, root, f.timeout_s, /*apart=*/true);
    if (!run.ok()) {
      out.verdict = f.optional ? Verdict::kAbsent : Verdict::kError;
      out.message = where + (f.optional ? "absent: " : "cannot observe: ") + run.status().message();
      return out;
    }
    if (f.optional && run->exit.exit_code == 127) {  // the shell's "command not found"
      out.verdict = Verdict::kAbsent;
      out.message = where + "absent: " + Trim(run->output + run->errors);
      return out;
    }
    if (run->exit.exit_code != 0) {
      out.message = where + "observer exited " + std::to_string(run->exit.exit_code) + ": " +
                    Trim(run->output + run->errors);
      return out;
    }
    // stdout is the value: stderr is progress and warnings, unless it is all there is.
    out.observed = Trim(run->output).empty() ? Trim(run->errors) : Trim(run->output);
  } else {
    auto text = ReadFile(root + "/" + f.observe_file);
    if (!text.ok()) {
      out.verdict = f.optional ? Verdict::kAbsent : Verdict::kError;
      out.message = where + text.status().message();
      return out;
    }
    std::smatch m;
    if (!std::regex_search(*text, m,
                           std::regex(f.regex, std::regex::ECMAScript | std::regex::multiline))) {
      out.message = where + "regex " + Quoted(f.regex) + " matches nothing in " + f.observe_file;
      return out;
    }
    out.observed = Trim(m.size() > 1 ? m[1].str() : m[0].str());
  }
  bool match = out.observed == f.expect;
  out.verdict = match ? Verdict::kMatch : Verdict::kMismatch;
  if (!match)
    out.message = where + "observed " + Quoted(out.observed) + ", expected " + Quoted(f.expect);
  return out;
}

RelationResult Relate(const Record& r, const RecordRelation& rel,
                      const std::map<std::string, const FieldResult*>& v) {
  RelationResult out;
  const FieldResult *of = v.at(rel.of), *is = v.at(rel.is);
  const std::string& a = of->observed;
  const std::string& b = is->observed;
  if (rel.kind == "prefix") {
    out.text = rel.is + " is a prefix of " + rel.of;
    out.ok = a.compare(0, b.size(), b) == 0;
  } else if (rel.kind == "equal") {
    out.text = rel.is + " equals " + rel.of;
    out.ok = a == b;
  } else {
    bool allowed = v.at(rel.when_field)->observed == rel.when_equals;
    out.text = rel.of + " is " + rel.is +
               (allowed ? " or " + rel.is + " + " + Quoted(rel.suffix) : "") + " (" +
               rel.when_field + (allowed ? " is " : " is not ") + Quoted(rel.when_equals) + ")";
    out.ok = a == b || (allowed && a == b + rel.suffix);
  }
  bool observed = of->verdict == Verdict::kMatch || of->verdict == Verdict::kMismatch;
  if (!observed || !(is->verdict == Verdict::kMatch || is->verdict == Verdict::kMismatch)) {
    out.ok = false;
    out.message = r.name + ": relation not checked: a field was not observed";
  } else if (!out.ok) {
    out.message = r.name + ": " + out.text + " does not hold: " + rel.of + "=" + Quoted(a) + ", " +
                  rel.is + "=" + Quoted(b);
  }
  return out;
}

}  // namespace

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kMatch:
      return "match";
    case Verdict::kMismatch:
      return "MISMATCH";
    case Verdict::kAbsent:
      return "absent";
    case Verdict::kError:
      return "ERROR";
  }
  return "ERROR";
}

bool RecordResult::ok() const {
  for (const FieldResult& f : fields) {
    if (f.verdict == Verdict::kMismatch || f.verdict == Verdict::kError) return false;
  }
  for (const RelationResult& r : relations) {
    if (!r.ok) return false;
  }
  return true;
}

RecordResult CheckRecord(const Record& record, const std::string& root) {
  RecordResult result{record.name, record.path, {}, {}};
  for (const RecordField& f : record.fields) result.fields.push_back(Observe(record, f, root));
  std::map<std::string, const FieldResult*> by_name;
  for (const FieldResult& f : result.fields) by_name[f.field] = &f;
  for (const RecordRelation& rel : record.relations)
    result.relations.push_back(Relate(record, rel, by_name));
  return result;
}

}  // namespace pg
