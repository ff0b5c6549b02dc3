// The only file of ours that includes OpenSSL.
#include "core/sha256.h"

#include <openssl/evp.h>

namespace pg {

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  // EVP_Digest is one-shot and cannot fail for SHA-256 on memory short of allocation failure;
  // an empty result then never equals a real digest, so a comparison still fails safe.
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

}  // namespace pg
