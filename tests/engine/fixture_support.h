// A fixture model as an in-memory GGUF file, for the model tests on every backend.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vt/fixture.h"
#include "vt/model.h"

namespace vt::testing {

inline std::shared_ptr<const GgufFile> FixtureFile(const FixtureSpec& spec) {
  auto f = GgufFile::FromBytes(MakeFixture(spec).Bytes());
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return std::make_shared<const GgufFile>(std::move(f).value());
}

// The model of the GGUF bytes `w` would write, on `b`.
inline StatusOr<std::unique_ptr<Model>> LoadWriter(const GgufWriter& w, Backend& b) {
  auto file = GgufFile::FromBytes(w.Bytes());
  if (!file.ok()) return file.status();
  return Model::Load(std::make_shared<const GgufFile>(std::move(file).value()),
                     Engine{MakeQueue(b)});
}

// Every position's logits of `prompt` through `w`'s model on `b` (empty, and a failure, if it
// does not load or run).
inline std::vector<float> AllLogits(const GgufWriter& w, Backend& b,
                                    const std::vector<int32_t>& prompt) {
  auto m = LoadWriter(w, b);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return {};
  auto cache = m.value()->NewCache(64);
  auto out = m.value()->Forward(prompt, cache.value(), /*all_logits=*/true);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? out.value() : std::vector<float>{};
}

// `spec`'s fixture with every key "ARCH.x" renamed "TO.x" and general.architecture TO: the
// same weights, read as another architecture reads them.
inline GgufWriter Relabelled(const FixtureSpec& spec, const std::string& to) {
  auto file = GgufFile::FromBytes(MakeFixture(spec).Bytes()).value();
  GgufWriter w;
  for (const auto& [key, value] : file.metadata()) {
    if (key == "general.architecture")
      w.Set(key, GgufValue::String(to));
    else if (key.rfind(spec.arch + ".", 0) == 0)
      w.Set(to + key.substr(spec.arch.size()), value);
    else
      w.Set(key, value);
  }
  for (const GgufTensorInfo& t : file.tensors())
    w.AddTensor(t.name, t.dtype, t.ne, t.n_dims, file.TensorView(t.name).value().data);
  return w;
}

// `w` again, the same metadata, each f32 tensor's values first passed through
// `edit(name, values)` (other tensors as they are): weights changed to see that they matter.
inline GgufWriter WithF32Tensors(
    const GgufWriter& w, const std::function<void(const std::string&, std::vector<float>&)>& edit) {
  auto file = GgufFile::FromBytes(w.Bytes()).value();
  GgufWriter out;
  for (const auto& [k, v] : file.metadata()) out.Set(k, v);
  for (const GgufTensorInfo& t : file.tensors()) {
    const void* data = file.TensorView(t.name).value().data;
    std::vector<float> values;
    if (t.dtype == DType::kF32) {
      values.assign(static_cast<const float*>(data), static_cast<const float*>(data) + t.bytes / 4);
      edit(t.name, values);
      data = values.data();
    }
    out.AddTensor(t.name, t.dtype, t.ne, t.n_dims, data);
  }
  return out;
}

// `w` with its metadata key `key` set to `value` (or removed, with no value): the same weights.
inline GgufWriter WithKey(const GgufWriter& w, const std::string& key,
                          std::optional<GgufValue> value) {
  auto file = GgufFile::FromBytes(w.Bytes()).value();
  GgufWriter out;
  for (const auto& [k, v] : file.metadata()) {
    if (k != key) out.Set(k, v);
  }
  if (value) out.Set(key, *value);
  for (const GgufTensorInfo& t : file.tensors())
    out.AddTensor(t.name, t.dtype, t.ne, t.n_dims, file.TensorView(t.name).value().data);
  return out;
}

}  // namespace vt::testing
