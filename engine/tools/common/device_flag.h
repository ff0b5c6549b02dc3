// --device for the tools (vt-run, vt-bench): cpu, vulkan[:N] or cuda[:N], N an index or a
// case-insensitive substring of a device name.
#pragma once

#include <memory>
#include <string>

#include "vt/backend.h"

namespace vttools {

inline constexpr const char* kDeviceHelp = "Where the model runs: cpu, vulkan[:N], cuda[:N] (N: index or name)";

// The backend for `spec`; a GPU backend opened here is owned by `opened`. An unknown device,
// or one that cannot open, is a Status saying why, starting "--device ...".
vt::StatusOr<vt::Backend*> OpenDevice(const std::string& spec, std::unique_ptr<vt::Backend>& opened);

}  // namespace vttools
