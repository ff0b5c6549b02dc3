#include "gates/generate/no_mutate.h"

namespace pg {

std::set<int> NoMutateLines(const std::string& text) {
  std::set<int> lines;
  int line = 1;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    size_t stop = end == std::string::npos ? text.size() : end;
    if (text.substr(start, stop - start).find(kNoMutateMarker) != std::string::npos)
      lines.insert(line);
    if (end == std::string::npos) break;
    start = end + 1;
    ++line;
  }
  return lines;
}

bool MarkedNoMutate(const Point& p, const std::set<int>& marked) {
  auto [first, last] = PointLines(p);
  auto it = marked.lower_bound(first);
  if (it != marked.end() && *it <= last) return true;
  return p.function_line > 0 &&
         (marked.count(p.function_line) || marked.count(p.function_line - 1));
}

}  // namespace pg
