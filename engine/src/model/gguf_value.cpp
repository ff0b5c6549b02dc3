#include "vt/gguf.h"

namespace vt {

GgufValue GgufValue::Uint(GgufType t, uint64_t x) { return GgufValue{t, GgufType::kU32, x}; }
GgufValue GgufValue::Int(GgufType t, int64_t x) { return GgufValue{t, GgufType::kU32, x}; }
GgufValue GgufValue::Float(GgufType t, double x) { return GgufValue{t, GgufType::kU32, x}; }
GgufValue GgufValue::Bool(bool x) { return GgufValue{GgufType::kBool, GgufType::kU32, x}; }
GgufValue GgufValue::String(std::string x) { return GgufValue{GgufType::kString, GgufType::kU32, std::move(x)}; }
GgufValue GgufValue::Array(GgufType elem, std::vector<GgufValue> items) {
  return GgufValue{GgufType::kArray, elem, std::move(items)};
}

std::optional<int64_t> GgufValue::AsInt() const {
  if (auto* u = std::get_if<uint64_t>(&v)) return static_cast<int64_t>(*u);
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  return std::nullopt;
}

std::optional<double> GgufValue::AsFloat() const {
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto i = AsInt()) return static_cast<double>(*i);
  return std::nullopt;
}

const std::string* GgufValue::AsString() const { return std::get_if<std::string>(&v); }
const std::vector<GgufValue>* GgufValue::AsArray() const { return std::get_if<std::vector<GgufValue>>(&v); }

std::optional<DType> DTypeFromGgml(uint32_t t) {
  switch (t) {
    case 0: return DType::kF32;
    case 1: return DType::kF16;
    case 2: return DType::kQ4_0;
    case 3: return DType::kQ4_1;
    case 6: return DType::kQ5_0;
    case 7: return DType::kQ5_1;
    case 8: return DType::kQ8_0;
    case 10: return DType::kQ2_K;
    case 11: return DType::kQ3_K;
    case 12: return DType::kQ4_K;
    case 13: return DType::kQ5_K;
    case 14: return DType::kQ6_K;
    case 26: return DType::kI32;
    case 30: return DType::kBF16;
    case 39: return DType::kMXFP4;
    default: return std::nullopt;
  }
}

uint32_t GgmlTypeOf(DType d) {
  switch (d) {
    case DType::kF32: return 0;
    case DType::kF16: return 1;
    case DType::kQ4_0: return 2;
    case DType::kQ4_1: return 3;
    case DType::kQ5_0: return 6;
    case DType::kQ5_1: return 7;
    case DType::kQ8_0: return 8;
    case DType::kQ2_K: return 10;
    case DType::kQ3_K: return 11;
    case DType::kQ4_K: return 12;
    case DType::kQ5_K: return 13;
    case DType::kQ6_K: return 14;
    case DType::kI32: return 26;
    case DType::kBF16: return 30;
    case DType::kMXFP4: return 39;
    case DType::kQ4_0x16: case DType::kQ4_Kx16: case DType::kF16x16: case DType::kBF16x16: case DType::kMXFP4x16: case DType::kBF16Tiles: return UINT32_MAX;  // vt's own order, no ggml type: a reader refuses it
  }
  return 0;
}

}  // namespace vt
