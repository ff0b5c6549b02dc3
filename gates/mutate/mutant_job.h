// The unit of work a worker runs, made from a catalog's mutation or combo.
#pragma once

#include "gates/mutate/catalog.h"
#include "gates/mutate/worker.h"

namespace pg {

// One mutation as a job: its own expectations, or a generated mutant's tests.
MutantJob JobOf(const Catalog& c, const Mutation& m);
// A combo as a job: every member applied together, every member's expectations.
MutantJob JobOf(const Catalog& c, const Combo& combo);

}  // namespace pg
