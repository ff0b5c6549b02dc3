// Speculative decoding (specs/speculative-decoding.md): the drafters, the rejection step, and
// generation that equals generation without a drafter.
#include "vt/speculative.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "fixture_support.h"
#include "vt/fixture.h"
#include "vt/serve/executor.h"
#include "vt/serve/kv_cache_manager.h"

namespace vt {
namespace {

using testing::FixtureFile;

TEST(Speculative, NgramDraftFollowsTheLongestMostRecentMatch) {
  // [1 2 3] last occurred at 4 (followed by 7 5 1), [2 3] too; the longest wins, then the latest.
  EXPECT_EQ(NgramDraft({1, 2, 3, 9, 1, 2, 3, 7, 5, 1, 2, 3}, 3, 1, 3),
            (std::vector<int32_t>{7, 5, 1}));
  // [4 2 3] occurred only at 0; [2 3] more recently at 5: the longer match is taken.
  EXPECT_EQ(NgramDraft({4, 2, 3, 8, 1, 2, 3, 9, 4, 2, 3}, 2, 1, 3), (std::vector<int32_t>{8, 1}));
  EXPECT_EQ(NgramDraft({4, 2, 3, 8, 1, 2, 3, 9, 4, 2, 3}, 2, 1, 2), (std::vector<int32_t>{9, 4}));
  EXPECT_EQ(NgramDraft({5, 6, 5}, 4, 1, 3), (std::vector<int32_t>{6, 5, 6, 5}))
      << "past the end, the match's period repeats";
  EXPECT_EQ(NgramDraft({9, 7, 7, 7}, 3, 1, 2), (std::vector<int32_t>{7, 7, 7}))
      << "a run continues";
  EXPECT_TRUE(NgramDraft({1, 2, 3, 4}, 3, 1, 3).empty()) << "nothing repeats";
  EXPECT_TRUE(NgramDraft({1, 2, 9, 1, 2}, 3, 3, 5).empty())
      << "the 2-gram repeats, but 3 is the shortest asked for";
}

std::map<int32_t, int> VerifyMany(SamplingParams p, const std::vector<double>& probs, int32_t draft,
                                  int n, int* accepted) {
  p.seed = 7;
  auto s = Sampler::Create(p);
  EXPECT_TRUE(s.ok());
  std::vector<float> logits;
  for (double q : probs) logits.push_back(static_cast<float>(std::log(q)));
  std::map<int32_t, int> counts;
  *accepted = 0;
  for (int i = 0; i < n; ++i) {
    bool ok = false;
    ++counts[s->Verify(logits, draft, &ok)];
    *accepted += ok;
    EXPECT_TRUE(!ok || counts.count(draft));
  }
  return counts;
}

// Whatever was drafted, the token that comes out is distributed as the sampler's own draw
// (within 5 standard deviations of n·p for each token), and the draft is kept at rate p(draft).
TEST(Speculative, VerifiedTokensKeepTheSamplersDistribution) {
  const std::vector<double> probs = {0.5, 0.3, 0.15, 0.05};
  const int n = 40000;
  for (int32_t draft = 0; draft < 4; ++draft) {
    int accepted = 0;
    auto counts = VerifyMany(SamplingParams{}, probs, draft, n, &accepted);
    for (int32_t id = 0; id < 4; ++id) {
      const double mean = n * probs[id], sd = std::sqrt(n * probs[id] * (1 - probs[id]));
      EXPECT_NEAR(counts[id], mean, 5 * sd) << "token " << id << " with draft " << draft;
    }
    const double rate = probs[draft];
    EXPECT_NEAR(accepted, n * rate, 5 * std::sqrt(n * rate * (1 - rate))) << "draft " << draft;
  }
}

TEST(Speculative, ADraftOutsideTheCandidatesIsNeverKept) {
  int accepted = 0;
  auto counts = VerifyMany(SamplingParams{.top_k = 2}, {0.5, 0.3, 0.15, 0.05}, 3, 20000, &accepted);
  EXPECT_EQ(accepted, 0);
  EXPECT_EQ(counts[2] + counts[3], 0);
  EXPECT_NEAR(counts[0], 20000 * 0.625, 5 * std::sqrt(20000 * 0.625 * 0.375))
      << "top-2, renormalised";
}

TEST(Speculative, GreedyVerificationKeepsOnlyTheArgmax) {
  int accepted = 0;
  auto kept = VerifyMany(SamplingParams{.temperature = 0}, {0.2, 0.5, 0.3}, 1, 10, &accepted);
  EXPECT_EQ(accepted, 10);
  auto replaced = VerifyMany(SamplingParams{.temperature = 0}, {0.2, 0.5, 0.3}, 2, 10, &accepted);
  EXPECT_EQ(accepted, 0);
  EXPECT_EQ(replaced[1], 10);
}

std::unique_ptr<Model> Load(const FixtureSpec& spec) {
  auto m = Model::Load(FixtureFile(spec), Engine{MakeQueue(*GetBackend(DeviceType::kCPU))});
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

const std::vector<int32_t> kPrompt = {kFixtureBos, 'a', 'b', 'c', 'a', 'b', 'c', 'a', 'b'};

// `n` tokens of `prompt`, with speculation by `propose` when given (greedy unless `p` says).
std::vector<int32_t> Generated(Model& m, int n, const Proposer& propose,
                               SpeculationCounts* counts = nullptr,
                               SamplingParams p = {.temperature = 0}) {
  auto cache = m.NewCache(160);
  p.seed = p.seed.value_or(3);
  auto sampler = Sampler::Create(p);
  SpeculativeConfig config;
  config.num_speculative_tokens = 4;
  auto g = propose ? GenerateSpeculative(m, cache.value(), kPrompt, n, sampler.value(), nullptr,
                                         config, propose, counts)
                   : Generate(m, cache.value(), kPrompt, n, sampler->AsTokenSampler());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? g->tokens : std::vector<int32_t>{};
}

// Verification reads the logits of an entry's last n positions: those of a whole-prompt
// Forward, bit for bit, beside another entry of the batch.
TEST(Speculative, ABatchEntryReturnsItsLastNPositionsLogits) {
  auto m = Load(FixtureSpec{});
  auto whole = m->NewCache(32).value(), a = m->NewCache(32).value(), b = m->NewCache(32).value();
  auto all = m->Forward(kPrompt, whole, /*all_logits=*/true).value();
  auto out = m->ForwardBatch({BatchEntry{{kFixtureBos, 'z'}, &a}, BatchEntry{kPrompt, &b, 3}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const size_t vocab = static_cast<size_t>(m->hparams().n_vocab);
  ASSERT_EQ(out->at(1).size(), 3 * vocab);
  EXPECT_TRUE(
      std::equal(out->at(1).begin(), out->at(1).end(), all.end() - static_cast<long>(3 * vocab)));
  auto c = m->NewCache(32).value();
  EXPECT_EQ(m->ForwardBatch({BatchEntry{{1, 2}, &c, 3}}).status().message(),
            "ForwardBatch: entry 0: n_logits 3 is not in [1, its 2 tokens]");
}

TEST(Speculative, NgramLookupGivesTheSameGreedyTokens) {
  auto m = Load(FixtureSpec{});
  SpeculationCounts counts;
  auto plain = Generated(*m, 90, nullptr);
  auto fast = Generated(
      *m, 90,
      [](const std::vector<int32_t>& t, int k) -> StatusOr<std::vector<int32_t>> {
        return NgramDraft(t, k, 1, 3);
      },
      &counts);
  EXPECT_EQ(fast, plain);
  EXPECT_GT(counts.draft_tokens, 0);
  EXPECT_GT(counts.accepted_tokens, 0) << "the fixture's greedy text ends in a run of one token";
}

TEST(Speculative, ADraftModelGivesTheSameGreedyTokensWhateverItProposes) {
  auto target = Load(FixtureSpec{});
  auto other = Load(FixtureSpec{.seed = 9});
  for (Model* draft : {target.get(), other.get()}) {
    DraftModel drafter(*draft, draft->NewCache(128).value());
    SpeculationCounts counts;
    auto fast = Generated(
        *target, 30, [&](const std::vector<int32_t>& t, int k) { return drafter.Propose(t, k); },
        &counts);
    EXPECT_EQ(fast, Generated(*target, 30, nullptr));
    if (draft == target.get())
      EXPECT_EQ(counts.accepted_tokens, counts.draft_tokens)
          << "the target drafting for itself is always right";
    else
      EXPECT_LT(counts.accepted_tokens, counts.draft_tokens)
          << "another model's guesses are not all right";
  }
}

TEST(Speculative, SampledTokensWithADrafterAreReproducibleBySeed) {
  auto m = Load(FixtureSpec{});
  Proposer ngram = [](const std::vector<int32_t>& t, int k) -> StatusOr<std::vector<int32_t>> {
    return NgramDraft(t, k, 1, 3);
  };
  SamplingParams p{.temperature = 0.8, .seed = 11};
  EXPECT_EQ(Generated(*m, 32, ngram, nullptr, p), Generated(*m, 32, ngram, nullptr, p));
}

// Over many seeds, the tokens sampled with a drafter (the target drafting for itself: its
// argmax, kept with probability p) are distributed as those sampled without one: the second
// and third tokens' distributions part by a total variation well under what keeping every
// draft would give.
TEST(Speculative, SampledTokensWithADrafterFollowTheDistributionWithoutOne) {
  auto m = Load(FixtureSpec{});
  DraftModel drafter(*m, m->NewCache(160).value());
  Proposer self = [&](const std::vector<int32_t>& t, int k) { return drafter.Propose(t, k); };
  std::map<std::vector<int32_t>, double> plain, fast;
  const int n = 3000;
  for (int seed = 0; seed < n; ++seed) {
    SamplingParams p{.temperature = 1.0, .top_k = 3, .seed = static_cast<uint64_t>(seed)};
    auto a = Generated(*m, 3, nullptr, nullptr, p), b = Generated(*m, 3, self, nullptr, p);
    plain[{a.begin() + 1, a.end()}] += 1.0 / n;
    fast[{b.begin() + 1, b.end()}] += 1.0 / n;
  }
  double tv = 0;
  for (const auto& [k, v] : plain) tv += std::abs(v - (fast.count(k) ? fast[k] : 0.0)) / 2;
  for (const auto& [k, v] : fast) tv += plain.count(k) ? 0.0 : v / 2;
  EXPECT_LT(tv, 0.06) << plain.size() << " outcomes without a drafter, " << fast.size() << " with";
}

// The draft's cache is rolled back to what it shares with the sequence: proposals after a
// rejected draft equal those of a fresh drafter.
TEST(Speculative, ADraftModelRollsBackToTheSharedPrefix) {
  auto m = Load(FixtureSpec{.seed = 5});
  DraftModel used(*m, m->NewCache(64).value());
  std::vector<int32_t> a = {kFixtureBos, 'x', 'y', 'z'}, b = {kFixtureBos, 'x', 'q'};
  ASSERT_TRUE(used.Propose(a, 4).ok());
  DraftModel fresh(*m, m->NewCache(64).value());
  EXPECT_EQ(used.Propose(b, 4).value(), fresh.Propose(b, 4).value());
  EXPECT_EQ(used.Propose(b, 3).value().size(), 3u);
}

TEST(Speculative, ADraftWhoseVocabularyDiffersIsRefusedNamingTheToken) {
  auto target = Tokenizer::FromGguf(*FixtureFile(FixtureSpec{}));
  auto same = Tokenizer::FromGguf(*FixtureFile(FixtureSpec{.seed = 4}));
  auto text = Tokenizer::FromGguf(*FixtureFile(FixtureSpec{.text_vocab = true}));
  ASSERT_TRUE(target.ok() && same.ok() && text.ok());
  EXPECT_TRUE(CheckDraftVocabulary(target.value(), same.value()).ok());
  const std::string message = CheckDraftVocabulary(target.value(), text.value()).message();
  EXPECT_NE(message.find("differs from the target's at token "), std::string::npos) << message;
}

// Drafts each request's known text for two tokens, then a token it does not hold.
class ScriptedDrafter : public serve::Drafter {
 public:
  explicit ScriptedDrafter(const std::map<serve::RequestId, std::vector<int32_t>>& texts)
      : texts_(texts) {}
  std::vector<std::vector<int32_t>> Propose(const serve::Plan& plan) override {
    std::vector<std::vector<int32_t>> out(plan.entries.size());
    for (size_t i = 0; i < out.size(); ++i) {
      const serve::Request& r = *plan.entries[i].request;
      const std::vector<int32_t>& text = texts_.at(r.id);
      for (int64_t j = 0; j < plan.entries[i].num_draft; ++j) {
        const size_t at = r.tokens.size() + static_cast<size_t>(j);
        out[i].push_back(j < 2 && at < text.size() ? text[at]
                                                   : (at < text.size() ? text[at] + 1 : 1) % 256);
      }
    }
    return out;
  }

 private:
  const std::map<serve::RequestId, std::vector<int32_t>>& texts_;
};

// Requests with no sampler through the serving core's executor, greedily, with `drafter`
// (null: none): each request's whole text by id.
std::map<serve::RequestId, std::vector<int32_t>> Served(Model& m,
                                                        std::unique_ptr<serve::Drafter> drafter,
                                                        serve::ModelExecutor::SpecCounts* counts) {
  serve::KvCacheManager kv(64, 4, false);
  serve::Scheduler s({4, 64}, kv);
  serve::ModelExecutor executor(m, m.NewKvPool(64, 4).value(), std::move(drafter));
  for (serve::RequestId id = 1; id <= 3; ++id) {
    auto r = std::make_unique<serve::Request>();
    r->id = id;
    r->tokens = {kFixtureBos, static_cast<int32_t>('a' + id), 'b', 'c'};
    r->num_prompt = r->tokens.size();
    r->max_tokens = 12;
    r->num_speculative = 4;
    EXPECT_TRUE(s.Add(std::move(r)).ok());
  }
  std::map<serve::RequestId, std::vector<int32_t>> texts;
  while (!s.empty()) {
    serve::Plan plan = s.Schedule();
    for (serve::Finished& f : s.Update(plan, executor.Execute(plan)))
      texts[f.request->id] = f.request->tokens;
  }
  if (counts) *counts = executor.spec_counts();
  return texts;
}

// A request without a sampler is decoded greedily: a draft is kept only where it is the
// target's argmax, so drafts right for two tokens and then wrong leave every text as it is.
TEST(Speculative, AnExecutorWithoutSamplersKeepsOnlyTheDraftsItWouldChoose) {
  auto m = Load(FixtureSpec{});
  const auto plain = Served(*m, nullptr, nullptr);
  serve::ModelExecutor::SpecCounts counts;
  EXPECT_EQ(Served(*m, std::make_unique<ScriptedDrafter>(plain), &counts), plain);
  EXPECT_GT(counts.accepted_tokens, 0u);
  EXPECT_LT(counts.accepted_tokens, counts.draft_tokens);
}

}  // namespace
}  // namespace vt
