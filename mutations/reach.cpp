#include "mutations/reach.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <sstream>

#include "core/file_io.h"

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
    auto [end, err] = std::from_chars(line.data(), line.data() + line.size(), n);
    if (err != std::errc() || end != line.data() + line.size() || n <= 0) {
      return Status::Invalid(path + ":" + std::to_string(line_number) + ": not a mutant number: \"" + line + "\"");
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

std::vector<std::string> TestsReaching(const ReachRecord& reach, int number, const std::vector<std::string>& tests) {
  if (!reach.recorded || number >= kReachLimit) return tests;
  if (reach.points.count("")) return Reached(reach, "", number) ? tests : std::vector<std::string>{};
  std::vector<std::string> out;
  for (const std::string& t : tests) {
    if (Reached(reach, t, number)) out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
    return std::make_pair(Seconds(reach, a), a) < std::make_pair(Seconds(reach, b), b);
  });
  return out;
}

double RecordedSeconds(const ReachRecord& reach, const std::vector<std::vector<std::string>>& batches) {
  double sum = 0;
  for (const std::vector<std::string>& batch : batches) {
    double fastest = std::numeric_limits<double>::infinity();
    for (const std::string& t : batch) {
      sum += Seconds(reach, t);
      fastest = std::min(fastest, Seconds(reach, t));
    }
    if (batch.size() > 1) sum -= static_cast<double>(batch.size() - 1) * fastest;
  }
  return sum;
}

double ReachLimit(const ReachRecord& reach, const std::vector<std::vector<std::string>>& batches, double floor_s,
                  double ceiling_s) {
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
  into->failed.insert(more.failed.begin(), more.failed.end());
  into->recorded = into->recorded || more.recorded;
}

}  // namespace pg
