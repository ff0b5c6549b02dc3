// Split GGUF models: llama.cpp's gguf-split writes a model too big for one file as
// NAME-00001-of-0000N.gguf ... NAME-0000N-of-0000N.gguf, each with split.no (from 0),
// split.count and split.tensors.count; the first part holds the metadata. Opening the first
// part opens the others and lists their tensors with its own.
#include <cstdio>
#include <optional>
#include <regex>
#include <set>

#include "vt/gguf.h"

namespace vt {
namespace {

Status SplitError(const std::string& path, const std::string& why) {
  return Status(StatusCode::kInvalidArgument, path + ": " + why);
}

std::string PartPath(const std::string& prefix, int64_t no, int64_t count) {
  char tail[48];
  std::snprintf(tail, sizeof tail, "-%05lld-of-%05lld.gguf", static_cast<long long>(no), static_cast<long long>(count));
  return prefix + tail;
}

std::optional<int64_t> IntKey(const GgufFile& f, const std::string& key) {
  const GgufValue* v = f.Find(key);
  return v ? v->AsInt() : std::nullopt;
}

// A part's split.no and split.count must be what its place in the set says.
Status CheckPart(const GgufFile& f, const std::string& path, int64_t no, int64_t count) {
  std::optional<int64_t> got_no = IntKey(f, "split.no"), got_count = IntKey(f, "split.count");
  if (got_count != count) {
    return SplitError(path, "split.count is " + (got_count ? std::to_string(*got_count) : std::string("missing")) +
                                ", but the first part says " + std::to_string(count));
  }
  if (got_no != no) {
    return SplitError(path, "split.no is " + (got_no ? std::to_string(*got_no) : std::string("missing")) +
                                ", but its name makes it part " + std::to_string(no + 1) + " (split.no " +
                                std::to_string(no) + ")");
  }
  return Status();
}

}  // namespace

Status GgufFile::OpenParts(const std::string& path) {
  std::optional<int64_t> count = IntKey(*this, "split.count");
  if (!count || *count == 1) return Status();
  if (*count < 1 || *count > 99999) return SplitError(path, "split.count must be 1 to 99999, not " + std::to_string(*count));
  std::smatch m;
  static const std::regex kName(R"((.*)-(\d{5})-of-(\d{5})\.gguf)");
  if (!std::regex_match(path, m, kName)) {
    return SplitError(path, "split.count is " + std::to_string(*count) +
                                ", but the name is not NAME-00001-of-NNNNN.gguf: its other parts cannot be found");
  }
  const std::string prefix = m[1];
  std::optional<int64_t> no = IntKey(*this, "split.no");
  if (no && *no != 0) {
    return SplitError(path, "this is part " + std::to_string(*no + 1) + " of " + std::to_string(*count) +
                                " of a split model: open the first part, " + PartPath(prefix, 1, *count));
  }
  if (std::stoll(m[3]) != *count) {
    return SplitError(path, "the name says " + std::string(m[3]) + " parts, split.count " + std::to_string(*count));
  }
  VT_RETURN_IF_ERROR(CheckPart(*this, path, 0, *count));
  std::set<std::string> names;
  for (const GgufTensorInfo& t : tensors_) names.insert(t.name);
  for (int64_t i = 1; i < *count; ++i) {
    std::string part_path = PartPath(prefix, i + 1, *count);
    auto part = OpenOne(part_path);
    if (!part.ok()) return SplitError(path, "part " + std::to_string(i + 1) + " of " + std::to_string(*count) + ": " + part.status().message());
    VT_RETURN_IF_ERROR(CheckPart(part.value(), part_path, i, *count));
    for (GgufTensorInfo t : part->tensors_) {
      if (!names.insert(t.name).second) return SplitError(part_path, "tensor \"" + t.name + "\" is in an earlier part too");
      t.part = static_cast<int>(i);
      tensors_.push_back(std::move(t));
    }
    parts_.push_back(Part{part->bytes_, part->data_start_});
  }
  std::optional<int64_t> total = IntKey(*this, "split.tensors.count");
  if (total && *total != static_cast<int64_t>(tensors_.size())) {
    return SplitError(path, "split.tensors.count is " + std::to_string(*total) + ", but the " + std::to_string(*count) +
                                " parts hold " + std::to_string(tensors_.size()) + " tensors");
  }
  return Status();
}

}  // namespace vt
