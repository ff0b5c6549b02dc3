// The build's compilation database (compile_commands.json), read through libclang: which files
// the build compiles, and each one's command as clang's driver takes it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

// The source files (absolute paths) `build_dir`'s compile_commands.json compiles, C and C++
// only, sorted; kInvalidInput when there is no database there.
StatusOr<std::vector<std::string>> CompiledFiles(const std::string& build_dir);

// `file`'s compile commands as arguments for libclang's parser (see ClangArgs in the .cpp), one
// per configuration: commands whose preprocessor flags (-D, -U, -include, -imacros, -std, -x)
// are the same are one, the first kept; in the database's order. kInvalidInput when the
// database does not compile it.
StatusOr<std::vector<std::vector<std::string>>> ClangCommands(const std::string& build_dir,
                                                              const std::string& file);

// The same arguments with a language standard that an older libclang knows only by another name
// (`-std=c++23` as `c++2b`); none when they name no such standard.
std::optional<std::vector<std::string>> OlderStandard(std::vector<std::string> args);

// What tells a configuration apart, for a message: its preprocessor flags ("-std=c++23 -DX=1").
std::string ConfigurationOf(const std::vector<std::string>& args);

}  // namespace pg
