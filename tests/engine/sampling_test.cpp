#include "vt/sampling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace vt {
namespace {

Sampler Make(SamplingParams p) {
  if (!p.seed) p.seed = 42;
  auto s = Sampler::Create(p);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(s).value();
}

// Logits whose softmax (at temperature 1) is exactly `probs`.
std::vector<float> LogitsOf(const std::vector<double>& probs) {
  std::vector<float> l;
  for (double p : probs) l.push_back(static_cast<float>(std::log(p)));
  return l;
}

std::map<int32_t, int> Draw(Sampler& s, const std::vector<float>& logits, int n) {
  std::map<int32_t, int> counts;
  for (int i = 0; i < n; ++i) ++counts[s.Sample(logits)];
  return counts;
}

TEST(Sampling, InvalidValuesAreRefusedNamingTheFieldAndValue) {
  auto error = [](auto set) {
    SamplingParams p;
    set(p);
    return p.Validate().message();
  };
  EXPECT_EQ(error([](SamplingParams& p) { p.temperature = -1; }),
            "temperature must be >= 0, got -1");
  EXPECT_EQ(error([](SamplingParams& p) { p.top_k = -2; }),
            "top_k must be -1 or 0 (off) or at least 1, got -2");
  EXPECT_EQ(error([](SamplingParams& p) { p.top_p = 0; }), "top_p must be in (0, 1], got 0");
  EXPECT_EQ(error([](SamplingParams& p) { p.min_p = 1.5; }), "min_p must be in [0, 1], got 1.5");
  EXPECT_EQ(error([](SamplingParams& p) { p.repetition_penalty = 0; }),
            "repetition_penalty must be > 0, got 0");
  EXPECT_EQ(error([](SamplingParams& p) { p.max_tokens = 0; }),
            "max_tokens must be at least 1, got 0");
  EXPECT_EQ(error([](SamplingParams& p) {
              p.stop = {"</s>", ""};
            }),
            "stop strings must not be empty");
  EXPECT_EQ(error([](SamplingParams& p) { p.temperature = NAN; }),
            "temperature must be >= 0, got nan");
  EXPECT_TRUE(SamplingParams{}.Validate().ok());
}

TEST(Sampling, TemperatureZeroIsGreedyWithTiesToTheLowestId) {
  Sampler s = Make({.temperature = 0});
  std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(s.Sample(logits), 1);
  EXPECT_EQ(s.Sample(logits), GreedyToken(logits));
}

TEST(Sampling, TheSameSeedDrawsTheSameTokensAndAnotherSeedOthers) {
  std::vector<float> logits = LogitsOf({0.2, 0.2, 0.2, 0.2, 0.2});
  Sampler a = Make({.seed = 1}), b = Make({.seed = 1}), c = Make({.seed = 2});
  std::vector<int32_t> xa, xb, xc;
  for (int i = 0; i < 64; ++i) {
    xa.push_back(a.Sample(logits));
    xb.push_back(b.Sample(logits));
    xc.push_back(c.Sample(logits));
  }
  EXPECT_EQ(xa, xb);
  EXPECT_NE(xa, xc);
}

TEST(Sampling, DrawsFollowTheDistribution) {
  Sampler s = Make({});
  auto counts = Draw(s, LogitsOf({0.5, 0.3, 0.2}), 20000);
  EXPECT_NEAR(counts[0] / 20000.0, 0.5, 0.02);
  EXPECT_NEAR(counts[1] / 20000.0, 0.3, 0.02);
  EXPECT_NEAR(counts[2] / 20000.0, 0.2, 0.02);
}

TEST(Sampling, TopKKeepsOnlyTheKMostLikely) {
  Sampler s = Make({.top_k = 2});
  auto counts = Draw(s, LogitsOf({0.1, 0.4, 0.3, 0.2}), 4000);
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_GT(counts[1], 0);
  EXPECT_GT(counts[2], 0);
}

TEST(Sampling, TopPKeepsTheSmallestPrefixReachingItsMass) {
  std::vector<float> logits = LogitsOf({0.5, 0.3, 0.15, 0.05});
  Sampler two = Make({.top_p = 0.75}), three = Make({.top_p = 0.85});
  EXPECT_EQ(Draw(two, logits, 4000).size(), 2u);
  EXPECT_EQ(Draw(three, logits, 4000).size(), 3u);
}

// A prefix past the first sorted stretch (64): the sort grows until it holds it. 1,000 equal
// logits at top-p 0.5 keep ids 0..499 (ties go to the lower id) and no other.
TEST(Sampling, TopPPastTheFirstSortedStretchKeepsTheWholePrefix) {
  Sampler s = Make({.top_p = 0.5});
  auto counts = Draw(s, std::vector<float>(1000, 0.0f), 20000);
  EXPECT_GT(counts.size(), 450u);
  EXPECT_LT(counts.rbegin()->first, 500);
}

TEST(Sampling, MinPDropsTokensBelowItsShareOfTheTopOne) {
  Sampler s = Make({.min_p = 0.2});  // 0.2 × 0.5 = 0.1: 0.05 goes
  auto counts = Draw(s, LogitsOf({0.5, 0.3, 0.15, 0.05}), 4000);
  EXPECT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts.count(3), 0u);
}

TEST(Sampling, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogitsOfSeenTokens) {
  Sampler s = Make({.temperature = 0, .repetition_penalty = 1.2});
  EXPECT_EQ(s.Sample({2.0f, 1.9f}), 0);
  s.Accept(0);
  EXPECT_EQ(s.Sample({2.0f, 1.9f}), 1);    // 2.0 / 1.2 < 1.9
  EXPECT_EQ(s.Sample({-1.0f, -1.1f}), 1);  // -1.0 × 1.2 < -1.1
}

TEST(Sampling, PresenceAndFrequencyPenaltiesWeighGeneratedTokensOnly) {
  Sampler presence = Make({.temperature = 0, .presence_penalty = 0.2});
  presence.Accept(0);  // a prompt token: no presence penalty
  EXPECT_EQ(presence.Sample({1.0f, 0.9f}), 0);
  presence.AcceptGenerated(0);
  EXPECT_EQ(presence.Sample({1.0f, 0.9f}), 1);  // 1.0 - 0.2 < 0.9
  Sampler frequency = Make({.temperature = 0, .frequency_penalty = 0.06});
  frequency.AcceptGenerated(0);
  EXPECT_EQ(frequency.Sample({1.0f, 0.9f}), 0);  // 1.0 - 0.06 > 0.9
  frequency.AcceptGenerated(0);
  EXPECT_EQ(frequency.Sample({1.0f, 0.9f}), 1);  // 1.0 - 2 x 0.06 < 0.9
  SamplingParams far;
  far.frequency_penalty = 2.5;
  EXPECT_EQ(far.Validate().message(), "frequency_penalty must be in [-2, 2], got 2.5");
}

TEST(Sampling, StopStringsHoldBackWhatMightStartOneAndCutAtTheFirst) {
  StopStrings s({"END", "\n\n"});
  EXPECT_EQ(s.Push("hello E"), "hello ");  // "E" might start END
  EXPECT_EQ(s.Push("X"), "EX");            // it did not
  EXPECT_EQ(s.Push("tail EN"), "tail ");
  EXPECT_EQ(s.Push("D and more"), "");  // END: neither it nor what follows is shown
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.Push("later"), "");
}

TEST(Sampling, TheEarliestStopStringWinsAndWithoutOneTheTailIsFlushed) {
  StopStrings s({"xyz", "b"});
  EXPECT_EQ(s.Push("a xyz b"), "a ");
  StopStrings none({"xyz"});
  EXPECT_EQ(none.Push("abcx"), "abc");
  EXPECT_FALSE(none.stopped());
  EXPECT_EQ(none.Flush(), "x");
}

}  // namespace
}  // namespace vt
