// Where execvp would find a program, looked up once per name: posix_spawnp walks PATH in the
// vfork'd child while the parent waits (nine failed execve a leg on a developer's PATH).
#pragma once

#include <string>

namespace pg {

// The file `name` (no '/') names on this process's PATH, as execvp would choose it: the first
// entry holding an executable regular file. "" when `name` holds a '/', when no absolute
// entry before the match has it, or when an empty or relative entry comes first (those are
// relative to each child's cwd): the caller then leaves the search to posix_spawnp. Results
// are kept per name and PATH for the process's life, as a shell hashes commands.
std::string ResolvedProgram(const std::string& name);

// Drops `name`'s kept result (its file was gone when started).
void ForgetResolvedProgram(const std::string& name);

}  // namespace pg
