// A queue is where work is submitted; it carries its device so code can ask where it runs.
#pragma once

#include "vt/backend.h"

namespace vt {

struct Queue {
  Backend* backend = nullptr;
  Device device;
};

Queue MakeQueue(Backend& backend);

// The engine's execution context: `engine.q.device.type` is the engine's device.
struct Engine {
  Queue q;
};

}  // namespace vt
