// Cross-references of suites.json: needs and suite members name real legs, needs form no
// cycle, and choosing suites pulls in what they need.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "gates/config/json_fields.h"
#include "gates/config/json_source.h"
#include "gates/config/suite_config.h"

namespace pg {

namespace {

std::string LegPointer(const std::string& leg) { return "/legs/" + JsonSource::Escape(leg); }

std::string KnownList(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

// " (did you mean \"build\"?)" for a typo of a known leg; empty when nothing is close.
std::string DidYouMean(const std::string& wrong, const SuiteConfig& config) {
  std::vector<std::string_view> names;
  for (const Leg& leg : config.legs) names.push_back(leg.name);
  std::string best = ClosestName(wrong, names);
  return best.empty() ? "" : " (did you mean \"" + best + "\"?)";
}

Status CheckReferences(const JsonSource& source, const SuiteConfig& config) {
  for (const Leg& leg : config.legs) {
    std::set<std::string> seen;
    for (size_t i = 0; i < leg.needs.size(); ++i) {
      std::string pointer = LegPointer(leg.name) + "/needs/" + std::to_string(i);
      const std::string& need = leg.needs[i];
      if (need == leg.name) return source.ErrorAt(pointer, "leg \"" + leg.name + "\" needs itself");
      if (!config.FindLeg(need)) {
        return source.ErrorAt(pointer, "leg \"" + leg.name + "\" needs unknown leg \"" + need +
                                           "\"" + DidYouMean(need, config));
      }
      if (!seen.insert(need).second) {
        return source.ErrorAt(pointer,
                              "leg \"" + leg.name + "\" lists need \"" + need + "\" twice");
      }
    }
  }
  for (const Suite& suite : config.suites) {
    std::set<std::string> seen;
    for (size_t i = 0; i < suite.legs.size(); ++i) {
      std::string pointer = "/suites/" + JsonSource::Escape(suite.name) + "/" + std::to_string(i);
      const std::string& member = suite.legs[i];
      if (!config.FindLeg(member)) {
        return source.ErrorAt(pointer, "suite \"" + suite.name + "\" lists unknown leg \"" +
                                           member + "\"" + DidYouMean(member, config));
      }
      if (!seen.insert(member).second) {
        return source.ErrorAt(pointer,
                              "suite \"" + suite.name + "\" lists leg \"" + member + "\" twice");
      }
    }
  }
  return Status();
}

// Depth-first search; on a back edge, returns the cycle as "a -> b -> a".
Status CheckCycles(const JsonSource& source, const SuiteConfig& config) {
  enum Color { kWhite, kGrey, kBlack };
  std::map<std::string, Color> color;
  std::vector<std::string> path;
  std::function<Status(const Leg&)> visit = [&](const Leg& leg) -> Status {
    color[leg.name] = kGrey;
    path.push_back(leg.name);
    for (size_t i = 0; i < leg.needs.size(); ++i) {
      const std::string& need = leg.needs[i];
      if (color[need] == kGrey) {
        auto start = std::find(path.begin(), path.end(), need);
        std::string cycle;
        for (auto it = start; it != path.end(); ++it) cycle += *it + " -> ";
        return source.ErrorAt(LegPointer(leg.name) + "/needs/" + std::to_string(i),
                              "needs form a cycle: " + cycle + need);
      }
      if (color[need] == kWhite) PG_RETURN_IF_ERROR(visit(*config.FindLeg(need)));
    }
    path.pop_back();
    color[leg.name] = kBlack;
    return Status();
  };
  for (const Leg& leg : config.legs) {
    if (color[leg.name] == kWhite) PG_RETURN_IF_ERROR(visit(leg));
  }
  return Status();
}

}  // namespace

Status ValidateSuiteGraph(const JsonSource& source, const SuiteConfig& config) {
  PG_RETURN_IF_ERROR(CheckReferences(source, config));
  return CheckCycles(source, config);
}

const Leg* SuiteConfig::FindLeg(const std::string& name) const {
  for (const Leg& leg : legs) {
    if (leg.name == name) return &leg;
  }
  return nullptr;
}

const Suite* SuiteConfig::FindSuite(const std::string& name) const {
  for (const Suite& suite : suites) {
    if (suite.name == name) return &suite;
  }
  return nullptr;
}

StatusOr<std::vector<const Leg*>> SelectLegs(const SuiteConfig& config,
                                             const std::vector<std::string>& suites,
                                             const std::vector<std::string>& legs) {
  std::vector<const Leg*> out;
  std::set<std::string> added;
  // Needs first: a validated config has no cycles, so this terminates.
  std::function<void(const Leg&)> add = [&](const Leg& leg) {
    if (added.count(leg.name)) return;
    for (const std::string& need : leg.needs) add(*config.FindLeg(need));
    added.insert(leg.name);
    out.push_back(&leg);
  };
  std::vector<std::string> known_suites, known_legs;
  for (const Suite& s : config.suites) known_suites.push_back(s.name);
  for (const Leg& l : config.legs) known_legs.push_back(l.name);
  // A name is a suite, or else a leg (with its needs): `preflight unit` runs leg "unit" alone.
  for (const std::string& name : suites) {
    const Suite* suite = config.FindSuite(name);
    const Leg* leg = suite ? nullptr : config.FindLeg(name);
    if (!suite && !leg) {
      return Status::Invalid(config.path + ": no suite or leg named \"" + name + "\" (suites: " +
                             KnownList(known_suites) + "; legs: " + KnownList(known_legs) + ")");
    }
    if (leg) add(*leg);
    for (const std::string& member : suite ? suite->legs : std::vector<std::string>{})
      add(*config.FindLeg(member));
  }
  for (const std::string& name : legs) {
    const Leg* leg = config.FindLeg(name);
    if (!leg)
      return Status::Invalid("--leg " + name + ": " + config.path + " has no leg named \"" + name +
                             "\" (legs: " + KnownList(known_legs) + ")");
    add(*leg);
  }
  return out;
}

std::vector<const Leg*> ShardLegs(const SuiteConfig& config, const std::vector<const Leg*>& legs,
                                  int index, int count, std::vector<std::string>* assigned) {
  std::set<std::string> needed, keep;
  for (const Leg* leg : legs) needed.insert(leg->needs.begin(), leg->needs.end());
  std::function<void(const std::string&)> add = [&](const std::string& name) {
    if (!keep.insert(name).second) return;
    for (const std::string& need : config.FindLeg(name)->needs) add(need);
  };
  int dealt = 0;
  for (const Leg* leg : legs) {
    if (needed.count(leg->name)) continue;
    if (dealt++ % count != index - 1) continue;
    assigned->push_back(leg->name);
    add(leg->name);
  }
  std::vector<const Leg*> out;
  for (const Leg* leg : legs) {
    if (keep.count(leg->name)) out.push_back(leg);
  }
  return out;
}

}  // namespace pg
