// How much disk a directory takes (its files' allocated blocks, links not followed), for
// `proofgate gc` and the scratch-area report of `mutate -v`.
#pragma once

#include <cstdint>
#include <string>

namespace pg {

std::uint64_t DiskUsage(const std::string& path);

// "1.2 GiB", "340 MiB", "12 KiB", "0 B".
std::string HumanBytes(std::uint64_t bytes);

}  // namespace pg
