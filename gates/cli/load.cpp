// `proofgate load [--watch]`: the machine's load as the contention logic reads it.
#include <poll.h>

#include <iostream>
#include <set>

#include "gates/cli/cli.h"
#include "gates/contention/load_meter.h"
#include "gates/contention/snapshot.h"
#include "gates/report/writers.h"

namespace pg::cli {

// One reading per interval: two snapshots `interval_s` apart; only proofgate itself is "own".
int RunLoadVerb(const CommonFlags& common, const LoadFlags& flags) {
  int cancel = InstallCancelPipe();
  pg::RealProcSource proc;
  std::set<int> cpus = pg::AllowedCpus();
  pg::Snapshot previous = pg::TakeSnapshot(proc, {}, cpus);
  do {
    pollfd pfd{cancel, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(flags.interval_s * 1000)) > 0) break;
    pg::Snapshot now = pg::TakeSnapshot(proc, {}, cpus);
    pg::LoadMeter meter(0);
    meter.Add(previous);
    meter.Add(now);
    pg::LoadEvidence e = meter.Evidence();
    std::cout << (common.json ? pg::LoadReadingJson(e) : pg::LoadReadingText(e)) << std::flush;
    previous = now;
  } while (flags.watch);
  return 0;
}

}  // namespace pg::cli
