#include "gates/generate/source_kind.h"

#include <filesystem>

namespace pg {
namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

bool IsSourceFile(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".c" || ext == ".cc" || ext == ".cpp" || ext == ".cxx" || ext == ".c++" ||
         ext == ".C";
}

bool IsHeaderFile(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (const char* h : {".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tcc"}) {
    if (ext == h) return true;
  }
  return false;
}

bool IsTestFramework(const std::string& path) {
  for (const char* h : {"/gtest/gtest.h", "/gmock/gmock.h", "/catch2/catch_test_macros.hpp",
                        "/catch.hpp", "/doctest.h", "/doctest/doctest.h"}) {
    if (EndsWith(path, h)) return true;
  }
  return false;
}

}  // namespace pg
