// SHA-256 of bytes in memory, as lowercase hex: how mutation restores and the journal prove
// "every byte as before".
#pragma once

#include <string>
#include <string_view>

namespace pg {

std::string Sha256Hex(std::string_view data);

}  // namespace pg
