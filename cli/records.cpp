// `proofgate records check [FILE...]`: each record's observed values against its own constants.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/cli.h"
#include "core/exit_code.h"
#include "records/record.h"

namespace pg::cli {

int RunRecordsCheck(const CommonFlags& common, std::vector<std::string> files) {
  std::string root = ProjectRoot(common);
  if (files.empty()) files = FilesIn(root, "records", ".json");
  if (files.empty()) return Fail(pg::Status::Invalid(root + "/records: no record files"));
  std::vector<pg::RecordResult> results;
  for (const std::string& file : files) {
    std::string path = std::filesystem::path(file).is_absolute() ? file : root + "/" + file;
    auto record = pg::LoadRecord(path);
    if (!record.ok()) return Fail(record.status().WithContext("records check"));
    record->path = file;
    results.push_back(pg::CheckRecord(*record, root));
  }
  std::cout << (common.json ? pg::RecordResultsJson(results) : pg::RecordResultsText(results));
  bool ok = std::all_of(results.begin(), results.end(), [](const pg::RecordResult& r) { return r.ok(); });
  return static_cast<int>(ok ? pg::ExitCode::kPass : pg::ExitCode::kGateFailed);
}

}  // namespace pg::cli
