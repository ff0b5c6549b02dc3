// `proofgate merge-reports FILE...`: CI shards' JSON reports into one verdict, rendered as the
// verb that wrote them renders it (specs/merge-reports.md).
#include <unistd.h>

#include <iostream>

#include "gates/cli/cli.h"
#include "gates/core/file_io.h"
#include "gates/merge/shard_merge.h"
#include "gates/mutate/mutate_merge.h"
#include "gates/mutate/mutate_report.h"

namespace pg::cli {
namespace {

int MergePreflight(const CommonFlags& common, const std::vector<JsonSource>& docs,
                   const std::vector<std::string>& paths) {
  std::vector<RunReport> shards;
  for (const JsonSource& doc : docs) {
    auto report = RunReportFromJson(doc);
    if (!report.ok()) return Fail(report.status());
    shards.push_back(std::move(*report));
  }
  RunReport merged = MergeRunReports(shards, paths);
  Status written = WriteReports(merged, common);
  if (!written.ok()) return Fail(written);
  return static_cast<int>(merged.exit_code);
}

int MergeMutate(const CommonFlags& common, const std::vector<JsonSource>& docs,
                const std::vector<std::string>& paths) {
  std::vector<MutateReport> shards;
  for (const JsonSource& doc : docs) {
    auto report = MutateReportFromJson(doc);
    if (!report.ok()) return Fail(report.status());
    shards.push_back(std::move(*report));
  }
  auto merged = MergeMutateReports(shards, paths);
  if (!merged.ok()) return Fail(merged.status());
  if (common.json)
    std::cout << MutateReportJson(*merged);
  else
    WriteMutateTable(*merged, std::cout, UseColor(common.color, STDOUT_FILENO));
  std::cout.flush();
  Status written =
      common.junit.empty() ? Status() : WriteFileAtomic(common.junit, MutateReportJunit(*merged));
  if (written.ok()) written = WriteMutateReports(*merged, common);
  if (!written.ok()) return Fail(written);
  return MutateExitCode(*merged);
}

}  // namespace

int RunMergeReportsVerb(const CommonFlags& common, const std::vector<std::string>& files) {
  std::vector<JsonSource> loaded;
  std::vector<ShardHeader> headers;
  for (const std::string& file : files) {
    // -C: relative names are read from DIR, as every verb reads its files.
    bool relative = !common.dir.empty() && !file.empty() && file[0] != '/';
    auto doc = JsonSource::Load(relative ? common.dir + "/" + file : file);
    if (!doc.ok()) return Fail(doc.status());
    auto header = ReadShardHeader(*doc);
    if (!header.ok()) return Fail(header.status());
    loaded.push_back(std::move(*doc));
    headers.push_back(std::move(*header));
  }
  std::vector<size_t> order;
  Refusal refusal = CheckShards(headers, &order);
  if (!refusal.ok()) {
    std::cerr << "merge-reports: " << refusal.message << "\n";
    const ResultClass results[] = {refusal.result};
    return static_cast<int>(refusal.error.ok() ? RunExitCode(results) : ExitCodeFor(refusal.error));
  }
  std::vector<JsonSource> docs;
  std::vector<std::string> paths;
  for (size_t i : order) {
    docs.push_back(loaded[i]);
    paths.push_back(files[i]);
  }
  if (headers[0].verb == "preflight") return MergePreflight(common, docs, paths);
  if (headers[0].verb == "mutate") return MergeMutate(common, docs, paths);
  return Fail(Status::Invalid(files[0] + ": reports of `proofgate " + headers[0].verb +
                              "` cannot be merged (preflight and mutate shards can)"));
}

}  // namespace pg::cli
