#include "integer_range_gbnf.h"

#include <algorithm>

#include "vt/grammar.h"

namespace vttools {
namespace {

// [a, b], same number of digits, as sequences of digit literals and classes.
std::vector<std::string> SameLength(const std::string& lo, const std::string& hi) {
  if (lo.empty()) return {""};
  const std::string head_lo = vt::GbnfLiteral(lo.substr(0, 1)) + " ", head_hi = vt::GbnfLiteral(hi.substr(0, 1)) + " ";
  std::vector<std::string> out;
  const std::string rest_lo = lo.substr(1), rest_hi = hi.substr(1);
  if (lo[0] == hi[0]) {
    for (const std::string& s : SameLength(rest_lo, rest_hi)) out.push_back(head_lo + s);
    return out;
  }
  const size_t n = rest_lo.size();
  const bool zeros = rest_lo.find_first_not_of('0') == std::string::npos, nines = rest_hi.find_first_not_of('9') == std::string::npos;
  if (!zeros) {
    for (const std::string& s : SameLength(rest_lo, std::string(n, '9'))) out.push_back(head_lo + s);
  }
  const char first = static_cast<char>(lo[0] + (zeros ? 0 : 1)), last = static_cast<char>(hi[0] - (nines ? 0 : 1));
  if (first <= last) out.push_back("[" + std::string(1, first) + "-" + std::string(1, last) + "]" + (n ? " [0-9]{" + std::to_string(n) + "}" : ""));
  if (!nines) {
    for (const std::string& s : SameLength(std::string(n, '0'), rest_hi)) out.push_back(head_hi + s);
  }
  return out;
}

// 0 <= a <= b, written without leading zeros.
std::vector<std::string> UnsignedRange(int64_t a, int64_t b) {
  std::vector<std::string> out;
  const std::string sa = std::to_string(a), sb = std::to_string(b);
  for (size_t len = sa.size(); len <= sb.size(); ++len) {
    const std::string lo = len == sa.size() ? sa : "1" + std::string(len - 1, '0');
    const std::string hi = len == sb.size() ? sb : std::string(len, '9');
    for (const std::string& s : SameLength(lo, hi)) out.push_back(s);
  }
  return out;
}

}  // namespace

std::string GbnfAlternatives(const std::vector<std::string>& alts) {
  std::string out;
  for (const std::string& a : alts) out += (out.empty() ? "" : " | ") + a;
  return "(" + out + ")";
}

std::string IntegerRangeGbnf(int64_t lo, int64_t hi) {
  std::vector<std::string> alts;
  if (lo < 0) {
    for (const std::string& s : UnsignedRange(std::max<int64_t>(1, hi < 0 ? -hi : 1), -lo)) alts.push_back("\"-\" " + s);
  }
  if (hi >= 0) {
    for (const std::string& s : UnsignedRange(std::max<int64_t>(lo, 0), hi)) alts.push_back(s);
  }
  return GbnfAlternatives(alts);
}

}  // namespace vttools
