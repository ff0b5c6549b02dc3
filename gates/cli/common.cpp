#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string_view>

#include "gates/cli/cli.h"
#include "gates/core/exit_code.h"
#include "gates/core/file_io.h"
#include "gates/core/integer_text.h"
#include "gates/report/writers.h"
#include "gates/runner/preflight.h"

namespace pg::cli {
namespace {
int g_cancel_write = -1;

void OnSignal(int) {
  char byte = 1;
  [[maybe_unused]] ssize_t n = write(g_cancel_write, &byte, 1);
}

// SIGINT/SIGTERM/SIGHUP become a readable fd the scheduler polls, so legs are stopped in order
// (and `--staged` puts back what it set aside: a terminal closed under `git commit` is a HUP).
}  // namespace

int InstallCancelPipe() {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  g_cancel_write = fds[1];
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return fds[0];
}

std::string& LastFailure() {
  static std::string message;
  return message;
}

int Fail(const pg::Status& status) {
  std::cerr << "proofgate: " << status.message() << "\n";
  LastFailure() = status.message();
  return static_cast<int>(pg::ExitCodeFor(status));
}

bool UseColor(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  return isatty(fd) && getenv("NO_COLOR") == nullptr;
}

int LiveFd(const CommonFlags& common) {
  if (common.quiet || common.progress == "plain") return -1;
  return common.progress == "tty" || isatty(STDERR_FILENO) ? STDERR_FILENO : -1;
}

pg::Status WriteReports(const pg::RunReport& report, const CommonFlags& common) {
  if (common.json) {
    std::cout << pg::RunReportJson(report);
  } else {
    pg::WriteRunTable(report, std::cout, UseColor(common.color, STDOUT_FILENO));
  }
  std::cout.flush();
  if (!common.junit.empty())
    PG_RETURN_IF_ERROR(pg::WriteFileAtomic(common.junit, pg::RunReportJunit(report)));
  if (!common.summary.empty()) {
    PG_RETURN_IF_ERROR(pg::WriteFileAtomic(common.summary, pg::RunReportMarkdown(report)));
  }
  if (!common.html.empty())
    PG_RETURN_IF_ERROR(pg::WriteFileAtomic(common.html, pg::RunReportHtml(report)));
  return EmitCi(common, pg::RunReportMarkdown(report), pg::RunAnnotations(report),
                pg::RunGroups(report));
}

std::vector<std::string> ReportFiles(const CommonFlags& common) {
  return {common.junit, common.summary, common.html, common.codequality};
}

Status EmitCi(const CommonFlags& common, const std::string& markdown,
              const std::vector<Annotation>& annotations, const std::string& groups) {
  PG_ASSIGN_OR_RETURN(CiSystem ci, ResolveCi(common.ci));
  if (!common.codequality.empty())
    PG_RETURN_IF_ERROR(WriteFileAtomic(common.codequality, CodeQualityJson(annotations)));
  if (ci != CiSystem::kGithub) return Status();
  std::cerr << groups << GithubAnnotations(annotations);
  std::cerr.flush();
  if (markdown.empty()) return Status();
  std::string full = !common.html.empty() ? common.html : !common.junit.empty() ? common.junit : "";
  return AppendStepSummary(markdown, full);
}

// The directory records, specs and anchors are relative to: -C, else the preflight root, else here.
std::string ProjectRoot(const CommonFlags& common) {
  // -C DIR is `cd DIR`: the root is found above DIR as it would be above the current directory.
  std::string start = common.dir.empty()
                          ? std::filesystem::current_path().string()
                          : std::filesystem::absolute(common.dir).lexically_normal().string();
  auto root = pg::FindRoot(start);
  return root.ok() ? *root : start;
}

// root/dir/*ext, relative to root, sorted: the default inputs of records and specs check.
std::vector<std::string> FilesIn(const std::string& root, const std::string& dir,
                                 const std::string& ext) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root + "/" + dir, ec)) {
    if (e.path().extension() == ext) files.push_back(RelativePath(e.path().generic_string(), root));
  }
  std::sort(files.begin(), files.end());
  return files;
}

StatusOr<std::vector<Input>> CheckInputs(const std::string& root, std::vector<std::string> given,
                                         const std::string& dir, const std::string& ext,
                                         const std::string& what) {
  if (given.empty()) given = FilesIn(root, dir, ext);
  if (given.empty()) return Status::Invalid(root + "/" + dir + ": no " + what);
  std::vector<Input> inputs;
  for (const std::string& file : given) {
    inputs.push_back({file, std::filesystem::path(file).is_absolute() ? file : root + "/" + file});
  }
  return inputs;
}

Status ParseShard(const std::string& text, int* index, int* count) {
  size_t slash = text.find('/');
  std::string_view whole(text);
  std::optional<long> k =
      slash == std::string::npos ? std::nullopt : ParseInteger(whole.substr(0, slash));
  std::optional<long> n =
      slash == std::string::npos ? std::nullopt : ParseInteger(whole.substr(slash + 1));
  if (k && n && *k >= 1 && *n >= 1 && *k <= *n && *n <= 1000000) {
    *index = static_cast<int>(*k - 1);
    *count = static_cast<int>(*n);
    return Status();
  }
  return Status::Invalid("--shard " + text + ": expected K/N with 1 <= K <= N, e.g. 2/4");
}

}  // namespace pg::cli
