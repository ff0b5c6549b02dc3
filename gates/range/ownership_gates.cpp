#include "gates/range/ownership_gates.h"

#include <regex>
#include <sstream>

#include "gates/config/json_source.h"
#include "gates/core/integer_text.h"
#include "gates/git/git.h"

namespace pg {
namespace {

bool Finds(const std::string& pattern, const std::string& text) {
  return std::regex_search(text, std::regex(pattern, std::regex::ECMAScript));
}

// "#12 #40" → the numbers that are not in `issues`.
std::vector<long> Unknown(const std::string& text, const std::regex& ref,
                          const std::set<long>& issues) {
  std::vector<long> out;
  for (std::sregex_iterator it(text.begin(), text.end(), ref), end; it != end; ++it) {
    // Digits too long for a long name no issue of any tracker: unknown, as -1.
    long n = ParseInteger((*it)[(*it).size() - 1].str()).value_or(-1);
    if (!issues.count(n)) out.push_back(n);
  }
  return out;
}

struct Bullet {
  size_t line = 0;
  std::string text;
};

// Top-level "- " items under "## Owed", continuation lines joined.
std::vector<Bullet> OwedBullets(const std::string& text) {
  std::vector<Bullet> out;
  std::istringstream in(text);
  bool owed = false;
  size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.rfind("## ", 0) == 0 || line.rfind("# ", 0) == 0) owed = line == "## Owed";
    if (!owed) continue;
    if (line.rfind("- ", 0) == 0)
      out.push_back({n, line.substr(2)});
    else if (!out.empty() && !line.empty() && (line[0] == ' ' || line[0] == '\t'))
      out.back().text += " " + line;
  }
  return out;
}

std::string FirstWords(const std::string& text) {
  std::string words = text.substr(0, 48);
  return words.size() < text.size() ? words + "..." : words;
}

}  // namespace

std::vector<std::string> TrailerProblems(const std::string& message,
                                         const std::vector<TrailerRule>& rules) {
  std::vector<git::Trailer> trailers = git::MessageTrailers(message);
  std::vector<std::string> problems;
  for (const TrailerRule& rule : rules) {
    std::string because;
    bool applies = rule.when_key.empty();
    for (const git::Trailer& t : trailers) {
      if (!applies && t.key == rule.when_key && Finds(rule.when_pattern, t.value)) {
        applies = true;
        because = " (required when " + t.key + ": " + t.value + ")";
      }
    }
    if (!applies) continue;
    bool present = false;
    for (const git::Trailer& t : trailers) {
      if (t.key != rule.require) continue;
      present = true;
      if (!rule.pattern.empty() && !Finds(rule.pattern, t.value)) {
        problems.push_back("trailer \"" + t.key + ": " + t.value + "\" does not match /" +
                           rule.pattern + "/");
      }
    }
    if (!present) problems.push_back("missing trailer \"" + rule.require + "\"" + because);
  }
  return problems;
}

StatusOr<std::set<long>> ParseIssueSnapshot(const std::string& path, const std::string& text) {
  PG_ASSIGN_OR_RETURN(JsonSource src, JsonSource::Parse(path, text));
  const Json* list = &src.root();
  std::string pointer;
  if (list->is_object() && list->contains("issues"))
    list = &list->at("issues"), pointer = "/issues";
  if (!list->is_array())
    return src.ErrorAt(
        pointer, "an issue snapshot is a list of issues (objects with \"number\") or numbers");
  std::set<long> issues;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& item = (*list)[i];
    const Json* number = item.is_object() && item.contains("number") ? &item.at("number") : &item;
    if (!number->is_number_integer()) {
      return src.ErrorAt(pointer + "/" + std::to_string(i), "an issue needs an integer \"number\"");
    }
    issues.insert(number->get<long>());
  }
  return issues;
}

std::vector<std::string> OwedProblems(const std::string& spec_path, const std::string& text,
                                      const std::set<long>& issues) {
  static const std::regex kRef(R"(#(\d+))");
  static const std::regex kNoOwner(R"(no owner:\s*\S)", std::regex::icase);
  std::vector<std::string> problems;
  for (const Bullet& b : OwedBullets(text)) {
    std::string where =
        spec_path + ":" + std::to_string(b.line) + ": Owed \"" + FirstWords(b.text) + "\"";
    bool has_ref = std::regex_search(b.text, kRef);
    if (!has_ref && !std::regex_search(b.text, kNoOwner)) {
      problems.push_back(where + " has no owner (name an issue #N, or say \"no owner:\" and why)");
    }
    for (long n : Unknown(b.text, kRef, issues))
      problems.push_back(where + " names #" + std::to_string(n) + ", which is not an issue");
  }
  return problems;
}

std::vector<std::string> IssueRefProblems(const std::string& message,
                                          const std::set<long>& issues) {
  static const std::regex kRef(R"(\b(Refs|Fixes|Closes|Resolves):?\s+#(\d+))", std::regex::icase);
  std::vector<std::string> problems;
  for (long n : Unknown(message, kRef, issues))
    problems.push_back("refers to #" + std::to_string(n) + ", which is not an issue");
  return problems;
}

}  // namespace pg
