#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <set>

#include "vt/gguf.h"

namespace vt {

// The file's bytes: a read-only mapping, or a vector (tests, fuzzing).
struct GgufFile::Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::vector<uint8_t> owned;
  void* mapped = nullptr;
  ~Bytes() {
    if (mapped) munmap(mapped, size);
  }
};

namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" little-endian
constexpr int kMaxDepth = 4;             // nested arrays deeper than this are refused

Status Bad(size_t offset, const std::string& why) {
  return Status(StatusCode::kDataLoss, "gguf: offset " + std::to_string(offset) + ": " + why);
}

}  // namespace

// Reads the header, metadata and tensor infos with every length checked against the bytes left.
class GgufParser {
 public:
  GgufParser(const uint8_t* p, size_t size) : p_(p), size_(size) {}

  Status Parse(GgufFile& f) {
    uint32_t magic = 0;
    uint64_t n_tensors = 0, n_kv = 0;
    VT_RETURN_IF_ERROR(Read(&magic, "magic"));
    if (magic != kMagic) return Bad(0, "bad magic (not a GGUF file)");
    VT_RETURN_IF_ERROR(Read(&f.version_, "version"));
    if (f.version_ != 2 && f.version_ != 3) return Bad(4, "unsupported version " + std::to_string(f.version_));
    VT_RETURN_IF_ERROR(Read(&n_tensors, "tensor count"));
    VT_RETURN_IF_ERROR(Read(&n_kv, "metadata count"));
    // Every entry takes at least 8 bytes: counts beyond that are lies, not allocations.
    if (n_tensors > Left() / 8 || n_kv > Left() / 8) return Bad(off_, "counts exceed the file size");
    VT_RETURN_IF_ERROR(ParseMetadata(f, n_kv));
    VT_RETURN_IF_ERROR(ParseTensors(f, n_tensors));
    return Status();
  }

 private:
  size_t Left() const { return size_ - off_; }

  template <typename T>
  Status Read(T* out, const char* what) {
    if (Left() < sizeof(T)) return Bad(off_, std::string("truncated reading ") + what);
    std::memcpy(out, p_ + off_, sizeof(T));
    off_ += sizeof(T);
    return Status();
  }

  Status ReadString(std::string* out) {
    uint64_t n = 0;
    size_t at = off_;
    VT_RETURN_IF_ERROR(Read(&n, "string length"));
    if (n > Left()) return Bad(at, "string of " + std::to_string(n) + " bytes runs past the end");
    out->assign(reinterpret_cast<const char*>(p_ + off_), n);
    off_ += n;
    return Status();
  }

  Status ReadScalar(GgufType t, GgufValue* out) {
    switch (t) {
      case GgufType::kU8: return ReadAs<uint8_t, uint64_t>(t, out);
      case GgufType::kI8: return ReadAs<int8_t, int64_t>(t, out);
      case GgufType::kU16: return ReadAs<uint16_t, uint64_t>(t, out);
      case GgufType::kI16: return ReadAs<int16_t, int64_t>(t, out);
      case GgufType::kU32: return ReadAs<uint32_t, uint64_t>(t, out);
      case GgufType::kI32: return ReadAs<int32_t, int64_t>(t, out);
      case GgufType::kU64: return ReadAs<uint64_t, uint64_t>(t, out);
      case GgufType::kI64: return ReadAs<int64_t, int64_t>(t, out);
      case GgufType::kF32: return ReadAs<float, double>(t, out);
      case GgufType::kF64: return ReadAs<double, double>(t, out);
      case GgufType::kBool: {
        uint8_t b = 0;
        VT_RETURN_IF_ERROR(Read(&b, "bool"));
        if (b > 1) return Bad(off_ - 1, "bool value " + std::to_string(b));
        *out = GgufValue::Bool(b != 0);
        return Status();
      }
      case GgufType::kString: {
        std::string s;
        VT_RETURN_IF_ERROR(ReadString(&s));
        *out = GgufValue::String(std::move(s));
        return Status();
      }
      default: return Bad(off_, "unknown value type " + std::to_string(static_cast<uint32_t>(t)));
    }
  }

  template <typename Raw, typename Held>
  Status ReadAs(GgufType t, GgufValue* out) {
    Raw raw{};
    VT_RETURN_IF_ERROR(Read(&raw, "value"));
    *out = GgufValue{t, GgufType::kU32, static_cast<Held>(raw)};
    return Status();
  }

  Status ReadValue(GgufType t, GgufValue* out, int depth) {
    if (t != GgufType::kArray) return ReadScalar(t, out);
    if (depth >= kMaxDepth) return Bad(off_, "arrays nested deeper than " + std::to_string(kMaxDepth));
    uint32_t elem = 0;
    uint64_t n = 0;
    VT_RETURN_IF_ERROR(Read(&elem, "array type"));
    size_t at = off_;
    VT_RETURN_IF_ERROR(Read(&n, "array length"));
    if (n > Left()) return Bad(at, "array of " + std::to_string(n) + " items runs past the end");
    if (elem > static_cast<uint32_t>(GgufType::kF64)) return Bad(at - 4, "unknown array type " + std::to_string(elem));
    std::vector<GgufValue> items(n);
    for (auto& item : items) VT_RETURN_IF_ERROR(ReadValue(static_cast<GgufType>(elem), &item, depth + 1));
    *out = GgufValue::Array(static_cast<GgufType>(elem), std::move(items));
    return Status();
  }

  Status ParseMetadata(GgufFile& f, uint64_t n) {
    std::set<std::string> seen;
    for (uint64_t i = 0; i < n; ++i) {
      size_t at = off_;
      std::string key;
      uint32_t type = 0;
      GgufValue value;
      VT_RETURN_IF_ERROR(ReadString(&key));
      if (!seen.insert(key).second) return Bad(at, "duplicate key \"" + key + "\"");
      VT_RETURN_IF_ERROR(Read(&type, "value type"));
      VT_RETURN_IF_ERROR(ReadValue(static_cast<GgufType>(type), &value, 0));
      if (key == "general.alignment") {
        auto a = value.AsInt();
        if (value.type != GgufType::kU32 || !a || *a <= 0 || (*a & (*a - 1)) != 0) {
          return Bad(at, "general.alignment must be a u32 power of two");
        }
        f.alignment_ = static_cast<size_t>(*a);
      }
      f.metadata_.emplace_back(std::move(key), std::move(value));
    }
    return Status();
  }

  Status ParseTensorInfo(GgufTensorInfo& t) {
    size_t at = off_;
    uint32_t n_dims = 0;
    VT_RETURN_IF_ERROR(ReadString(&t.name));
    VT_RETURN_IF_ERROR(Read(&n_dims, "dimension count"));
    if (n_dims < 1 || n_dims > 4) return Bad(at, "tensor \"" + t.name + "\" has " + std::to_string(n_dims) + " dimensions");
    t.n_dims = static_cast<int>(n_dims);
    uint64_t elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t ne = 0;
      VT_RETURN_IF_ERROR(Read(&ne, "dimension"));
      if (ne == 0 || ne > (uint64_t{1} << 40) || elements > (uint64_t{1} << 42) / ne) {
        return Bad(at, "tensor \"" + t.name + "\" has an impossible shape");
      }
      elements *= ne;
      t.ne[d] = static_cast<int64_t>(ne);
    }
    VT_RETURN_IF_ERROR(Read(&t.ggml_type, "tensor type"));
    auto dtype = DTypeFromGgml(t.ggml_type);
    if (!dtype) return Bad(at, "tensor \"" + t.name + "\" has unsupported type " + std::to_string(t.ggml_type));
    t.dtype = *dtype;
    if (t.ne[0] % BlockSize(t.dtype) != 0) {
      return Bad(at, "tensor \"" + t.name + "\": " + std::string(DTypeName(t.dtype)) + " rows of " + std::to_string(t.ne[0]) +
                         " are not a multiple of its block of " + std::to_string(BlockSize(t.dtype)));
    }
    VT_RETURN_IF_ERROR(Read(&t.offset, "tensor offset"));
    t.bytes = RowBytes(t.dtype, t.ne[0]) * static_cast<size_t>(t.ne[1] * t.ne[2] * t.ne[3]);
    return Status();
  }

  Status ParseTensors(GgufFile& f, uint64_t n) {
    std::set<std::string> seen;
    for (uint64_t i = 0; i < n; ++i) {
      size_t at = off_;
      GgufTensorInfo t;
      VT_RETURN_IF_ERROR(ParseTensorInfo(t));
      if (!seen.insert(t.name).second) return Bad(at, "duplicate tensor \"" + t.name + "\"");
      f.tensors_.push_back(std::move(t));
    }
    f.data_start_ = (off_ + f.alignment_ - 1) / f.alignment_ * f.alignment_;
    for (const GgufTensorInfo& t : f.tensors_) {
      if (t.offset % f.alignment_ != 0) return Bad(f.data_start_, "tensor \"" + t.name + "\" offset is not aligned");
      if (f.data_start_ > size_ || t.offset > size_ - f.data_start_ || t.bytes > size_ - f.data_start_ - t.offset) {
        return Bad(f.data_start_ + t.offset, "tensor \"" + t.name + "\" data runs past the end of the file");
      }
    }
    return Status();
  }

  const uint8_t* p_;
  size_t size_;
  size_t off_ = 0;
};

StatusOr<GgufFile> GgufFile::FromBytes(std::vector<uint8_t> bytes) {
  auto b = std::make_shared<Bytes>();
  b->owned = std::move(bytes);
  b->data = b->owned.data();
  b->size = b->owned.size();
  GgufFile f;
  f.bytes_ = b;
  VT_RETURN_IF_ERROR(GgufParser(b->data, b->size).Parse(f));
  return f;
}

StatusOr<GgufFile> GgufFile::Open(const std::string& path) {
  auto f = OpenOne(path);
  if (!f.ok()) return f.status();
  VT_RETURN_IF_ERROR(f->OpenParts(path));
  return f;
}

StatusOr<GgufFile> GgufFile::OpenOne(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status(StatusCode::kInvalidArgument, path + ": " + std::strerror(errno));
  struct stat st {};
  fstat(fd, &st);
  auto b = std::make_shared<Bytes>();
  b->size = static_cast<size_t>(st.st_size);
  void* m = b->size ? mmap(nullptr, b->size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (m == MAP_FAILED) return Status(StatusCode::kDataLoss, path + ": empty or unmappable file");
  b->mapped = m;
  b->data = static_cast<const uint8_t*>(m);
  GgufFile f;
  f.bytes_ = b;
  Status s = GgufParser(b->data, b->size).Parse(f);
  if (!s.ok()) return Status(s.code(), path + ": " + s.message());
  return f;
}

const GgufValue* GgufFile::Find(const std::string& key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return &v;
  }
  return nullptr;
}

const GgufTensorInfo* GgufFile::FindTensor(const std::string& name) const {
  for (const GgufTensorInfo& t : tensors_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const uint8_t* GgufFile::data() const { return bytes_->data; }

void GgufFile::ReleasePages(const std::string& name) const {
  const GgufTensorInfo* info = FindTensor(name);
  if (!info) return;
  const Part part = info->part == 0 ? Part{bytes_, data_start_} : parts_[static_cast<size_t>(info->part - 1)];
  if (!part.bytes->mapped || info->bytes == 0) return;
  // Whole pages around the tensor: a neighbour's bytes in its first or last page are read
  // back from the file when next touched, so rounding outward loses nothing.
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(part.bytes->data + part.data_start + info->offset);
  const uintptr_t first = begin / page * page, last = (begin + info->bytes + page - 1) / page * page;
  madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);  // advice: a failure changes nothing
}

StatusOr<Tensor> GgufFile::TensorView(const std::string& name) const {
  const GgufTensorInfo* info = FindTensor(name);
  if (!info) return Status(StatusCode::kInvalidArgument, "gguf: no tensor \"" + name + "\"");
  Tensor t;
  t.dtype = info->dtype;
  t.ne = info->ne;
  t.nb = ContiguousStrides(t.dtype, t.ne);
  const Part part = info->part == 0 ? Part{bytes_, data_start_} : parts_[static_cast<size_t>(info->part - 1)];
  t.data = const_cast<uint8_t*>(part.bytes->data + part.data_start + info->offset);  // read-only by contract
  t.buffer = std::make_shared<Buffer>();
  t.buffer->data = t.data;
  t.buffer->bytes = info->bytes;
  t.buffer->owner = part.bytes;
  return t;
}

}  // namespace vt
