// The commit a spec's mutation table was verified at: what `--affected` measures a change
// from, so CI runs only the mutants a landing can affect (specs/mutate.md).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "gates/mutate/catalog.h"
#include "gates/mutate/mutate_run.h"

namespace pg {

// What a run knows for marking its tables verified: the commit its tree was, the uncommitted
// files that would make "verified at HEAD" untrue, and whether the mutants it left out are
// unaffected since each table's commit.
struct Verification {
  std::string head;
  std::vector<std::string> dirty;
  bool rest_unaffected = false;  // an --affected run over every catalog's whole selection
};

// HEAD and the tree's uncommitted files, less `aside` (the specs whose tables a run rewrites,
// proofgate's own outputs). `head` stays empty outside a repository with commits.
Verification VerificationOf(const std::string& root, const std::set<std::string>& aside,
                            bool rest_unaffected);

// The commit catalog `c`'s new table records: HEAD when every row holds as claimed there, the
// table's `old` one when only some rows ran, none when a row is not as claimed.
std::string NextTableCommit(const Catalog& c, const std::string& old, const MutateReport& report,
                            const Verification& v);

// --affected: the commit `c`'s table records when HEAD's history has it; empty, with *why,
// when the catalog must run whole.
std::string TableBase(const std::string& root, const Catalog& c, const std::string& head,
                      std::string* why);

}  // namespace pg
