// The serving core's policy with no model: a fake executor keeps each request's tokens in the
// rows its block table names (as the KV cache keeps keys) and "samples" a hash of what it reads
// back through the table, so a request whose blocks were shared wrongly, overwritten or lost
// samples a different token from the one it gets alone.
#include "vt/serve/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>

#include "vt/serve/executor.h"
#include "vt/serve/kv_cache_manager.h"

namespace vt::serve {
namespace {

// The next token of a sequence: a function of all its tokens, as a model's greedy choice is.
int32_t NextOf(const std::vector<int32_t>& tokens) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t t : tokens) h = (h ^ static_cast<uint64_t>(t)) * 1099511628211ull;
  return static_cast<int32_t>(h % 1000);
}

class FakeExecutor : public Executor {
 public:
  FakeExecutor(int32_t n_blocks, int32_t block_size)
      : rows_(static_cast<size_t>(n_blocks * block_size), -1), bs_(block_size) {}
  std::vector<StepResult> Execute(const Plan& plan) override {
    ++steps;
    std::vector<StepResult> out(plan.entries.size());
    for (size_t i = 0; i < plan.entries.size(); ++i) {
      const Request& r = *plan.entries[i].request;
      const int64_t end = r.num_computed + plan.entries[i].num_tokens;
      tokens_per_step.push_back(plan.entries[i].num_tokens);
      for (int64_t p = r.num_computed; p < end; ++p)
        rows_[Row(r, p)] = r.tokens[static_cast<size_t>(p)];
      if (fail.count(r.id)) out[i].status = Status(StatusCode::kInternal, "this request fails");
      if (end < r.num_tokens()) continue;
      std::vector<int32_t> draft = Draft(r, plan.entries[i].num_draft);
      for (size_t j = 0; j < draft.size(); ++j)
        rows_[Row(r, end + static_cast<int64_t>(j))] = draft[j];  // as a model writes their keys
      // Each position's "sample" from what attention would read there through the table;
      // drafts kept while they are what it samples.
      for (size_t j = 0; j <= draft.size(); ++j) {
        std::vector<int32_t> seen;
        for (int64_t p = 0; p < end + static_cast<int64_t>(j); ++p)
          seen.push_back(rows_[Row(r, p)]);
        const int32_t next = NextOf(seen);
        if (j == draft.size() || draft[j] != next) {
          out[i].token = next;
          break;
        }
        out[i].accepted.push_back(next);
      }
      drafted += draft.size();
      kept += out[i].accepted.size();
    }
    return out;
  }
  // Drafts (when drafting): the request's true continuation for a random length, then a wrong
  // token.
  std::vector<int32_t> Draft(const Request& r, int64_t room) {
    std::vector<int32_t> draft, text = r.tokens;
    if (!drafting || room == 0) return draft;
    const int64_t right = static_cast<int64_t>(rng() % static_cast<uint64_t>(room + 1));
    for (int64_t j = 0; j < room; ++j) {
      text.push_back(j < right ? NextOf(text) : NextOf(text) + 1);
      draft.push_back(text.back());
    }
    return draft;
  }
  bool drafting = false;
  std::mt19937_64 rng{5};
  uint64_t drafted = 0, kept = 0;
  int steps = 0;
  std::vector<int64_t> tokens_per_step;
  std::set<RequestId> fail;

 private:
  size_t Row(const Request& r, int64_t p) const {
    return static_cast<size_t>(r.blocks[static_cast<size_t>(p / bs_)] * bs_ + p % bs_);
  }
  std::vector<int32_t> rows_;
  int32_t bs_;
};

std::unique_ptr<Request> MakeRequest(RequestId id, std::vector<int32_t> prompt, int max_tokens) {
  auto r = std::make_unique<Request>();
  r->id = id;
  r->tokens = std::move(prompt);
  r->num_prompt = r->tokens.size();
  r->max_tokens = max_tokens;
  return r;
}

// A request's whole text when it runs alone: NextOf applied max_tokens times.
std::vector<int32_t> Alone(std::vector<int32_t> tokens, int max_tokens) {
  for (int i = 0; i < max_tokens; ++i) tokens.push_back(NextOf(tokens));
  return tokens;
}

std::vector<int32_t> Prompt(size_t n, int32_t seed) {
  std::vector<int32_t> p(n);
  for (size_t i = 0; i < n; ++i)
    p[i] = static_cast<int32_t>((seed * 7919 + static_cast<int32_t>(i) * 31) % 1000);
  return p;
}

// Steps until every request ended; the finished requests by id.
std::map<RequestId, Finished> RunAll(Scheduler& s, Executor& e, int max_steps = 100000) {
  std::map<RequestId, Finished> done;
  for (int i = 0; i < max_steps && !s.empty(); ++i) {
    Plan plan = s.Schedule();
    for (Finished& f : s.Update(plan, e.Execute(plan))) done.emplace(f.request->id, std::move(f));
  }
  return done;
}

TEST(BlockPool, FreedBlocksAreReusedLeastRecentlyFreedFirstAndForgetTheirHash) {
  BlockPool pool(3, 2);
  std::vector<int32_t> a, b;
  ASSERT_TRUE(pool.Take(3, a));
  EXPECT_EQ(a, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_FALSE(pool.Take(1, b)) << "no block is free";
  const std::vector<int32_t> tokens{5, 6};
  pool.Register(1, HashBlock(0, tokens), 0, tokens);
  pool.Release({1, 0});
  EXPECT_EQ(pool.Find(HashBlock(0, tokens), 0, tokens), 1) << "a free block stays a hit";
  ASSERT_TRUE(pool.Take(1, b));
  EXPECT_EQ(b, std::vector<int32_t>{1}) << "the least recently freed block goes first";
  EXPECT_EQ(pool.Find(HashBlock(0, tokens), 0, tokens), -1)
      << "a reused block's hash no longer names it";
}

TEST(BlockPool, AHashWhoseTokensDifferIsAMiss) {
  BlockPool pool(2, 2);
  std::vector<int32_t> a;
  ASSERT_TRUE(pool.Take(1, a));
  const std::vector<int32_t> tokens{5, 6}, other{5, 7};
  pool.Register(0, HashBlock(0, tokens), 0, tokens);
  EXPECT_EQ(pool.Find(HashBlock(0, tokens), 0, other), -1);
  EXPECT_EQ(pool.Find(HashBlock(0, tokens), 9, tokens), -1) << "another parent";
  EXPECT_NE(HashBlock(0, tokens), HashBlock(HashBlock(0, tokens), tokens))
      << "a block's place in the chain is in its hash";
}

TEST(KvCacheManager, ASharedPrefixIsTakenByReferenceAndTheLastTokenIsAlwaysComputed) {
  KvCacheManager kv(16, 4, true);
  auto a = MakeRequest(1, Prompt(10, 1), 1);
  ASSERT_EQ(kv.Admit(*a, 100), 10);
  a->num_computed = 10;
  kv.Cache(*a);  // blocks 0 and 1 are full, block 2 holds 2 tokens
  auto b = MakeRequest(2, Prompt(10, 1), 1);
  b->tokens[9] = 999;  // the same first 9 tokens
  EXPECT_EQ(kv.Admit(*b, 100), 2) << "two cached blocks, then its own";
  EXPECT_EQ(b->num_computed, 8);
  EXPECT_EQ(std::vector<int32_t>(b->blocks.begin(), b->blocks.begin() + 2),
            std::vector<int32_t>(a->blocks.begin(), a->blocks.begin() + 2));
  EXPECT_NE(b->blocks[2], a->blocks[2]);
  EXPECT_EQ(kv.pool().refs(a->blocks[0]), 2);
  auto c = MakeRequest(3, Prompt(8, 1), 1);  // exactly the two full blocks
  EXPECT_EQ(kv.Admit(*c, 100), 4)
      << "the last block is recomputed so the last token's logits are fresh";
  EXPECT_EQ(kv.hits(), 8u + 4u);
  EXPECT_EQ(kv.queries(), 10u + 10u + 8u);
}

TEST(KvCacheManager, WithoutPrefixCachingNothingIsShared) {
  KvCacheManager kv(16, 4, false);
  auto a = MakeRequest(1, Prompt(10, 1), 1), b = MakeRequest(2, Prompt(10, 1), 1);
  ASSERT_EQ(kv.Admit(*a, 100), 10);
  a->num_computed = 10;
  kv.Cache(*a);
  EXPECT_EQ(kv.Admit(*b, 100), 10);
  EXPECT_EQ(kv.hits(), 0u);
}

TEST(KvCacheManager, AnAdmissionThatDoesNotFitTakesNothing) {
  KvCacheManager kv(4, 4, true);
  auto a = MakeRequest(1, Prompt(12, 1), 1), b = MakeRequest(2, Prompt(8, 2), 1);
  ASSERT_EQ(kv.Admit(*a, 100), 12);
  EXPECT_EQ(kv.Admit(*b, 100), 0);
  EXPECT_TRUE(b->blocks.empty());
  EXPECT_EQ(kv.pool().num_free(), 1);
  EXPECT_EQ(kv.Admit(*b, 4), 4) << "a first chunk that fits";
}

TEST(KvCacheManager, CachedHitsThatAreFreeAreNotCountedTwice) {
  KvCacheManager kv(4, 4, true);
  auto a = MakeRequest(1, Prompt(8, 1), 1), other = MakeRequest(2, Prompt(4, 2), 1);
  ASSERT_EQ(kv.Admit(*a, 100), 8);
  a->num_computed = 8;
  kv.Cache(*a);
  kv.Free(*a);                          // blocks 0 and 1: free, and cached
  ASSERT_EQ(kv.Admit(*other, 100), 4);  // holds one more: 3 free, 2 of them the hits
  auto b = MakeRequest(3, Prompt(8, 1), 1);
  b->tokens.resize(16, 5);  // the 2 cached blocks, then 2 blocks of its own
  EXPECT_EQ(kv.Admit(*b, 100), 0) << "2 hits and 2 new blocks need 4 of the 3 free";
  EXPECT_EQ(kv.pool().num_free(), 3);
}

TEST(Scheduler, DecodesComeFirstThenPromptChunksWithinTheBudget) {
  KvCacheManager kv(64, 4, true);
  Scheduler s({4, 10}, kv);
  ASSERT_TRUE(s.Add(MakeRequest(1, Prompt(3, 1), 5)).ok());
  Plan first = s.Schedule();
  ASSERT_EQ(first.entries.size(), 1u);
  s.Update(first, {StepResult{Status(), 7, {}}});  // request 1 decodes from now on
  ASSERT_TRUE(s.Add(MakeRequest(2, Prompt(25, 2), 5)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(3, Prompt(4, 3), 5)).ok());
  Plan plan = s.Schedule();
  ASSERT_EQ(plan.entries.size(), 2u) << "the budget ends inside request 2's prompt: 3 waits";
  EXPECT_EQ(plan.entries[0].request->id, 1u);
  EXPECT_EQ(plan.entries[0].num_tokens, 1);
  EXPECT_EQ(plan.entries[1].request->id, 2u);
  EXPECT_EQ(plan.entries[1].num_tokens, 9) << "a chunk of what the budget leaves";
  EXPECT_EQ(plan.num_tokens, 10);
  s.Update(plan, {StepResult{Status(), 7, {}}, StepResult{}});
  Plan next = s.Schedule();
  ASSERT_EQ(next.entries.size(), 2u);
  EXPECT_EQ(next.entries[1].num_tokens, 9)
      << "a running prompt's next chunk is what the budget leaves too";
}

TEST(Scheduler, ARunningLimitOfOneRunsRequestsOneAtATimeInArrivalOrder) {
  KvCacheManager kv(64, 4, true);
  Scheduler s({1, 64}, kv);
  FakeExecutor e(64, 4);
  for (RequestId id = 1; id <= 3; ++id)
    ASSERT_TRUE(s.Add(MakeRequest(id, Prompt(5, static_cast<int32_t>(id)), 3)).ok());
  std::vector<RequestId> order;
  for (int i = 0; i < 100 && !s.empty(); ++i) {
    Plan plan = s.Schedule();
    EXPECT_LE(plan.entries.size(), 1u);
    for (Finished& f : s.Update(plan, e.Execute(plan))) order.push_back(f.request->id);
  }
  EXPECT_EQ(order, (std::vector<RequestId>{1, 2, 3}));
}

TEST(Scheduler, ARequestThatDoesNotFitWaitsAndKeepsTheOnesBehindItWaiting) {
  KvCacheManager kv(8, 4, false);
  Scheduler s({8, 100}, kv);
  ASSERT_TRUE(s.Add(MakeRequest(1, Prompt(20, 1), 4)).ok());  // 5 blocks now, 6 by its end
  s.Update(s.Schedule(), {StepResult{Status(), 1, {}}});
  ASSERT_TRUE(s.Add(MakeRequest(2, Prompt(16, 2), 4)).ok());  // needs 4 blocks: 3 are free
  ASSERT_TRUE(s.Add(MakeRequest(3, Prompt(2, 3), 4)).ok());   // would fit, but comes after 2
  Plan plan = s.Schedule();
  ASSERT_EQ(plan.entries.size(), 1u);
  EXPECT_EQ(plan.entries[0].request->id, 1u);
  EXPECT_EQ(s.num_waiting(), 2u);
}

TEST(Scheduler, WhenBlocksRunOutTheLatestAdmittedIsPreemptedAndRecomputesToTheSameText) {
  KvCacheManager kv(6, 4, false);
  Scheduler s({8, 64}, kv);
  FakeExecutor e(6, 4);
  ASSERT_TRUE(s.Add(MakeRequest(1, Prompt(8, 1), 12)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(2, Prompt(8, 2), 12)).ok());
  std::vector<RequestId> preempted;
  std::map<RequestId, Finished> done;
  for (int i = 0; i < 1000 && !s.empty(); ++i) {
    Plan plan = s.Schedule();
    preempted.insert(preempted.end(), plan.preempted.begin(), plan.preempted.end());
    for (Finished& f : s.Update(plan, e.Execute(plan))) done.emplace(f.request->id, std::move(f));
  }
  ASSERT_FALSE(preempted.empty()) << "20 tokens each need 5 blocks of the 6";
  EXPECT_EQ(preempted.front(), 2u) << "the most recently admitted goes first";
  EXPECT_EQ(s.preemptions(), preempted.size());
  for (RequestId id : {1u, 2u}) {
    ASSERT_TRUE(done.count(id));
    EXPECT_EQ(done[id].reason, "length");
    EXPECT_EQ(done[id].request->tokens, Alone(Prompt(8, static_cast<int32_t>(id)), 12))
        << "request " << id;
  }
  EXPECT_EQ(kv.pool().num_free(), 6) << "every block back";
  EXPECT_EQ(kv.queries(), 16u) << "a preempted request's return is not another lookup";
}

TEST(Scheduler, APreemptedRequestResumesBeforeTheOnesThatWaitedBehindIt) {
  KvCacheManager kv(6, 4, false);
  Scheduler s({2, 64}, kv);
  FakeExecutor e(6, 4);
  ASSERT_TRUE(s.Add(MakeRequest(1, Prompt(8, 1), 12)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(2, Prompt(8, 2), 12)).ok());
  ASSERT_TRUE(s.Add(MakeRequest(3, Prompt(2, 3), 2)).ok());  // waits: two run at most
  bool preempted = false;
  std::vector<RequestId> admitted_after;
  for (int i = 0; i < 1000 && !s.empty(); ++i) {
    Plan plan = s.Schedule();
    for (const Scheduled& x : plan.entries) {
      if (preempted && x.request->num_computed == 0 && x.request->id != 1)
        admitted_after.push_back(x.request->id);
    }
    preempted = preempted || !plan.preempted.empty();
    s.Update(plan, e.Execute(plan));
  }
  ASSERT_TRUE(preempted);
  ASSERT_FALSE(admitted_after.empty());
  EXPECT_EQ(admitted_after.front(), 2u)
      << "the preempted request goes back to the front of the queue";
}

TEST(Scheduler, AloneARequestThatNeedsTheWholePoolPreemptsNothingAndFinishes) {
  KvCacheManager kv(4, 4, true);
  Scheduler s({8, 64}, kv);
  FakeExecutor e(4, 4);
  ASSERT_TRUE(s.Add(MakeRequest(1, Prompt(6, 1), 10)).ok());
  auto done = RunAll(s, e);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[1].request->tokens, Alone(Prompt(6, 1), 10));
  EXPECT_EQ(s.preemptions(), 0u);
  Status over = s.Add(MakeRequest(2, Prompt(6, 2), 11));
  EXPECT_EQ(over.code(), StatusCode::kOutOfRange);
  EXPECT_NE(over.message().find("needs 17 tokens"), std::string::npos) << over.message();
  EXPECT_NE(over.message().find("holds 16"), std::string::npos) << over.message();
}

// 200 requests of mixed lengths, at most 64 running, in a pool that holds about a quarter of
// them at once: every one answered whole with its text alone, with preemptions on the way.
TEST(Scheduler, OverloadAnswersEveryRequestWithItsTextAlone) {
  std::mt19937 rng(200);
  struct Want {
    std::vector<int32_t> prompt;
    int max_tokens;
  };
  std::vector<Want> wants;
  int64_t blocks_all = 0;
  for (int i = 0; i < 200; ++i) {
    Want w{Prompt(4 + rng() % 60, i % 7 == 0 ? 1 : i),
           static_cast<int>(1 + rng() % 40)};  // some share a prompt
    blocks_all += static_cast<int64_t>((w.prompt.size() + w.max_tokens + 15) / 16);
    wants.push_back(w);
  }
  const int32_t n_blocks = static_cast<int32_t>(blocks_all * 64 / 200 / 4);
  KvCacheManager kv(n_blocks, 16, true);
  Scheduler s({64, 256}, kv);
  FakeExecutor e(n_blocks, 16);
  for (size_t i = 0; i < wants.size(); ++i)
    ASSERT_TRUE(s.Add(MakeRequest(i, wants[i].prompt, wants[i].max_tokens)).ok());
  auto done = RunAll(s, e);
  ASSERT_EQ(done.size(), wants.size());
  for (size_t i = 0; i < wants.size(); ++i) {
    ASSERT_EQ(done[i].reason, "length") << i;
    ASSERT_EQ(done[i].request->tokens, Alone(wants[i].prompt, wants[i].max_tokens))
        << "request " << i;
  }
  EXPECT_GT(s.preemptions(), 0u);
  EXPECT_GT(kv.hits(), 0u) << "the requests that share a prompt hit the cache";
  EXPECT_EQ(kv.pool().num_free(), n_blocks);
}

// Speculation: every other request drafts up to 4 tokens (the fake drafts its true text for a
// random length, then a wrong token, into the rows past its last token); under the same
// overload every request still gets its text alone, so kept drafts stay in the cache and the
// rows of rejected ones are written over.
TEST(Scheduler, DraftedTokensKeepEveryRequestsTextAlone) {
  std::mt19937 rng(300);
  std::vector<std::pair<std::vector<int32_t>, int>> wants;
  for (int i = 0; i < 120; ++i)
    wants.push_back({Prompt(4 + rng() % 40, i % 5 == 0 ? 1 : i), static_cast<int>(1 + rng() % 40)});
  KvCacheManager kv(60, 16, true);
  Scheduler s({32, 128}, kv);
  FakeExecutor e(60, 16);
  e.drafting = true;
  for (size_t i = 0; i < wants.size(); ++i) {
    auto r = MakeRequest(i, wants[i].first, wants[i].second);
    r->num_speculative = i % 2 ? 4 : 0;
    ASSERT_TRUE(s.Add(std::move(r)).ok());
  }
  auto done = RunAll(s, e);
  ASSERT_EQ(done.size(), wants.size());
  for (size_t i = 0; i < wants.size(); ++i) {
    ASSERT_EQ(done[i].reason, "length") << i;
    ASSERT_EQ(done[i].request->tokens, Alone(wants[i].first, wants[i].second)) << "request " << i;
  }
  EXPECT_GT(e.kept, 0u);
  EXPECT_LT(e.kept, e.drafted);
  EXPECT_GT(s.preemptions(), 0u);
  EXPECT_EQ(kv.pool().num_free(), 60);
}

// A decode's room for drafts is at most what max_tokens leaves after the token it samples, and
// what the step's budget leaves; prompt chunks draft nothing.
TEST(Scheduler, DraftRoomStaysWithinMaxTokensAndTheBudget) {
  KvCacheManager kv(32, 4, true);
  Scheduler s({8, 64}, kv);
  FakeExecutor e(32, 4);
  auto a = MakeRequest(1, Prompt(5, 1), 3), b = MakeRequest(2, Prompt(3, 2), 20);
  a->num_speculative = b->num_speculative = 8;
  ASSERT_TRUE(s.Add(std::move(a)).ok());
  ASSERT_TRUE(s.Add(std::move(b)).ok());
  Plan first = s.Schedule();
  ASSERT_EQ(first.entries.size(), 2u);
  EXPECT_EQ(first.entries[0].num_draft + first.entries[1].num_draft, 0)
      << "a prompt drafts nothing";
  s.Update(first, e.Execute(first));
  Plan second = s.Schedule();  // both decode: a has generated 1 of 3
  ASSERT_EQ(second.entries.size(), 2u);
  EXPECT_EQ(second.entries[0].num_draft, 1)
      << "max_tokens 3 leaves one drafted token after the decode's";
  EXPECT_EQ(second.entries[1].num_draft, 8);
  EXPECT_EQ(second.num_tokens, 2 + 9);
  // Alone with a budget of 4 tokens: the decode's and 3 drafted.
  KvCacheManager small_kv(32, 4, true);
  Scheduler small({8, 4}, small_kv);
  auto c = MakeRequest(3, Prompt(3, 3), 20);
  c->num_speculative = 8;
  ASSERT_TRUE(small.Add(std::move(c)).ok());
  small.Update(small.Schedule(), {StepResult{Status(), 5, {}}});
  Plan decode = small.Schedule();
  ASSERT_EQ(decode.entries.size(), 1u);
  EXPECT_EQ(decode.entries[0].num_draft, 3) << "the budget leaves 3 drafted tokens";
}

// Kept drafts are computed: the step after them is a decode of the one token sampled after
// them (with room for drafts again), not a recompute of the drafts.
TEST(Scheduler, KeptDraftsAreInTheCacheAndTheNextStepDecodes) {
  KvCacheManager kv(8, 4, true);
  Scheduler s({8, 64}, kv);
  auto r = MakeRequest(1, Prompt(6, 1), 20);
  r->num_speculative = 4;
  Request* request = r.get();
  ASSERT_TRUE(s.Add(std::move(r)).ok());
  s.Update(s.Schedule(), {StepResult{Status(), 11, {}}});
  Plan decode = s.Schedule();
  EXPECT_TRUE(s.Update(decode, {StepResult{Status(), 40, {21, 22, 23}}}).empty());
  EXPECT_EQ(std::vector<int32_t>(request->tokens.begin() + 6, request->tokens.end()),
            (std::vector<int32_t>{11, 21, 22, 23, 40}));
  EXPECT_EQ(request->num_computed, 10);
  Plan next = s.Schedule();
  ASSERT_EQ(next.entries.size(), 1u);
  EXPECT_EQ(next.entries[0].num_tokens, 1);
  EXPECT_EQ(next.entries[0].num_draft, 4);
}

// A stop among kept drafts ends the request there: the tokens after it are not its own.
TEST(Scheduler, AStopAmongKeptDraftsEndsTheRequestThere) {
  KvCacheManager kv(8, 4, true);
  Scheduler s({8, 64}, kv);
  auto r = MakeRequest(1, Prompt(6, 1), 20);
  r->num_speculative = 4;
  int seen = 0;
  r->on_token = [&seen](int32_t) { return ++seen < 3; };
  ASSERT_TRUE(s.Add(std::move(r)).ok());
  Plan prompt = s.Schedule();
  EXPECT_TRUE(s.Update(prompt, {StepResult{Status(), 11, {}}}).empty());
  Plan decode = s.Schedule();
  ASSERT_EQ(decode.entries[0].num_draft, 4);
  auto done = s.Update(decode, {StepResult{Status(), 40, {21, 22, 23}}});
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].reason, "stop");
  EXPECT_EQ(
      std::vector<int32_t>(done[0].request->tokens.begin() + 6, done[0].request->tokens.end()),
      (std::vector<int32_t>{11, 21, 22}));
  EXPECT_EQ(kv.pool().num_free(), 8);
}

TEST(Scheduler, AStopEndsARequestAndFreesItsBlocksAtOnce) {
  KvCacheManager kv(8, 4, true);
  Scheduler s({8, 64}, kv);
  FakeExecutor e(8, 4);
  auto r = MakeRequest(1, Prompt(6, 1), 20);
  int seen = 0;
  r->on_token = [&seen](int32_t) { return ++seen < 3; };
  ASSERT_TRUE(s.Add(std::move(r)).ok());
  auto done = RunAll(s, e);
  EXPECT_EQ(done[1].reason, "stop");
  EXPECT_EQ(done[1].request->generated(), 3);
  EXPECT_EQ(kv.pool().num_free(), 8);
}

TEST(Scheduler, AnAbortedOrFailedRequestEndsAloneAndFreesItsBlocks) {
  KvCacheManager kv(16, 4, true);
  Scheduler s({8, 64}, kv);
  FakeExecutor e(16, 4);
  for (RequestId id = 1; id <= 3; ++id)
    ASSERT_TRUE(s.Add(MakeRequest(id, Prompt(6, static_cast<int32_t>(id)), 20)).ok());
  e.fail.insert(3);
  Plan plan = s.Schedule();
  auto failed = s.Update(plan, e.Execute(plan));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].reason, "error");
  EXPECT_EQ(failed[0].error, "this request fails");
  auto aborted = s.Abort(2);
  ASSERT_TRUE(aborted.has_value());
  EXPECT_EQ(aborted->reason, "abort");
  EXPECT_FALSE(s.Abort(2).has_value());
  auto done = RunAll(s, e);
  EXPECT_EQ(done[1].request->tokens, Alone(Prompt(6, 1), 20));
  EXPECT_EQ(kv.pool().num_free(), 16);
}

}  // namespace
}  // namespace vt::serve
