// vt-serve's parts without a server: client bytes made safe, threads made per connection, and
// the batch step that keeps one request's failure its own.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "batcher.h"
#include "client_text.h"
#include "connection_threads.h"
#include "fixture_support.h"
#include "vt/backend.h"
#include "vt/queue.h"

namespace vtserve {
namespace {

using namespace std::chrono_literals;

TEST(ClientText, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(ValidUtf8("a\xff"
                      "b"),
            "a" + fffd + "b");
  EXPECT_EQ(ValidUtf8("x\xc3\x28"), "x" + fffd + "(");       // a lead byte without its tail
  EXPECT_EQ(ValidUtf8("\xc0\xaf"), fffd + fffd);             // an overlong '/'
  EXPECT_EQ(ValidUtf8("\xed\xa0\x80"), fffd + fffd + fffd);  // a surrogate
  EXPECT_EQ(ValidUtf8("h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST(ClientText, ALogLineEscapesControlAndInvalidBytes) {
  EXPECT_EQ(Printable("GET /a\nb\xff\\ \xc3\xa9"), "GET /a\\x0ab\\xff\\\\ \xc3\xa9");
}

TEST(ClientText, ALogLineEscapesCharactersThatBreakOrReorderIt) {
  EXPECT_EQ(Printable("a\u2028b\u2029c\u0085d\u202ee\u2066f"),
            "a\\u{2028}b\\u{2029}c\\u{0085}d\\u{202e}e\\u{2066}f");
  EXPECT_EQ(Printable("\u00e9\u2027\u202f"),
            "\u00e9\u2027\u202f");  // their neighbours print as they are
}

TEST(ClientText, JsonDepthCountsOnlyOutsideStrings) {
  EXPECT_EQ(JsonDepth(R"({"a": "[[[[{{", "b": [[1], {"c": []}]})", 100), 4u);  // { [ { [
  EXPECT_EQ(JsonDepth(R"({"a": "\"[[[", "b": 1})", 100), 1u);
  EXPECT_EQ(JsonDepth("[]", 100), 1u);
  EXPECT_EQ(JsonDepth(std::string(1 << 20, '['), 128), 129u);  // stops once past the limit
}

TEST(ConnectionThreads, ATaskThatBlocksDoesNotHoldUpTheNext) {
  ConnectionThreads threads(64, 2, 10s);
  std::promise<void> released;
  std::shared_future<void> gate = released.get_future().share();
  std::atomic<int> blocked{0};
  for (int i = 0; i < 40; ++i)
    threads.Run([&, gate] {
      ++blocked;
      gate.wait();
    });
  std::promise<void> ran;
  threads.Run([&] { ran.set_value(); });
  // A fixed pool of 32 would never get to it while the 40 wait.
  EXPECT_EQ(ran.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_EQ(threads.threads(), 41u);
  released.set_value();
}

TEST(ConnectionThreads, PastTheMostThreadsATaskWaitsForOne) {
  ConnectionThreads threads(1, 1, 10s);
  std::promise<void> released;
  std::shared_future<void> gate = released.get_future().share();
  std::promise<void> started;
  threads.Run([&, gate] {
    started.set_value();
    gate.wait();
  });
  started.get_future().wait();
  std::atomic<bool> second{false};
  threads.Run([&] { second = true; });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(second) << "a second thread was made past the limit of 1";
  EXPECT_EQ(threads.threads(), 1u);
  released.set_value();
  threads.Shutdown();
  EXPECT_TRUE(second) << "Shutdown ran nothing that was queued";
}

TEST(ConnectionThreads, IdleThreadsBeyondTheKeptOnesEnd) {
  ConnectionThreads threads(8, 1, 20ms);
  std::promise<void> released;
  std::shared_future<void> gate = released.get_future().share();
  std::atomic<int> started{0};
  for (int i = 0; i < 4; ++i)
    threads.Run([&, gate] {
      ++started;
      gate.wait();
    });
  while (started < 4) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(threads.threads(), 4u);
  released.set_value();
  for (int i = 0; i < 3000 && threads.threads() > 1; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(threads.threads(), 1u);
}

// Steps `batcher` until every job has ended; each job's text and finish reason.
std::vector<std::pair<std::string, std::string>> RunAll(
    Batcher& batcher, const std::vector<std::shared_ptr<Job>>& jobs) {
  for (const auto& j : jobs) batcher.Admit(j);
  for (int i = 0; i < 1000 && !batcher.Empty(); ++i) batcher.Step();
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& j : jobs) {
    Job::Update u = j->Take(0ms);  // everything it emitted, and its end
    out.emplace_back(u.text, u.done ? u.finish_reason + u.error : "not done");
  }
  return out;
}

TEST(Batcher, AStepThatFailsForOneRequestFailsOnlyThatOne) {
  vt::FixtureSpec spec;
  auto file = vt::testing::FixtureFile(spec);
  auto model =
      vt::Model::Load(file, vt::Engine{vt::MakeQueue(*vt::GetBackend(vt::DeviceType::kCPU))});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto tokenizer = vt::Tokenizer::FromGguf(*file);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  vt::SamplingParams greedy;
  greedy.temperature = 0;
  greedy.ignore_eos = true;
  greedy.max_tokens = 8;
  const KvOptions kv{8, 16, true};  // 128 positions
  auto Pool = [&] { return model.value()->NewKvPool(kv.n_blocks, kv.block_size).value(); };
  const std::vector<int32_t> good = {vt::kFixtureBos, 'H', 'i'};
  ServeMetrics metrics;
  Batcher alone(*model.value(), tokenizer.value(), Pool(), kv, {1, 64}, metrics);
  auto solo = RunAll(alone, {std::make_shared<Job>(good, greedy)});
  ASSERT_EQ(solo[0].second, "length");
  // The bad prompt's id is past the model's rows (vt-serve refuses such ids before queueing;
  // this is whatever a forward may still refuse).
  Batcher both(*model.value(), tokenizer.value(), Pool(), kv, {2, 64}, metrics);
  auto run =
      RunAll(both, {std::make_shared<Job>(std::vector<int32_t>{vt::kFixtureBos, 9999}, greedy),
                    std::make_shared<Job>(good, greedy)});
  EXPECT_EQ(run[0].second.substr(0, 5), "error") << run[0].second;
  EXPECT_NE(run[0].second.find("out of range"), std::string::npos) << run[0].second;
  EXPECT_EQ(run[1], solo[0]) << "the good request did not get the text it gets alone";
}

}  // namespace
}  // namespace vtserve
