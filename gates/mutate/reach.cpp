#include "gates/mutate/reach.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <sstream>

#include "gates/core/file_io.h"

namespace pg {

StatusOr<std::set<int>> ReadReached(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::set<int>{};
  PG_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::set<int> numbers;
  std::istringstream in(text);
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.empty()) continue;
    int n = 0;
    // from_chars stops at the string's NUL as at its end: a wrong end parses alike.
    auto [end, err] =
        std::from_chars(line.data(), line.data() + line.size(), n);  // proofgate: no-mutate
    if (err != std::errc() || end != line.data() + line.size() || n <= 0) {
      return Status::Invalid(path + ":" + std::to_string(line_number) +
                             ": not a mutant number: \"" + line + "\"");
    }
    numbers.insert(n);
  }
  return numbers;
}

namespace {

bool Reached(const ReachRecord& reach, const std::string& unit, int number) {
  auto it = reach.points.find(unit);
  return it != reach.points.end() && it->second.count(number) > 0;
}

double Seconds(const ReachRecord& reach, const std::string& unit) {
  auto it = reach.seconds.find(unit);
  return it == reach.seconds.end() ? 0 : it->second;
}

}  // namespace

std::vector<std::string> TestsReaching(const ReachRecord& reach, int number,
                                       const std::vector<std::string>& tests) {
  if (!reach.recorded || number >= kReachLimit) return tests;
  if (reach.points.count(""))
    return Reached(reach, "", number) ? tests : std::vector<std::string>{};
  std::vector<std::string> out;
  for (const std::string& t : tests) {
    if (Reached(reach, t, number)) out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
    return std::make_pair(Seconds(reach, a), a) < std::make_pair(Seconds(reach, b), b);
  });
  return out;
}

bool SplitPays(size_t cases, size_t points, double whole_s, double start_s) {
  double saved = static_cast<double>(points) * std::max(whole_s - start_s, 0.0) / 2;
  return cases > 1 && saved > static_cast<double>(cases) * start_s + whole_s;
}

double RecordedSeconds(const ReachRecord& reach,
                       const std::vector<std::vector<std::string>>& batches) {
  double sum = 0;
  for (const std::vector<std::string>& batch : batches) {
    double fastest = std::numeric_limits<double>::infinity(), own = 0;
    double whole = std::numeric_limits<double>::infinity();
    for (const std::string& t : batch) {
      own += Seconds(reach, t);
      fastest = std::min(fastest, Seconds(reach, t));
      if (auto it = reach.whole.find(t); it != reach.whole.end())
        whole = std::min(whole, it->second);
    }
    if (batch.size() > 1) own -= static_cast<double>(batch.size() - 1) * fastest;
    sum += std::min(own, whole);
  }
  return sum;
}

double ReachLimit(const ReachRecord& reach, const std::vector<std::vector<std::string>>& batches,
                  double floor_s, double ceiling_s) {
  return std::min(std::max(5 * RecordedSeconds(reach, batches), floor_s), ceiling_s);
}

void UniteReach(const ReachRecord& more, ReachRecord* into, std::vector<std::string>* wandered) {
  for (const auto& [unit, points] : more.points) {
    std::set<int>& mine = into->points[unit];
    bool known = std::find(wandered->begin(), wandered->end(), unit) != wandered->end();
    if (mine != points && !known) wandered->push_back(unit);
    mine.insert(points.begin(), points.end());
  }
  for (const auto& [unit, s] : more.seconds) into->seconds[unit] = std::max(into->seconds[unit], s);
  for (const auto& [unit, s] : more.whole) into->whole[unit] = std::max(into->whole[unit], s);
  into->split.insert(more.split.begin(), more.split.end());
  into->failed.insert(more.failed.begin(), more.failed.end());
  into->recorded = into->recorded || more.recorded;
}

}  // namespace pg
