// The tokenizer tests' vocabularies are GGUF metadata built in memory: read them back as a file
// would be read, without touching the disk.
#pragma once

#include "vt/gguf.h"
#include "vt/tokenizer.h"

namespace vt::testing {

inline StatusOr<Tokenizer> LoadTokenizer(const GgufWriter& w) {
  auto file = GgufFile::FromBytes(w.Bytes());
  if (!file.ok()) return file.status();
  return Tokenizer::FromGguf(file.value());
}

}  // namespace vt::testing
