// libgit2 without the transports proofgate never opens. Debian's libgit2 1.5 is built with
// mbedTLS and a default certificate location, and its git_libgit2_init() parses the whole CA
// bundle (~140 certificates of base64, 200 KB) and runs libssh2_init(), which makes OpenSSL
// register every algorithm it has: on every start, a third of a one-leg preflight's CPU.
// proofgate reads and writes local repositories only (no fetch, push or clone), so the
// executable defines these three functions and the dynamic linker, which searches the
// executable first, hands libgit2 ours. No certificate is ever loaded, so a TLS connection
// would fail to verify rather than pass unverified; SSH stays uninitialised. The link
// options that export them are in gates/CMakeLists.txt.
#include <atomic>

#include "gates/git/git.h"

namespace pg::git {
namespace {
std::atomic<int> refused_loads{0};
}  // namespace

int CertificateLoadsRefused() { return refused_loads.load(); }

}  // namespace pg::git

extern "C" {

struct mbedtls_x509_crt;

int mbedtls_x509_crt_parse_file(mbedtls_x509_crt*, const char*) {
  ++pg::git::refused_loads;
  return 0;
}

int mbedtls_x509_crt_parse_path(mbedtls_x509_crt*, const char*) {
  ++pg::git::refused_loads;
  return 0;
}

int libssh2_init(int) { return 0; }

}  // extern "C"
