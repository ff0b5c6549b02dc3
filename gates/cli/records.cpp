// `proofgate records check [FILE...]`: each record's observed values against its own constants.
#include <iostream>

#include "gates/cli/cli.h"
#include "gates/core/exit_code.h"
#include "gates/records/record.h"

namespace pg::cli {

int RunRecordsCheck(const CommonFlags& common, std::vector<std::string> files) {
  std::string root = ProjectRoot(common);
  auto inputs = CheckInputs(root, std::move(files), "records", ".json", "record files");
  if (!inputs.ok()) return Fail(inputs.status());
  std::vector<pg::RecordResult> results;
  for (const Input& input : *inputs) {
    auto record = pg::LoadRecord(input.path);
    if (!record.ok()) return Fail(record.status().WithContext("records check"));
    record->path = input.name;
    results.push_back(pg::CheckRecord(*record, root));
  }
  std::cout << (common.json ? pg::RecordResultsJson(results) : pg::RecordResultsText(results));
  std::vector<pg::ResultClass> classes;
  for (const pg::RecordResult& r : results)
    classes.push_back(r.ok() ? pg::ResultClass::kPass : pg::ResultClass::kFail);
  return static_cast<int>(pg::RunExitCode(classes));
}

}  // namespace pg::cli
