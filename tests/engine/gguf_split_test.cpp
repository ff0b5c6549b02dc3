// Split GGUF models (llama.cpp's gguf-split): NAME-00001-of-0000N.gguf opens its other parts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <memory>

#include "vt/fixture.h"
#include "vt/generate.h"
#include "vt/model.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

class GgufSplit : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vt-split-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    ASSERT_TRUE(MakeFixture(FixtureSpec{.seed = 7}).Write(Path("whole.gguf")).ok());
    auto whole = GgufFile::Open(Path("whole.gguf"));
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    whole_ = std::make_shared<const GgufFile>(std::move(whole).value());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string PartName(int no, int count) const {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-%05d.gguf", no, count);
    return Path(name);
  }

  // The whole file as `count` parts, as gguf-split writes them: the metadata in the first, the
  // tensors dealt out in order, split.* keys in each. `edit` changes a part before it is written.
  void WriteParts(int count, const std::function<void(int, GgufWriter&)>& edit = nullptr) {
    const auto& tensors = whole_->tensors();
    for (int part = 0; part < count; ++part) {
      GgufWriter w;
      if (part == 0) {
        for (const auto& [key, value] : whole_->metadata()) w.Set(key, value);
      }
      w.Set("split.no", GgufValue::Uint(GgufType::kU16, static_cast<uint64_t>(part)));
      w.Set("split.count", GgufValue::Uint(GgufType::kU16, static_cast<uint64_t>(count)));
      w.Set("split.tensors.count",
            GgufValue::Int(GgufType::kI32, static_cast<int64_t>(tensors.size())));
      for (size_t i = tensors.size() * part / count; i < tensors.size() * (part + 1) / count; ++i) {
        auto view = whole_->TensorView(tensors[i].name);
        ASSERT_TRUE(view.ok());
        w.AddTensor(tensors[i].name, tensors[i].dtype, tensors[i].ne, tensors[i].n_dims,
                    view->data);
      }
      if (edit) edit(part, w);
      ASSERT_TRUE(w.Write(PartName(part + 1, count)).ok());
    }
  }

  fs::path dir_;
  std::shared_ptr<const GgufFile> whole_;
};

std::vector<int32_t> Greedy(std::shared_ptr<const GgufFile> file) {
  auto m = Model::Load(std::move(file), Engine{MakeQueue(*GetBackend(DeviceType::kCPU))});
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return {};
  Model& model = *m.value();
  auto cache = model.NewCache(64);
  auto g = Generate(model, cache.value(), {kFixtureBos, 's', 'p', 'l', 'i', 't'}, 12);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? g->tokens : std::vector<int32_t>{};
}

TEST_F(GgufSplit, AModelInThreePartsGeneratesWhatItDoesInOne) {
  WriteParts(3);
  auto split = GgufFile::Open(PartName(1, 3));
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_EQ(split->tensors().size(), whole_->tensors().size());
  EXPECT_EQ(split->tensors().back().part, 2);
  std::vector<int32_t> want = Greedy(whole_);
  ASSERT_EQ(want.size(), 12u);
  EXPECT_EQ(Greedy(std::make_shared<const GgufFile>(std::move(split).value())), want);
}

TEST_F(GgufSplit, EachBrokenSetIsRefusedWithItsReason) {
  auto refused = [&](const std::string& path, const std::string& why) {
    auto f = GgufFile::Open(path);
    ASSERT_FALSE(f.ok()) << "opened: " << path;
    EXPECT_NE(f.status().message().find(why), std::string::npos) << f.status().message();
  };
  WriteParts(3);
  refused(PartName(2, 3),
          "this is part 2 of 3 of a split model: open the first part, " + PartName(1, 3));
  fs::remove(PartName(3, 3));
  refused(PartName(1, 3), "part 3 of 3: " + PartName(3, 3));
  WriteParts(3, [](int part, GgufWriter& w) {
    if (part == 2) w.Set("split.no", GgufValue::Uint(GgufType::kU16, 1));
  });
  refused(PartName(1, 3), "split.no is 1, but its name makes it part 3");
  WriteParts(3, [](int part, GgufWriter& w) {
    if (part == 0) w.Set("split.tensors.count", GgufValue::Int(GgufType::kI32, 5));
  });
  refused(PartName(1, 3), "split.tensors.count is 5, but the 3 parts hold");
  WriteParts(2, [&](int part, GgufWriter& w) {
    auto again = whole_->TensorView(whole_->tensors().front().name);
    const GgufTensorInfo& t = whole_->tensors().front();
    if (part == 1) w.AddTensor(t.name, t.dtype, t.ne, t.n_dims, again->data);
  });
  refused(PartName(1, 2),
          "tensor \"" + whole_->tensors().front().name + "\" is in an earlier part too");
  ASSERT_TRUE(fs::copy_file(PartName(1, 2), Path("renamed.gguf")));
  refused(Path("renamed.gguf"), "the name is not NAME-00001-of-NNNNN.gguf");
}

}  // namespace
}  // namespace vt
