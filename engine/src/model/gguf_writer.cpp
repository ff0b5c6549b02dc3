#include <cstring>
#include <fstream>

#include "vt/gguf.h"

namespace vt {
namespace {

class Out {
 public:
  template <typename T>
  void Put(T v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  void PutString(const std::string& s) {
    Put<uint64_t>(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void PadTo(size_t alignment) {
    while (bytes.size() % alignment) bytes.push_back(0);
  }
  std::vector<uint8_t> bytes;
};

void PutValue(Out& o, const GgufValue& v) {
  switch (v.type) {
    case GgufType::kU8: o.Put<uint8_t>(static_cast<uint8_t>(*v.AsInt())); break;
    case GgufType::kI8: o.Put<int8_t>(static_cast<int8_t>(*v.AsInt())); break;
    case GgufType::kU16: o.Put<uint16_t>(static_cast<uint16_t>(*v.AsInt())); break;
    case GgufType::kI16: o.Put<int16_t>(static_cast<int16_t>(*v.AsInt())); break;
    case GgufType::kU32: o.Put<uint32_t>(static_cast<uint32_t>(*v.AsInt())); break;
    case GgufType::kI32: o.Put<int32_t>(static_cast<int32_t>(*v.AsInt())); break;
    case GgufType::kU64: o.Put<uint64_t>(static_cast<uint64_t>(*v.AsInt())); break;
    case GgufType::kI64: o.Put<int64_t>(*v.AsInt()); break;
    case GgufType::kF32: o.Put<float>(static_cast<float>(*v.AsFloat())); break;
    case GgufType::kF64: o.Put<double>(*v.AsFloat()); break;
    case GgufType::kBool: o.Put<uint8_t>(std::get<bool>(v.v) ? 1 : 0); break;
    case GgufType::kString: o.PutString(*v.AsString()); break;
    case GgufType::kArray:
      o.Put<uint32_t>(static_cast<uint32_t>(v.elem));
      o.Put<uint64_t>(v.AsArray()->size());
      for (const GgufValue& item : *v.AsArray()) PutValue(o, item);
      break;
  }
}

}  // namespace

void GgufWriter::Set(const std::string& key, GgufValue value) {
  for (auto& [k, v] : metadata_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  metadata_.emplace_back(key, std::move(value));
}

void GgufWriter::AddTensor(const std::string& name, DType dtype, std::array<int64_t, 4> ne, int n_dims,
                           const void* data) {
  Pending p;
  p.info.name = name;
  p.info.n_dims = n_dims;
  p.info.ne = ne;
  p.info.dtype = dtype;
  p.info.ggml_type = GgmlTypeOf(dtype);
  p.info.bytes = RowBytes(dtype, ne[0]) * static_cast<size_t>(ne[1] * ne[2] * ne[3]);
  const auto* bytes = static_cast<const uint8_t*>(data);
  p.data.assign(bytes, bytes + p.info.bytes);
  tensors_.push_back(std::move(p));
}

std::vector<uint8_t> GgufWriter::Bytes() const {
  Out o;
  auto metadata = metadata_;
  if (alignment != 32) metadata.emplace_back("general.alignment", GgufValue::Uint(GgufType::kU32, alignment));
  o.Put<uint32_t>(0x46554747);
  o.Put<uint32_t>(version);
  o.Put<uint64_t>(tensors_.size());
  o.Put<uint64_t>(metadata.size());
  for (const auto& [k, v] : metadata) {
    o.PutString(k);
    o.Put<uint32_t>(static_cast<uint32_t>(v.type));
    PutValue(o, v);
  }
  uint64_t offset = 0;
  for (const Pending& t : tensors_) {
    o.PutString(t.info.name);
    o.Put<uint32_t>(static_cast<uint32_t>(t.info.n_dims));
    for (int d = 0; d < t.info.n_dims; ++d) o.Put<uint64_t>(static_cast<uint64_t>(t.info.ne[d]));
    o.Put<uint32_t>(t.info.ggml_type);
    o.Put<uint64_t>(offset);
    offset += (t.info.bytes + alignment - 1) / alignment * alignment;
  }
  o.PadTo(alignment);
  for (const Pending& t : tensors_) {
    o.bytes.insert(o.bytes.end(), t.data.begin(), t.data.end());
    o.PadTo(alignment);
  }
  return o.bytes;
}

Status GgufWriter::Write(const std::string& path) const {
  std::vector<uint8_t> bytes = Bytes();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) return Status(StatusCode::kUnavailable, path + ": write failed");
  return Status();
}

}  // namespace vt
