// Unicode NFC, as tokenizer.json normalizers apply it (Qwen's vocabularies) before splitting.
#pragma once

#include <string>

namespace vt {

// Text that is not valid UTF-8 comes back unchanged (nothing to compose safely).
std::string Nfc(const std::string& text);

}  // namespace vt
