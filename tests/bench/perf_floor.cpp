// perf_floor: reads a Google Benchmark JSON report and fails when ours/baseline throughput
// (baseline time ÷ our time, medians when repetitions ran) is below a floor. Preflight runs it
// as a `timing` leg, so a failure under foreign load is rerun when quiet, never trusted.
//   perf_floor REPORT.json --ours NAME --baseline NAME --floor 0.8
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

// real_time of `name`: the median aggregate when present, else the first plain run.
double TimeOf(const nlohmann::json& report, const std::string& name) {
  double plain = -1;
  for (const auto& b : report.value("benchmarks", nlohmann::json::array())) {
    std::string run = b.value("run_name", b.value("name", ""));
    if (run != name) continue;
    if (b.value("aggregate_name", "") == "median") return b.value("real_time", -1.0);
    if (plain < 0 && b.value("run_type", "iteration") == "iteration")
      plain = b.value("real_time", -1.0);
  }
  return plain;
}

int Usage() {
  std::fprintf(stderr, "usage: perf_floor REPORT.json --ours NAME --baseline NAME --floor RATIO\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) return Usage();
  std::string ours, baseline;
  double floor = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--ours"))
      ours = argv[i + 1];
    else if (!std::strcmp(argv[i], "--baseline"))
      baseline = argv[i + 1];
    else if (!std::strcmp(argv[i], "--floor"))
      floor = std::atof(argv[i + 1]);
    else
      return Usage();
  }
  std::ifstream in(argv[1]);
  nlohmann::json report = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded()) {
    std::fprintf(stderr, "perf_floor: %s is not a benchmark JSON report\n", argv[1]);
    return 2;
  }
  double t_ours = TimeOf(report, ours), t_base = TimeOf(report, baseline);
  if (t_ours <= 0 || t_base <= 0) {
    std::fprintf(stderr, "perf_floor: %s: no result for %s\n", argv[1],
                 t_ours <= 0 ? ours.c_str() : baseline.c_str());
    return 2;
  }
  double ratio = t_base / t_ours;
  std::printf("%s vs %s: %.3fx (floor %.2fx): %s\n", ours.c_str(), baseline.c_str(), ratio, floor,
              ratio >= floor ? "pass" : "below the floor");
  return ratio >= floor ? 0 : 1;
}
