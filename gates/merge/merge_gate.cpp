#include "gates/merge/merge_gate.h"

#include "gates/config/json_source.h"
#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/runner/tree_checkout.h"

namespace pg {
namespace {

std::string Short(const std::string& id) { return id.substr(0, 12); }

// A verdict holds for its base as well as its tree: a suite may check history (`proofgate
// range` over base..HEAD), which a moved base changes even where the merged tree is the same.
std::string StaleMessage(const std::string& onto, const std::string& noted_base,
                         const std::string& noted_tree, const std::string& base,
                         const std::string& tree) {
  std::string why = noted_tree == tree
                        ? "the same merged tree " + Short(tree) + ", gated on another base"
                        : "merged tree " + Short(tree) + " was never gated";
  return "stale: the verdict was for " + onto + " at " + Short(noted_base) + ", " + onto +
         " is now " + Short(base) + " (" + why + ")";
}

}  // namespace

StatusOr<GateOntoResult> GateOnto(const std::string& onto, PreflightOptions options) {
  const std::string root = options.root;
  PG_ASSIGN_OR_RETURN(git::Repo repo, git::Discover(root));
  GateOntoResult r;
  PG_ASSIGN_OR_RETURN(r.head, git::ResolveCommit(root, "HEAD"));
  PG_ASSIGN_OR_RETURN(r.base, git::ResolveCommit(root, onto));
  PG_ASSIGN_OR_RETURN(git::Merge merge, git::MergeCommits(root, r.base, r.head));
  if (!merge.conflicts.empty()) {
    r.conflicts = merge.conflicts;
    return r;
  }
  r.merged_tree = merge.tree_id;
  // A fresh repository whose single commit is the merged tree: the runner then hashes the
  // tree it runs on exactly as it would in the user's checkout.
  std::string scratch = repo.gitdir + "proofgate/merge/" + r.merged_tree;
  PG_RETURN_IF_ERROR(WriteCheckout(root, r.merged_tree, scratch, true));
  options.root = scratch;
  if (!options.blame_base
           .empty()) {  // the merged tree's scratch repo has no history: blame in ours
    options.blame_base = r.base;
    options.blame_repo = root;
  }
  options.log_dir = options.log_dir.empty()
                        ? repo.gitdir + "proofgate/logs/merge-" + Short(r.merged_tree)
                        : options.log_dir;
  PG_ASSIGN_OR_RETURN(r.report, RunPreflight(options));
  auto suites_text = ReadFile(scratch + "/" + options.config_path);
  Json note = {{"merged_tree", r.merged_tree},
               {"base", r.base},
               {"head", r.head},
               {"suites", r.report.suites},
               {"suites_hash", suites_text.ok() ? git::HashBytes(*suites_text) : ""},
               {"verdict", std::string(ExitCodeName(r.report.exit_code))},
               {"exit_code", static_cast<int>(r.report.exit_code)}};
  PG_RETURN_IF_ERROR(git::WriteNote(root, kNotesRef, r.head, JsonText(note)));
  return r;
}

StatusOr<GateVerification> VerifyGate(const std::string& root, const std::string& onto) {
  auto head = git::ResolveCommit(root, "HEAD");
  auto base = git::ResolveCommit(root, onto);
  if (!head.ok() || !base.ok())
    return Status::Invalid((!head.ok() ? head : base).status().message());
  auto text = git::ReadNote(root, kNotesRef, *head);
  if (!text.ok())
    return GateVerification{
        ResultClass::kUnproven,
        "no gate verdict for HEAD " + Short(*head) + ": run `proofgate gate --onto " + onto + "`"};
  // A note comes from a shared remote: any shape may arrive, and none may throw.
  auto parsed = JsonSource::Parse(std::string(kNotesRef) + ":" + Short(*head), *text);
  const Json* fields = parsed.ok() ? &parsed->root() : nullptr;
  bool shaped = fields && fields->is_object() && fields->contains("base") &&
                fields->at("base").is_string() && fields->contains("merged_tree") &&
                fields->at("merged_tree").is_string();
  if (!shaped) {
    return GateVerification{ResultClass::kUnproven,
                            "the gate note on " + Short(*head) + " is not proofgate's" +
                                (parsed.ok() ? "" : " (" + parsed.status().message() + ")")};
  }
  const Json& note = *fields;
  auto merge = git::MergeCommits(root, *base, *head);
  if (!merge.ok()) return Status::Io(merge.status().message());
  if (!merge->conflicts.empty())
    return GateVerification{ResultClass::kFail, "HEAD no longer merges into " + onto + " cleanly"};
  std::string noted_base = note.at("base").get<std::string>(),
              noted_tree = note.at("merged_tree").get<std::string>();
  if (noted_base != *base || noted_tree != merge->tree_id) {
    return GateVerification{ResultClass::kStale,
                            StaleMessage(onto, noted_base, noted_tree, *base, merge->tree_id)};
  }
  bool passed = note.contains("exit_code") && note.at("exit_code").is_number_integer() &&
                note.at("exit_code").get<long>() == 0;
  if (!passed) {
    std::string verdict = note.contains("verdict") && note.at("verdict").is_string()
                              ? note.at("verdict").get<std::string>()
                              : "?";
    return GateVerification{ResultClass::kFail,
                            "the merged tree " + Short(merge->tree_id) + " was gated: " + verdict};
  }
  return GateVerification{ResultClass::kPass, "verified: merged tree " + Short(merge->tree_id) +
                                                  " onto " + Short(*base) + " passed"};
}

}  // namespace pg
