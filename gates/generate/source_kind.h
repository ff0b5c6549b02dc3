// What a path is to `mutate --generate`, by its name: a compiled source, a header, or a test
// framework's header (whose includer is a test's own source).
#pragma once

#include <string>

namespace pg {

bool IsSourceFile(const std::string& path);     // .c .cc .cpp .cxx .c++ .C
bool IsHeaderFile(const std::string& path);     // .h .hh .hpp .hxx .h++ .inl .ipp .tcc
bool IsTestFramework(const std::string& path);  // gtest, gmock, Catch2, doctest

}  // namespace pg
