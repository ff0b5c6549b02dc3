// libclang, loaded when `mutate --generate` first needs it rather than at every proofgate
// start (see clang_loader.cpp). Call LoadLibclang before any clang_* function.
#pragma once

#include "gates/core/status.h"

namespace pg {

// dlopens libclang once and resolves every function proofgate calls; kInvalidInput naming the
// library or the missing function when that fails (the same answer on every later call).
Status LoadLibclang();

}  // namespace pg
