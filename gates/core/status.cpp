#include "gates/core/status.h"

namespace pg {

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(kind(), context + ": " + message_);
}

}  // namespace pg
