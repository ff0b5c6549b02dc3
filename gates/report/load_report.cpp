#include <cstdio>

#include "gates/report/writers.h"

namespace pg {
namespace {

std::string Share(const char* name, const std::optional<double>& v) {
  char buf[64];
  if (!v)
    std::snprintf(buf, sizeof buf, "%s=absent", name);
  else
    std::snprintf(buf, sizeof buf, "%s=%.0f%%", name, *v * 100);
  return buf;
}

std::string Value(const char* name, const std::optional<double>& v) {
  char buf[64];
  if (!v)
    std::snprintf(buf, sizeof buf, "%s=absent", name);
  else
    std::snprintf(buf, sizeof buf, "%s=%.2f", name, *v);
  return buf;
}

}  // namespace

std::string LoadReadingText(const LoadEvidence& e) {
  return Share("foreign", e.foreign_mean) + " " + Share("busy", e.busy_mean) + " " +
         Share("steal", e.steal_mean) + " " + Value("loadavg", e.loadavg1) + " " +
         Value("psi_cpu", e.psi_cpu) + " " + Value("psi_io", e.psi_io) + " " +
         Value("psi_memory", e.psi_memory) + " " + Value("throttled_s", e.throttled_s) + "\n";
}

}  // namespace pg
