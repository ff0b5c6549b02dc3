#include "gates/prove/prove.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/mutate/worker.h"
#include "gates/prove/test_bodies.h"
#include "gates/prove/whole_tests.h"
#include "gates/runner/input_glob.h"
#include "gates/runner/tree_checkout.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

Catalog CatalogOf(const ProveSettings& s) {
  Catalog c;
  c.path = "prove";
  c.build_targets = s.build_targets;
  c.configure = s.configure;
  c.build_command = s.build_command;
  c.list_command = s.list_command;
  c.test_command =
      s.test_command;  // empty: the workers' ctest default, cases mapped to their tests
  return c;
}

// The text of the base's build files, where a deleted test file may still be named.
std::string BuildFilesText(const std::string& tree) {
  std::string text;
  for (const std::string& rel :
       ExpandGlobs(tree, {"**/CMakeLists.txt", "**/*.cmake", "**/meson.build", "**/Makefile",
                          "**/Makefile.am", "**/*.mk"})) {
    auto content = ReadFile(tree + "/" + rel);
    if (content.ok()) text += *content + "\n";
  }
  return text;
}

// `mixed` (the base tree) gets HEAD's test files: added and changed ones copied, deleted ones
// removed, unless a build file of the base names them (its configure would fail without them).
Status OverlayTests(const std::string& head, const std::string& mixed,
                    const std::vector<std::string>& globs) {
  std::error_code ec;
  std::string build_files = BuildFilesText(mixed);
  for (const std::string& rel : ExpandGlobs(mixed, globs)) {
    bool named = build_files.find(fs::path(rel).filename().string()) != std::string::npos;
    if (!named && !fs::exists(fs::path(head) / rel, ec)) fs::remove(fs::path(mixed) / rel, ec);
  }
  for (const std::string& rel : ExpandGlobs(head, globs)) {
    fs::create_directories((fs::path(mixed) / rel).parent_path(), ec);
    fs::copy_file(fs::path(head) / rel, fs::path(mixed) / rel, fs::copy_options::overwrite_existing,
                  ec);
    if (ec) return Status::Io(rel + ": cannot copy into the mixed tree: " + ec.message());
  }
  return Status();
}

StatusOr<Inventory> Take(Worker& w, const Catalog& c, const std::vector<std::string>& globs) {
  Inventory inv;
  std::vector<std::string> names;
  if (c.list_command.empty() && c.test_command.empty()) {
    PG_ASSIGN_OR_RETURN(const TestMap* map, w.Tests(c));
    names = map->Names();
  } else if (c.list_command.empty()) {
    PG_ASSIGN_OR_RETURN(std::string listing, w.ListTests(c));
    PG_ASSIGN_OR_RETURN(names, ParseCtestListing(listing));
  } else {
    PG_ASSIGN_OR_RETURN(std::string listing, w.ListTests(c));
    names = ListedTestNames(listing);
  }
  inv.tests.insert(names.begin(), names.end());
  PG_ASSIGN_OR_RETURN(inv.files, TreeTestFiles(w.tree(), globs));
  for (const auto& [rel, file] : inv.files)
    inv.bodies.insert(file.bodies.begin(), file.bodies.end());
  return inv;
}

// A test's result, or for one the report lacks, the failure of what holds it: pytest reports a
// module that failed to import (a name the change adds) under the module's dotted name. Such a
// test never ran: like a test that does not compile on the base, it is unviable there, never red.
const TestResult* ResultOf(const TestRun& run, const std::string& test) {
  auto it = run.results.find(test);
  if (it != run.results.end()) return &it->second;
  std::string holder = test.substr(0, test.find('['));
  for (size_t dot = holder.rfind('.'); dot != std::string::npos && dot > 0;
       dot = holder.rfind('.', dot - 1)) {
    auto up = run.results.find(holder.substr(0, dot));
    if (up != run.results.end() && up->second.failed) return &up->second;
  }
  return nullptr;
}

std::string State(const TestRun& run, const std::string& test) {
  const TestResult* r = ResultOf(run, test);
  if (!r) return "not run";
  return r->failed ? "fail" : "pass";
}

// A failure on one line for a reader: a report's own message above its traceback (pytest's
// first line) alone, gtest's lines joined.
std::string WhyLine(const TestResult& r) {
  if (r.messages.empty()) return "";
  const std::string& first = r.messages.front();
  std::string line = first.substr(0, first.find('\n'));
  if (line == "collection failure") {  // pytest's, for a module that failed to import: its "E   "
                                       // line says why
    std::istringstream text(first);
    for (std::string l; std::getline(text, l);) {
      if (l.starts_with("E "))
        return "collection failure: " + l.substr(l.find_first_not_of(" ", 1));
    }
  }
  bool location = line.find(' ') == std::string::npos && line.find(':') != std::string::npos;
  if (line.empty() || location || first.find('\n') == std::string::npos)
    return OneLineFailure(r.messages);
  return line.size() > 240 ? line.substr(0, 240) + "..." : line;
}

TestProof Judge(const std::string& test, const std::string& before, const std::string& after,
                const std::string& unviable) {
  TestProof p{test, before, after, "", "", ""};
  if (after != "pass")
    p.verdict = "red after";
  else if (before == "unviable")
    p.verdict = "unviable", p.detail = unviable;
  else if (before == "not run")
    p.verdict = "absent before",
    p.detail = "not in the base build (is its build file in prove.tests?)";
  else
    p.verdict = before == "fail" ? "proven" : "not proven";
  if (p.verdict == "not proven") p.detail = "passes without the change: it does not prove it";
  return p;
}

}  // namespace

ExitCode ProveReport::Verdict() const {
  std::vector<ResultClass> results;
  if (fail_to_pass.empty() && !allow_empty) results.push_back(ResultClass::kUnproven);
  for (const TestProof& p : fail_to_pass)
    results.push_back(p.verdict == "proven" ? ResultClass::kPass : ResultClass::kFail);
  results.insert(results.end(), lost.size() + broken.size(), ResultClass::kFail);
  return RunExitCode(results, interrupted);
}

bool ProveReport::ok() const { return Verdict() == ExitCode::kPass; }

namespace {

// Sync, configure when new, build; a tree that cannot be built is no base for a proof.
Status Ready(Worker& w, const Catalog& c, const std::string& side, bool* interrupted,
             std::string* problem) {
  PG_RETURN_IF_ERROR(w.Prepare(c, problem, interrupted));
  if (!problem->empty() && side != "mixed") return Status::Invalid(side + " tree: " + *problem);
  return Status();
}

std::vector<std::string> Candidates(const InventoryDiff& d, const std::string& only) {
  std::vector<std::string> out = d.added;
  out.insert(out.end(), d.changed.begin(), d.changed.end());
  if (only.empty()) return out;
  std::regex re(only);
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const std::string& t) { return !std::regex_search(t, re); }),
            out.end());
  return out;
}

// Every test on base and head (pass-to-pass), the candidates on mixed and head (fail-to-pass).
Status Verdicts(const ProveOptions& o, const Catalog& c, Worker& base, Worker& head, Worker& mixed,
                const Inventory& before, const Inventory& after, ProveReport* r) {
  if (o.on_notice) o.on_notice("running every test on the base and head trees");
  PG_ASSIGN_OR_RETURN(TestRun on_base, base.RunTests(c, {}, 0));
  PG_ASSIGN_OR_RETURN(TestRun on_head, head.RunTests(c, {}, 0));
  r->interrupted = on_base.step.cancelled || on_head.step.cancelled;
  std::vector<std::string> candidates = Candidates(r->diff, o.only);
  TestRun on_mixed;
  if (!candidates.empty() && !r->interrupted) {
    if (o.on_notice) o.on_notice("building the mixed tree (base + HEAD's tests)");
    PG_RETURN_IF_ERROR(Ready(mixed, c, "mixed", &r->interrupted, &r->unviable));
    if (r->unviable.empty() && !r->interrupted) {
      // A project's own test command runs whole: pytest stops at a node id whose module cannot
      // import on the base (a test of a name the change adds), and runs none of the others.
      std::vector<std::string> selected =
          c.test_command.empty() ? candidates : std::vector<std::string>{};
      PG_ASSIGN_OR_RETURN(on_mixed, mixed.RunTests(c, selected, 0));
    }
    r->interrupted = r->interrupted || on_mixed.step.cancelled;
  }
  for (const std::string& t : candidates) {
    std::string state = r->unviable.empty() ? State(on_mixed, t) : "unviable",
                unviable = r->unviable;
    if (state == "fail" &&
        !on_mixed.results.count(t)) {  // its module failed: the test never ran there
      state = "unviable";
      unviable = "its module does not import on the base: " + WhyLine(*ResultOf(on_mixed, t));
    }
    r->fail_to_pass.push_back(Judge(t, state, State(on_head, t), unviable));
    if (state == "fail") r->fail_to_pass.back().why = WhyLine(*ResultOf(on_mixed, t));
    if (State(on_head, t) == "fail")
      r->fail_to_pass.back().detail = "fails on HEAD: " + WhyLine(*ResultOf(on_head, t));
  }
  std::set<std::string> judged(candidates.begin(), candidates.end());
  std::map<std::string, std::string> now_named;  // a renamed test keeps its duty under its new name
  for (const auto& [from, to] : r->diff.renamed) now_named[from] = to;
  for (const std::string& t : before.tests) {
    std::string name = now_named.count(t) ? now_named[t] : t;
    if (!after.tests.count(name) || State(on_base, t) != "pass" || judged.count(name))
      continue;  // a candidate is judged once
    ++r->pass_to_pass_checked;
    if (State(on_head, name) != "pass")
      r->broken.push_back(TestProof{name, "pass", State(on_head, name), "broken", "", ""});
  }
  return Status();
}

// Changed test files that define no listed case stand for the ctest tests built from them
// (gates/prove/whole_tests.h): candidates as `changed`, or already `added` when the base has none.
Status AddWholeTests(Worker& head, const Catalog& c, const Inventory& before,
                     const Inventory& after, ProveReport* r) {
  std::vector<std::string> files = FilesWithoutListedCases(ChangedTestFiles(before, after), after);
  PG_ASSIGN_OR_RETURN(WholeTests whole, WholeTestsFor(head, c, files, after));
  r->whole_tests = whole.tests;
  r->unaccounted = whole.unaccounted;
  for (const auto& [test, stands_for] : whole.tests) {
    bool listed =
        std::find(r->diff.changed.begin(), r->diff.changed.end(), test) != r->diff.changed.end();
    if (before.tests.count(test) && !listed) r->diff.changed.push_back(test);
  }
  return Status();
}

std::string FirstFew(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < 5; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > 5) out += ", … (" + std::to_string(items.size()) + ")";
  return items.empty() ? "none" : out;
}

// A proof with no candidate checked nothing: say what was looked at, so a layout proofgate
// does not understand shows up as such (LESSONS.md #15).
std::string NothingProven(const std::string& root, const std::vector<git::Commit>& commits,
                          const std::vector<std::string>& globs, const Inventory& after,
                          const ProveReport& r, const std::string& only) {
  std::set<std::string> changed;
  for (const git::Commit& c : commits) {
    auto files = git::CommitChanges(root, c.id);
    if (files.ok())
      for (const git::FileChange& f : *files) changed.insert(f.path);
  }
  std::vector<std::string> tests_changed;
  for (const std::string& f : changed) {
    if (std::any_of(globs.begin(), globs.end(),
                    [&](const std::string& g) { return GlobMatch(g, f); }))
      tests_changed.push_back(f);
  }
  std::vector<std::string> names(after.tests.begin(), after.tests.end()), cases;
  for (const auto& entry : after.bodies) cases.push_back(entry.first);
  std::string globs_text;
  for (const std::string& g : globs) globs_text += (globs_text.empty() ? "" : " ") + g;
  return "no added or changed test" + (only.empty() ? "" : " matches --tests " + only) +
         ": the range has " + std::to_string(commits.size()) +
         (commits.size() == 1 ? " commit" : " commits") + " changing " +
         std::to_string(changed.size()) + (changed.size() == 1 ? " file" : " files") +
         "; test globs [" + globs_text + "] match " + FirstFew(tests_changed) +
         "; the head build lists " + FirstFew(names) + "; test bodies found: " + FirstFew(cases) +
         (r.unaccounted.empty()
              ? ""
              : "; changed test files that define no listed case and build no ctest test: " +
                    FirstFew(r.unaccounted));
}

}  // namespace

StatusOr<ProveReport> RunProve(const ProveOptions& o) {
  ProveReport r;
  r.allow_empty = o.allow_empty;
  r.test_globs = o.settings.tests;
  PG_ASSIGN_OR_RETURN(r.base_id, git::ResolveCommit(o.root, o.base));
  PG_ASSIGN_OR_RETURN(r.head_id, git::ResolveCommit(o.root, o.head));
  PG_ASSIGN_OR_RETURN(std::vector<git::Commit> commits,
                      git::WalkRange(o.root, r.base_id + ".." + r.head_id));
  std::string src = o.work_dir + "/src";
  PG_RETURN_IF_ERROR(WriteCheckout(o.root, r.base_id, src + "/base", false));
  PG_RETURN_IF_ERROR(WriteCheckout(o.root, r.head_id, src + "/head", false));
  PG_RETURN_IF_ERROR(WriteCheckout(o.root, r.base_id, src + "/mixed", false));
  PG_RETURN_IF_ERROR(OverlayTests(src + "/head", src + "/mixed", o.settings.tests));
  Catalog c = CatalogOf(o.settings);
  Worker base(0, src + "/base", o.work_dir + "/base", nullptr, o.cancel_fd);
  Worker head(1, src + "/head", o.work_dir + "/head", nullptr, o.cancel_fd);
  Worker mixed(2, src + "/mixed", o.work_dir + "/mixed", nullptr, o.cancel_fd);
  for (auto [w, side] : {std::pair{&base, "base"}, {&head, "head"}}) {
    if (o.on_notice) o.on_notice("building the " + std::string(side) + " tree");
    std::string problem;
    PG_RETURN_IF_ERROR(Ready(*w, c, side, &r.interrupted, &problem));
    if (r.interrupted) return r;
  }
  PG_ASSIGN_OR_RETURN(Inventory before, Take(base, c, o.settings.tests));
  PG_ASSIGN_OR_RETURN(Inventory after, Take(head, c, o.settings.tests));
  r.base_count = before.tests.size(), r.head_count = after.tests.size();
  r.diff = DiffInventories(before, after);
  PG_RETURN_IF_ERROR(AddWholeTests(head, c, before, after, &r));
  std::vector<std::string> messages;
  for (const git::Commit& commit : commits) messages.push_back(commit.message);
  r.lost = LostTests(r.diff.removed, messages);
  PG_RETURN_IF_ERROR(Verdicts(o, c, base, head, mixed, before, after, &r));
  if (r.fail_to_pass.empty())
    r.nothing_proven = NothingProven(o.root, commits, o.settings.tests, after, r, o.only);
  return r;
}

}  // namespace pg
