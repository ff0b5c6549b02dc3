// `proofgate mutate`: --list, --recover, or a run with its reports and the specs' tables.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include "gates/cli/cli.h"
#include "gates/config/json_source.h"
#include "gates/config/suite_config.h"
#include "gates/core/disk_usage.h"
#include "gates/core/exit_code.h"
#include "gates/core/file_io.h"
#include "gates/core/own_outputs.h"
#include "gates/git/git.h"
#include "gates/mutate/commands.h"
#include "gates/mutate/mutate_ci.h"
#include "gates/mutate/mutate_html.h"
#include "gates/mutate/mutate_merge.h"
#include "gates/mutate/mutate_report.h"
#include "gates/mutate/mutate_run.h"
#include "gates/mutate/table_commit.h"
#include "gates/prove/affected_mutants.h"

namespace pg::cli {
namespace {

// Every mutation and combo, or those `ids` names (each must exist, as for a run).
int ListCatalogs(const std::vector<Catalog>& catalogs, const std::vector<std::string>& ids) {
  if (!ids.empty()) {
    auto known = SelectJobs(catalogs, ids, 0, 1);
    if (!known.ok()) return Fail(known.status());
  }
  auto shown = [&](const std::string& id) {
    return ids.empty() || std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  for (const Catalog& catalog : catalogs) {
    for (const Mutation& m : catalog.mutations) {
      if (!shown(m.id)) continue;
      std::string tests;
      for (const Expectation& e : m.expect) tests += (tests.empty() ? "" : ",") + e.test;
      std::cout << m.id << "  " << m.file << "  expects " << tests
                << (m.note.empty() ? "" : "  # " + m.note) << "\n";
    }
    for (const Combo& c : catalog.combos) {
      if (!shown(c.id)) continue;
      std::string members;
      for (const std::string& id : c.apply) members += (members.empty() ? "" : "+") + id;
      std::cout << c.id << "  combo " << members << "  expects "
                << (c.expect_green ? "green" : "red") << "\n";
    }
  }
  return static_cast<int>(ExitCodeOf(ResultClass::kPass));
}

// What the last run in `work_dir` finished, from the report it rewrote after each mutant: a
// run killed outright still shows every mutant that ended before it died.
void ShowLastRun(const std::string& work_dir, bool color) {
  std::string path = FinishedReportPath(work_dir);
  if (!std::filesystem::exists(path)) return;
  auto doc = JsonSource::Load(path);
  auto report = doc.ok() ? MutateReportFromJson(*doc) : StatusOr<MutateReport>(doc.status());
  if (!report.ok()) {
    std::cout << "last run: " << report.status().message() << "\n";
    return;
  }
  std::string how = !report->error.empty() ? " before it stopped on an error: " + report->error
                    : report->interrupted  ? " before it was stopped or killed"
                                           : "; it ran to its end";
  std::cout << "last run: " << report->results.size() << " mutant(s) finished" << how << " ("
            << path << ")\n";
  if (!report->results.empty()) WriteMutateTable(*report, std::cout, color);
}

int Recover(const std::string& root, const MutateFlags& flags, bool color) {
  auto work_dir = MutateWorkDir(root, flags);
  if (!work_dir.ok()) return Fail(work_dir.status());
  auto recovered = RecoverMutate(root, *work_dir);
  if (!recovered.ok()) return Fail(recovered.status());
  for (const Recovered& r : *recovered) {
    if (r.gone)
      std::cout << "gone " << r.path << " (its scratch tree was removed: nothing to put back)\n";
    else
      std::cout << (r.rewritten ? "restored " : "already original ") << r.path
                << " (sha256 verified)\n";
  }
  std::cout << "recover: " << recovered->size() << " journaled file(s); scratch trees in line with "
            << root << "\n";
  ShowLastRun(*work_dir, color);
  return static_cast<int>(ExitCodeOf(ResultClass::kPass));
}

// Rewrites the generated table of each catalog's spec that this run has results for.
Status UpdateSpecs(const std::string& root, const std::vector<Catalog>& catalogs,
                   const MutateReport& report, const Verification& v) {
  for (const Catalog& c : catalogs) {
    bool ran = false;
    for (const MutantResult& r : report.results) ran = ran || r.catalog == c.path;
    if (c.spec.empty() || !ran) continue;
    std::string path = root + "/" + c.spec;
    PG_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
    std::string old = TableVerifiedAt(text), at = NextTableCommit(c, old, report, v);
    PG_ASSIGN_OR_RETURN(std::string updated, UpdateSpecTable(c.spec, text, c, report, at));
    if (updated != text) PG_RETURN_IF_ERROR(WriteFileAtomic(path, updated));
    std::cerr << "mutate: " << c.spec << ": mutation table "
              << (updated != text ? "rewritten" : "unchanged")
              << (at.empty()  ? ", verified at no commit"
                  : at == old ? ""
                              : ", verified at " + at.substr(0, 12))
              << "\n";
    if (at != v.head && !v.dirty.empty()) {
      std::string files;
      for (size_t i = 0; i < v.dirty.size() && i < 3; ++i) files += (i ? ", " : "") + v.dirty[i];
      if (v.dirty.size() > 3) files += ", +" + std::to_string(v.dirty.size() - 3) + " more";
      std::cerr << "mutate: " << c.spec << ": not marked verified at HEAD: uncommitted changes ("
                << files << ")\n";
    }
  }
  return Status();
}

// What a catalog leaves unset comes from suites.json's "commands" (when there is a suites.json),
// so a project says once how its scratch trees build and test.
Status InheritCommands(const std::string& root, std::vector<Catalog>* catalogs) {
  std::error_code ec;
  if (!std::filesystem::exists(root + "/" + kDefaultConfig, ec)) return Status();
  PG_ASSIGN_OR_RETURN(SuiteConfig config,
                      LoadSuiteConfig(root + "/" + kDefaultConfig, kDefaultConfig));
  for (Catalog& c : *catalogs) {
    ScratchCommands own{c.build_targets, c.configure, c.build_command, c.test_command,
                        c.list_command};
    own.FillFrom(config.commands);
    std::tie(c.build_targets, c.configure, c.build_command, c.test_command, c.list_command) =
        std::tie(own.build_targets, own.configure, own.build_command, own.test_command,
                 own.list_command);
  }
  return Status();
}

// --changed-since / --affected: the affected ids become the selection (within any --id given).
// Sets *none when nothing is affected.
Status SelectChanged(const std::string& root, const MutateFlags& flags, MutateOptions* o,
                     bool quiet, bool* none) {
  PG_ASSIGN_OR_RETURN(std::vector<MutantJob> all, SelectJobs(o->catalogs, o->ids, 0, 1));
  PG_ASSIGN_OR_RETURN(std::string head, git::ResolveCommit(root, "HEAD"));
  std::string since = flags.affected ? "" : flags.changed_since;
  if (!since.empty()) {
    PG_ASSIGN_OR_RETURN(since, git::ResolveCommit(root, since));
  }
  std::map<std::string, std::set<std::string>> changed;  // by base: one walk per commit
  std::map<std::string, std::string> why;
  std::vector<MutantJob> picked;
  for (const Catalog& c : o->catalogs) {
    std::vector<MutantJob> mine;
    for (const MutantJob& job : all)
      if (job.catalog->path == c.path) mine.push_back(job);
    std::string whole, base = flags.affected ? TableBase(root, c, head, &whole) : since;
    size_t before = picked.size();
    if (base.empty()) {
      for (const MutantJob& job : mine)
        why[job.id] = "its catalog runs whole: " + whole, picked.push_back(job);
    } else {
      if (!changed.count(base)) {
        PG_ASSIGN_OR_RETURN(changed[base], ChangedSince(root, base));
      }
      for (MutantJob& job : AffectedJobs(root, base, mine, changed[base], &why))
        picked.push_back(std::move(job));
    }
    if (flags.affected && !quiet) {
      std::cerr << "mutate: " << c.path << ": " << picked.size() - before << " of " << mine.size()
                << " affected"
                << (base.empty() ? " (" + whole + ")"
                                 : " since " + base.substr(0, 12) + ", its table's commit")
                << "\n";
    }
  }
  o->ids.clear();
  for (const MutantJob& job : picked) {
    o->ids.push_back(job.id);
    if (!quiet) std::cerr << "mutate: " << job.id << " affected: " << why[job.id] << "\n";
  }
  *none = picked.empty();
  if (!quiet || *none) {
    std::cerr << "mutate: " << picked.size() << " of " << all.size() << " mutants affected by "
              << (flags.affected ? "what changed since each catalog's verified commit"
                                 : std::to_string(changed[since].size()) + " files changed since " +
                                       flags.changed_since)
              << "\n";
  }
  return Status();
}

// What the run will record as verified: HEAD, and the uncommitted files that would make that
// untrue (the specs whose tables it rewrites, and its own outputs, aside).
Verification Verify(const std::string& root, const std::vector<Catalog>& catalogs,
                    const MutateFlags& flags, const CommonFlags& common) {
  std::set<std::string> aside;
  for (const Catalog& c : catalogs) aside.insert(c.spec);
  for (const std::string& f : InsideTree(root, OwnOutputFiles(ReportFiles(common))))
    aside.insert(f);
  return VerificationOf(root, aside, flags.affected && flags.ids.empty() && flags.shard == "1/1");
}

}  // namespace

std::unique_ptr<StepProgress> WireMutateProgress(const CommonFlags& common, MutateOptions* o) {
  if (common.quiet) return nullptr;
  auto progress = std::make_unique<StepProgress>(std::cerr, "mutants", LiveFd(common));
  StepProgress* p = progress.get();
  o->on_result = [p](const MutantResult& r) {
    p->OnDone("mutate: " + r.id + " " + std::string(MutantOutcomeName(r.outcome)) + "\n");
  };
  o->on_notice = [p](const std::string& text) { p->Print("mutate: " + text + "\n"); };
  o->on_selected = [p](size_t n) { p->SetTotal(n); };
  if (LiveFd(common) >= 0)
    o->on_step = [p](int worker, const std::string& step) { p->OnStep(worker, step); };
  return progress;
}

Status WriteMutateReports(const MutateReport& report, const CommonFlags& common) {
  std::string markdown = MutateReportMarkdown(report);
  if (!common.summary.empty()) PG_RETURN_IF_ERROR(WriteFileAtomic(common.summary, markdown));
  if (!common.html.empty())
    PG_RETURN_IF_ERROR(WriteFileAtomic(common.html, MutateReportHtml(report)));
  return EmitCi(common, markdown, MutateAnnotations(report), "");
}

// A work directory inside the tree that git does not ignore would be copied into each scratch
// tree, the copy included (found when a test passed one: "File name too long").
StatusOr<std::string> MutateWorkDir(const std::string& root, const MutateFlags& flags) {
  if (!flags.work_dir.empty()) {
    std::filesystem::path dir = std::filesystem::absolute(flags.work_dir).lexically_normal();
    std::filesystem::path rel =
        dir.lexically_relative(std::filesystem::absolute(root).lexically_normal());
    bool inside = !rel.empty() && *rel.begin() != "..";
    PG_ASSIGN_OR_RETURN(bool ignored, inside ? git::IsIgnored(root, rel.generic_string() + "/")
                                             : StatusOr<bool>(true));
    if (!ignored) {
      return Status::Invalid("--work-dir " + flags.work_dir +
                             ": inside the repository and not ignored by git, so every " +
                             "scratch tree would copy it into itself: add it to .gitignore or "
                             "choose a directory outside");
    }
    return dir.string();
  }
  PG_ASSIGN_OR_RETURN(git::Repo repo, git::Discover(root));
  return repo.gitdir + "proofgate/mutate";
}

int RunMutateVerb(const CommonFlags& common, const MutateFlags& flags) {
  std::string root = ProjectRoot(common);
  if (flags.recover) return Recover(root, flags, UseColor(common.color, STDOUT_FILENO));
  std::vector<std::string> paths =
      flags.catalogs.empty() ? FilesIn(root, "mutations", ".json") : flags.catalogs;
  if (paths.empty()) return Fail(Status::Invalid(root + "/mutations: no catalogs"));
  std::vector<Catalog> catalogs;
  for (const std::string& path : paths) {
    auto catalog = LoadCatalog(path, root);
    if (!catalog.ok()) return Fail(catalog.status());
    catalogs.push_back(std::move(catalog).value());
  }
  Status inherited = InheritCommands(root, &catalogs);
  if (!inherited.ok()) return Fail(inherited);
  bool by_change = !flags.changed_since.empty() || flags.affected;
  if (flags.list && !by_change) return ListCatalogs(catalogs, flags.ids);
  for (const Catalog& c : catalogs) {
    Status commands = CheckScratchCommands(root, c.configure, "the catalog " + c.path);
    if (!commands.ok()) return Fail(commands);
  }
  MutateOptions o;
  o.root = root;
  o.catalogs = std::move(catalogs);
  o.ids = flags.ids;
  if (by_change) {
    bool none = false;
    Status selected = SelectChanged(root, flags, &o, common.quiet, &none);
    if (!selected.ok()) return Fail(selected);
    // A list of what a change affects is what CI would run; an empty one is still a list.
    if (flags.list)
      return none ? static_cast<int>(ExitCodeOf(ResultClass::kPass))
                  : ListCatalogs(o.catalogs, o.ids);
    // Nothing affected checked nothing: a pass only when asked for (LESSONS.md #15).
    if (none)
      return static_cast<int>(
          ExitCodeOf(flags.allow_empty ? ResultClass::kPass : ResultClass::kUnproven));
  }
  o.jobs = flags.jobs;
  o.min_timeout_s = flags.min_timeout_s;
  o.build_timeout_s = flags.build_timeout_s;
  o.cancel_fd = InstallCancelPipe();
  Status shard = ParseShard(flags.shard, &o.shard_index, &o.shard_count);
  if (!shard.ok()) return Fail(shard);
  auto work_dir = MutateWorkDir(root, flags);
  if (!work_dir.ok()) return Fail(work_dir.status());
  o.work_dir = *work_dir;
  std::unique_ptr<StepProgress> progress = WireMutateProgress(common, &o);
  auto selected = SelectJobs(o.catalogs, o.ids, o.shard_index, o.shard_count);
  if (selected.ok() && flags.max_mutants > 0 &&
      selected->size() > static_cast<size_t>(flags.max_mutants)) {
    std::cerr << "mutate: " << selected->size() << " mutants selected, more than --max-mutants "
              << flags.max_mutants
              << ": run `proofgate mutate --affected` and commit the tables it rewrites (their "
                 "verified commit moves)\n";
    return static_cast<int>(ExitCodeOf(ResultClass::kUnproven));  // nothing ran
  }
  Verification verification = Verify(root, o.catalogs, flags, common);
  auto tree = git::WorkingTreeHash(root, InsideTree(root, OwnOutputFiles(ReportFiles(common))));
  auto report = RunMutate(o);
  if (progress) progress->Close();
  if (!report.ok()) return Fail(report.status());
  report->tree_hash = tree.ok() ? *tree : "";
  report->shard_index = o.shard_index + 1;
  report->shard_count = o.shard_count;
  if (common.json)
    std::cout << MutateReportJson(*report);
  else
    WriteMutateTable(*report, std::cout, UseColor(common.color, STDOUT_FILENO));
  std::cout.flush();
  Status written =
      common.junit.empty() ? Status() : WriteFileAtomic(common.junit, MutateReportJunit(*report));
  if (written.ok()) written = WriteMutateReports(*report, common);
  if (written.ok() && !flags.no_spec_update && !report->interrupted)
    written = UpdateSpecs(root, o.catalogs, *report, verification);
  if (!written.ok()) return Fail(written);
  if (common.verbose) {
    std::cerr << "mutate: scratch area " << o.work_dir << ": " << HumanBytes(DiskUsage(o.work_dir))
              << " (trees, builds, logs; `proofgate gc` removes it)\n";
  }
  return MutateExitCode(*report);
}

}  // namespace pg::cli
