// The only file of ours that includes mbedTLS. SHA-256 is mbedTLS's rather than OpenSSL's:
// libgit2 has already loaded it, and its digest needs no set-up, where OpenSSL 3's first
// EVP_Digest loads its providers and openssl.cnf (~1.5 ms of every run, specs/supervisor.md).
#include "gates/core/sha256.h"

#include <mbedtls/sha256.h>
#include <mbedtls/version.h>

namespace pg {

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[32];
  auto input = reinterpret_cast<const unsigned char*>(data.data());
  // The digest of memory cannot fail; were it to, an empty result never equals a real
  // digest, so a comparison still fails safe.
#if MBEDTLS_VERSION_NUMBER >= 0x03000000
  if (mbedtls_sha256(input, data.size(), digest, 0) != 0) return "";
#else
  if (mbedtls_sha256_ret(input, data.size(), digest, 0) != 0) return "";
#endif
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(sizeof digest * 2);
  for (unsigned char byte : digest) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 15];
  }
  return hex;
}

}  // namespace pg
