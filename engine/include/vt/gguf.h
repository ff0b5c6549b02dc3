// GGUF, llama.cpp's model file: metadata key/values, tensor infos, aligned tensor data.
// The reader maps the file and hands out tensors that view the mapping (no copy).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "vt/status.h"
#include "vt/tensor.h"

namespace vt {

enum class GgufType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};

struct GgufValue {
  GgufType type = GgufType::kU32;
  GgufType elem = GgufType::kU32;  // arrays: the element type
  std::variant<uint64_t, int64_t, double, bool, std::string, std::vector<GgufValue>> v;

  static GgufValue Uint(GgufType t, uint64_t x);
  static GgufValue Int(GgufType t, int64_t x);
  static GgufValue Float(GgufType t, double x);
  static GgufValue Bool(bool x);
  static GgufValue String(std::string x);
  static GgufValue Array(GgufType elem, std::vector<GgufValue> items);

  std::optional<int64_t> AsInt() const;   // any integer type
  std::optional<double> AsFloat() const;  // any number
  const std::string* AsString() const;
  const std::vector<GgufValue>* AsArray() const;
  bool operator==(const GgufValue&) const = default;
};

struct GgufTensorInfo {
  std::string name;
  int n_dims = 0;
  std::array<int64_t, 4> ne{1, 1, 1, 1};
  uint32_t ggml_type = 0;
  DType dtype = DType::kF32;
  uint64_t offset = 0;  // from the start of the data section
  size_t bytes = 0;
  int part = 0;         // which file of a split model holds it (0: the one opened)
};

// ggml's type ids for the dtypes vt stores; nullopt for ids vt cannot size.
std::optional<DType> DTypeFromGgml(uint32_t ggml_type);
uint32_t GgmlTypeOf(DType dtype);

class GgufFile {
 public:
  // A split model's first part (NAME-00001-of-0000N.gguf, llama.cpp's gguf-split) opens the
  // other parts beside it: their tensors are listed with this file's.
  static StatusOr<GgufFile> Open(const std::string& path);
  static StatusOr<GgufFile> FromBytes(std::vector<uint8_t> bytes);

  uint32_t version() const { return version_; }
  size_t alignment() const { return alignment_; }
  const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return metadata_; }
  const GgufValue* Find(const std::string& key) const;
  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
  const GgufTensorInfo* FindTensor(const std::string& name) const;
  // A host tensor that views the file's bytes (read-only; the mapping lives while it does).
  StatusOr<Tensor> TensorView(const std::string& name) const;
  // Tells the kernel this process no longer needs the mapped pages of tensor `name` (copied
  // elsewhere at load): they stay in the page cache, and a later read maps them again from
  // the file. Nothing for bytes that are not a mapping (FromBytes) or an unknown name.
  void ReleasePages(const std::string& name) const;
  const uint8_t* data() const;  // the whole file (a split model's first part)

 private:
  struct Bytes;
  struct Part {
    std::shared_ptr<const Bytes> bytes;
    size_t data_start = 0;
  };
  static StatusOr<GgufFile> OpenOne(const std::string& path);
  Status OpenParts(const std::string& path);  // gguf_split.cpp
  std::shared_ptr<const Bytes> bytes_;
  std::vector<Part> parts_;  // a split model's parts after the first: part i is parts_[i - 1]
  uint32_t version_ = 0;
  size_t alignment_ = 32;
  size_t data_start_ = 0;
  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::vector<GgufTensorInfo> tensors_;
  friend class GgufParser;
};

class GgufWriter {
 public:
  void Set(const std::string& key, GgufValue value);
  // Copies `data` (RowBytes of the shape); `n_dims` is how many of `ne` the file records.
  void AddTensor(const std::string& name, DType dtype, std::array<int64_t, 4> ne, int n_dims, const void* data);
  std::vector<uint8_t> Bytes() const;
  Status Write(const std::string& path) const;

  uint32_t version = 3;
  size_t alignment = 32;  // also written as general.alignment when not 32

 private:
  std::vector<std::pair<std::string, GgufValue>> metadata_;
  struct Pending {
    GgufTensorInfo info;
    std::vector<uint8_t> data;
  };
  std::vector<Pending> tensors_;
};

}  // namespace vt
