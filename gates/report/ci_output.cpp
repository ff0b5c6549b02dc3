#include "gates/report/ci_output.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gates/config/json_source.h"
#include "gates/core/file_io.h"
#include "gates/core/sha256.h"
#include "gates/report/failure_places.h"

namespace pg {
namespace {

std::string Escape(std::string_view text, bool property) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

std::string Command(const Annotation& a) {
  std::string props;
  auto add = [&](const std::string& key, const std::string& value) {
    props += (props.empty() ? " " : ",") + key + "=" + WorkflowProperty(value);
  };
  if (!a.file.empty()) add("file", a.file);
  if (!a.file.empty() && a.line > 0) add("line", std::to_string(a.line));
  if (!a.title.empty()) add("title", a.title);
  return "::" + a.level + props + "::" + WorkflowData(a.message.empty() ? a.title : a.message) +
         "\n";
}

// `file` as the repository-relative path GitHub wants: relative names are the leg's cwd's.
std::string UnderRoot(const std::string& file, const std::string& cwd, const std::string& root) {
  namespace fs = std::filesystem;
  fs::path p = fs::path(file).is_absolute() ? fs::path(file) : fs::path(cwd) / file;
  fs::path rel = p.lexically_normal().lexically_relative(fs::path(root).lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return file;
  return rel.string();
}

// The leg's whole log when it is there (a tail may have lost the failure), without the
// command lines proofgate writes into it: a command that prints a failure's text would
// otherwise show it as a place of its own.
std::string LegOutput(const LegResult& leg) {
  std::error_code ec;
  std::string text = leg.output_tail;
  if (!leg.log_path.empty() && std::filesystem::file_size(leg.log_path, ec) < (16u << 20) && !ec) {
    auto log = ReadFile(leg.log_path);
    if (log.ok()) text = *log;
  }
  std::string command = "$";
  for (const std::string& arg : leg.argv) command += " " + arg;
  command += "\n";
  for (size_t at = text.find(command); at != std::string::npos; at = text.find(command, at))
    text.erase(at, command.size());
  return text;
}

}  // namespace

StatusOr<CiSystem> ResolveCi(const std::string& flag) {
  auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr && std::string(v) == "true";
  };
  if (flag == "github") return CiSystem::kGithub;
  if (flag == "gitlab") return CiSystem::kGitlab;
  if (flag == "none") return CiSystem::kNone;
  if (flag != "auto")
    return Status::Invalid("--ci " + flag + ": expected auto, github, gitlab or none");
  if (set("GITHUB_ACTIONS")) return CiSystem::kGithub;
  if (set("GITLAB_CI")) return CiSystem::kGitlab;
  return CiSystem::kNone;
}

std::string WorkflowData(std::string_view text) { return Escape(text, false); }
std::string WorkflowProperty(std::string_view text) { return Escape(text, true); }

std::string GithubAnnotations(const std::vector<Annotation>& annotations) {
  std::string out;
  for (size_t i = 0; i < annotations.size() && i < kMaxAnnotations; ++i)
    out += Command(annotations[i]);
  if (annotations.size() > kMaxAnnotations) {
    out += "::warning title=proofgate::" + std::to_string(annotations.size() - kMaxAnnotations) +
           " more problems than GitHub shows as annotations: see the step summary or the report\n";
  }
  return out;
}

std::string GithubGroup(const std::string& title, const std::string& text) {
  std::string body = text.empty() || text.back() == '\n' ? text : text + "\n";
  // A log line that looks like a workflow command ("::error::" printed by a test) stays text.
  std::string token = "proofgate-" + Sha256Hex(text).substr(0, 16);
  return "::group::" + WorkflowData(title) + "\n::stop-commands::" + token + "\n" + body +
         "::" + token + "::\n::endgroup::\n";
}

std::string FitStepSummary(const std::string& markdown, size_t limit,
                           const std::string& full_report) {
  if (markdown.size() <= limit) return markdown;
  std::string note = "\n\n> ✂️ proofgate cut this summary to GitHub's limit of " +
                     std::to_string(limit) + " bytes: ";
  note += "NNNNNNNNNN bytes left out" +
          std::string(full_report.empty() ? "" : "; the whole report is " + full_report) + ".\n";
  size_t room = limit > note.size() ? limit - note.size() : 0;
  size_t cut = markdown.rfind('\n', room);
  cut = cut == std::string::npos ? 0 : cut;
  std::string left = std::to_string(markdown.size() - cut);
  note.replace(note.find("NNNNNNNNNN"), 10, left);
  return markdown.substr(0, cut) + note;
}

Status AppendStepSummary(const std::string& markdown, const std::string& full_report) {
  const char* path = std::getenv("GITHUB_STEP_SUMMARY");
  if (path == nullptr || *path == '\0') return Status();
  std::error_code ec;
  uintmax_t used = std::filesystem::exists(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  size_t room = ec || used >= kStepSummaryLimit ? 0 : kStepSummaryLimit - static_cast<size_t>(used);
  if (room < 200) return Status();  // earlier steps' lines used it all: a cut note would not fit
  return AppendToFile(path, FitStepSummary(markdown, room, full_report));
}

std::string CodeQualityJson(const std::vector<Annotation>& annotations) {
  Json issues = Json::array();
  for (const Annotation& a : annotations) {
    if (a.file.empty()) continue;
    std::string description = a.title + (a.message.empty() ? "" : ": " + a.message);
    issues.push_back(
        {{"description", description},
         {"check_name", a.check},
         {"fingerprint", Sha256Hex(a.check + "\n" + a.file + "\n" + a.title).substr(0, 32)},
         {"severity", a.level == "error" ? "major" : "minor"},
         {"location", {{"path", a.file}, {"lines", {{"begin", std::max(1, a.line)}}}}}});
  }
  return JsonText(issues, 2) + "\n";  // proofgate: no-mutate (any indentation is the same JSON)
}

std::vector<Annotation> RunAnnotations(const RunReport& report) {
  std::vector<Annotation> out;
  for (const LegResult& leg : report.legs) {
    if (leg.outcome == Outcome::kPass || leg.outcome == Outcome::kSkipped) continue;
    std::string outcome(OutcomeName(leg.outcome));
    if (leg.outcome == Outcome::kContended) {
      out.push_back({"warning", "", 0,  // proofgate: no-mutate (no file: its line is never shown)
                     "leg " + leg.name + " contended", leg.note, "contended-leg"});
      continue;
    }
    std::vector<FailurePlace> places = FailurePlaces(LegOutput(leg));
    for (const FailurePlace& p : places) {
      std::string title = leg.name + (p.test.empty() ? "" : ": " + p.test) + " " + outcome;
      out.push_back({"error", UnderRoot(p.file, leg.cwd, report.root), p.line, title, p.message,
                     "failing-test"});
    }
    if (places.empty()) {
      out.push_back({"error", "", 0,  // proofgate: no-mutate (no file: its line is never shown)
                     "leg " + leg.name + " " + outcome, leg.note, "failing-leg"});
    }
  }
  return out;
}

std::string RunGroups(const RunReport& report) {
  std::string out;
  for (const LegResult& leg : report.legs) {
    // GitHub shows a group folded: every leg that ran gets one, a cached or skipped leg has no log.
    if (leg.cached || leg.outcome == Outcome::kSkipped || leg.output_tail.empty()) continue;
    out +=
        GithubGroup(leg.name + " (" + std::string(OutcomeName(leg.outcome)) + ")", leg.output_tail);
  }
  return out;
}

}  // namespace pg
