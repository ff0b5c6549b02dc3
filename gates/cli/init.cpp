// `proofgate init`: a commented preflight/suites.json for the project here, never overwriting.
#include <filesystem>
#include <iostream>

#include "gates/cli/cli.h"
#include "gates/git/git.h"
#include "gates/init/project_init.h"

namespace pg::cli {

int RunInitVerb(const CommonFlags& common, const std::string& kind) {
  std::error_code ec;
  std::string start = common.dir.empty() ? std::filesystem::current_path(ec).string() : common.dir;
  if (!std::filesystem::is_directory(start, ec))
    return Fail(Status::Invalid("-C " + start + ": not a directory"));
  // The repository's root when there is one: suites.json lives there.
  auto repo = git::Discover(start);
  std::string root = repo.ok() ? std::filesystem::path(repo->workdir).lexically_normal().string()
                               : std::filesystem::absolute(start).lexically_normal().string();
  if (root.size() > 1 && root.back() == '/') root.pop_back();
  auto result =
      InitProject(root, std::filesystem::absolute(start).lexically_normal().string(), kind);
  if (!result.ok()) return Fail(result.status());
  std::cout << "init: a " << result->shape.kind << " project in " << root << "\n";
  for (const std::string& file : result->written) std::cout << "wrote " << file << "\n";
  for (const std::string& note : result->notes) std::cout << "note: " << note << "\n";
  std::cout << "next: proofgate preflight   (then: proofgate prove --base REF, proofgate mutate)\n";
  return 0;
}

}  // namespace pg::cli
