#include "gates/mutate/mutate_ci.h"

#include <string>

#include "gates/mutate/classify.h"

namespace pg {

std::vector<Annotation> MutateAnnotations(const MutateReport& report) {
  std::vector<Annotation> out;
  for (const MutantResult& r : report.results) {
    if (IsAsClaimed(r) || r.interrupted) continue;
    std::string outcome(MutantOutcomeName(r.outcome));
    if (r.generated) {
      if (r.outcome != MutantOutcome::kSurvived)
        continue;  // unviable and timeout say nothing of the tests
      const MutantResult::Generated& g = *r.generated;
      out.push_back(
          {"error", g.file, g.line, "surviving mutant " + r.id,
           g.op + ": " + r.change + " survived " + std::to_string(g.tests.size()) + " test(s)",
           "surviving-mutant"});
      continue;
    }
    // A combo names its files comma-separated: the first is where the reader starts.
    std::string file = r.files.substr(0, r.files.find(','));
    out.push_back({"error", file, 0, "mutant " + r.id + " " + outcome,
                   r.change + (r.detail.empty() ? "" : " — " + r.detail), "mutant-not-as-claimed"});
  }
  return out;
}

}  // namespace pg
