#include "gates/mutate/mutant_job.h"

namespace pg {

MutantJob JobOf(const Catalog& c, const Mutation& m) {
  MutantJob job;
  job.id = m.id;
  job.catalog = &c;
  job.mutations = {&m};
  job.expect = m.expect;
  job.generated = m.generated;
  job.tests = m.tests;
  return job;
}

MutantJob JobOf(const Catalog& c, const Combo& combo) {
  MutantJob job;
  job.id = combo.id;
  job.catalog = &c;
  job.combo = true;
  job.expect_green = combo.expect_green;
  for (const std::string& id : combo.apply) {
    for (const Mutation& m : c.mutations) {
      if (m.id != id) continue;
      job.mutations.push_back(&m);
      job.expect.insert(job.expect.end(), m.expect.begin(), m.expect.end());
    }
  }
  return job;
}

}  // namespace pg
