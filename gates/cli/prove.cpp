// `proofgate prove --base REF`: red before / green after, lost tests, pass-to-pass.
#include "gates/prove/prove.h"

#include <filesystem>
#include <iostream>

#include "gates/cli/cli.h"
#include "gates/config/suite_config.h"
#include "gates/core/exit_code.h"
#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/mutate/commands.h"
#include "gates/prove/prove_html.h"
#include "gates/prove/prove_report.h"

namespace pg::cli {

int RunProveVerb(const CommonFlags& common, const ProveFlags& flags) {
  std::string root = ProjectRoot(common);
  ProveSettings settings;
  std::error_code ec;
  if (std::filesystem::exists(root + "/" + kDefaultConfig, ec)) {
    auto config = LoadSuiteConfig(root + "/" + kDefaultConfig, kDefaultConfig);
    if (!config.ok()) return Fail(config.status());
    settings = config->prove;
  }
  if (settings.tests.empty()) {
    settings.tests = kDefaultTestGlobs;
    std::string globs;
    for (const std::string& g : settings.tests) globs += " " + g;
    if (!common.quiet)
      std::cerr << "prove: no \"prove\": {\"tests\": [...]} in " << kDefaultConfig
                << "; test files are the default globs:" << globs << "\n";
  }
  Status commands = CheckScratchCommands(root, settings.configure, "suites.json's \"prove\"");
  if (!commands.ok()) return Fail(commands);
  auto repo = git::Discover(root);
  if (!repo.ok()) return Fail(repo.status());
  ProveOptions o;
  o.root = root;
  o.base = flags.base;
  o.head = flags.head;
  o.work_dir = flags.work_dir.empty() ? repo->gitdir + "proofgate/prove"
                                      : std::filesystem::absolute(flags.work_dir).string();
  o.settings = settings;
  o.only = flags.tests;
  o.allow_empty = flags.allow_empty;
  o.cancel_fd = InstallCancelPipe();
  StepProgress progress(std::cerr, "steps", LiveFd(common));
  if (!common.quiet) {
    o.on_notice = [&progress](const std::string& text) {
      progress.OnStep(0,
                      text);  // prove says each step as it starts: the status line shows the latest
      progress.Print("prove: " + text + "\n");
    };
  }
  auto report = RunProve(o);
  progress.Close();
  if (!report.ok()) return Fail(report.status());
  if (common.json)
    std::cout << ProveReportJson(*report);
  else
    WriteProveTable(*report, std::cout);
  std::cout.flush();
  Status written =
      common.html.empty() ? Status() : WriteFileAtomic(common.html, ProveReportHtml(*report));
  if (!written.ok()) return Fail(written);
  return static_cast<int>(report->Verdict());
}

}  // namespace pg::cli
