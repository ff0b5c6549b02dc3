#include "vt/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vt {
namespace {

// vLLM treats temperatures below this as greedy.
constexpr double kGreedyBelow = 1e-5;
// vLLM's default max_logprobs.
constexpr int kMaxLogprobs = 20;
// Greedy asks the grammar about this many of the best tokens before computing its mask.
constexpr int kGreedyTries = 8;

Status Bad(const std::string& what, double value) {
  std::string v = std::to_string(value);
  v.erase(v.find_last_not_of('0') + 1);
  if (!v.empty() && v.back() == '.') v.pop_back();
  return Status(StatusCode::kInvalidArgument, what + ", got " + v);
}

// Most likely first; equal logits keep the lower id first, as GreedyToken does.
bool Better(const std::pair<double, int32_t>& a, const std::pair<double, int32_t>& b) {
  return a.first > b.first || (a.first == b.first && a.second < b.second);
}

// [0, 1) from the generator's top 53 bits: the same on every standard library, unlike
// std::uniform_real_distribution.
double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

Status SamplingParams::Validate() const {
  if (!(temperature >= 0)) return Bad("temperature must be >= 0", temperature);
  if (top_k < -1) return Bad("top_k must be -1 or 0 (off) or at least 1", top_k);
  if (!(top_p > 0 && top_p <= 1)) return Bad("top_p must be in (0, 1]", top_p);
  if (!(min_p >= 0 && min_p <= 1)) return Bad("min_p must be in [0, 1]", min_p);
  if (!(repetition_penalty > 0)) return Bad("repetition_penalty must be > 0", repetition_penalty);
  if (!(presence_penalty >= -2 && presence_penalty <= 2)) return Bad("presence_penalty must be in [-2, 2]", presence_penalty);
  if (!(frequency_penalty >= -2 && frequency_penalty <= 2)) return Bad("frequency_penalty must be in [-2, 2]", frequency_penalty);
  if (max_tokens < 1) return Bad("max_tokens must be at least 1", max_tokens);
  for (const auto& [id, bias] : logit_bias) {
    if (id < 0) return Bad("logit_bias keys must be token ids >= 0", id);
    if (!(bias >= -100 && bias <= 100)) return Bad("logit_bias values must be in [-100, 100]", bias);
  }
  if (logprobs && (*logprobs < 0 || *logprobs > kMaxLogprobs)) return Bad("logprobs must be in [0, 20]", *logprobs);
  for (const std::string& s : stop) {
    if (s.empty()) return Status(StatusCode::kInvalidArgument, "stop strings must not be empty");
  }
  return Status();
}

StatusOr<Sampler> Sampler::Create(const SamplingParams& params) {
  VT_RETURN_IF_ERROR(params.Validate());
  Sampler s;
  s.params_ = params;
  s.seed_ = params.seed ? *params.seed : (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  s.rng_.seed(s.seed_);
  return s;
}

// The sampler's distribution over these logits as candidates_ (weight, id), most likely first,
// every weight > 0; returns their total. Greedy: the argmax alone.
double Sampler::Weigh(const std::vector<float>& logits) {
  const SamplingParams& p = params_;
  candidates_.resize(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) {
    double l = logits[i];
    if (p.repetition_penalty != 1.0 && seen_.count(static_cast<int32_t>(i))) {
      l = l > 0 ? l / p.repetition_penalty : l * p.repetition_penalty;
    }
    candidates_[i] = {l, static_cast<int32_t>(i)};
  }
  if (p.presence_penalty != 0 || p.frequency_penalty != 0) {
    for (const auto& [id, count] : generated_) {
      if (static_cast<size_t>(id) < candidates_.size()) candidates_[static_cast<size_t>(id)].first -= p.presence_penalty + p.frequency_penalty * count;
    }
  }
  for (const auto& [id, bias] : p.logit_bias) {
    if (static_cast<size_t>(id) < candidates_.size()) candidates_[static_cast<size_t>(id)].first += bias;
  }
  if (constraint_ && !ApplyConstraint(p.temperature < kGreedyBelow)) return 0;
  if (p.temperature < kGreedyBelow) {
    candidates_ = {{1.0, std::min_element(candidates_.begin(), candidates_.end(), Better)->second}};
    return 1.0;
  }
  if (p.top_k > 0 && static_cast<size_t>(p.top_k) < candidates_.size()) {
    const auto keep = static_cast<long>(p.top_k);
    std::partial_sort(candidates_.begin(), candidates_.begin() + keep, candidates_.end(), Better);
    candidates_.resize(static_cast<size_t>(keep));
  }
  return Truncate();
}

// Temperature, then min-p and top-p over candidates_ (top-k's, or the whole vocabulary): weights
// exp((l - top) / T), the likeliest 1. They are sorted only as far as top-p needs, and not at
// all without it: a 152k vocabulary sorted whole for every token cost ten greedy steps.
double Sampler::Truncate() {
  const SamplingParams& p = params_;
  double top = -std::numeric_limits<double>::infinity(), total = 0;
  for (const auto& c : candidates_) top = std::max(top, c.first);
  for (auto& [l, id] : candidates_) total += (l = std::exp((l - top) / p.temperature));
  // min-p: weights under min_p times the likeliest's (1) go; the likeliest stays.
  if (p.min_p > 0) std::erase_if(candidates_, [&](const std::pair<double, int32_t>& c) { return c.first < p.min_p; });
  double mass = 0;
  if (p.top_p >= 1) {
    for (const auto& c : candidates_) mass += c.first;
    return mass;
  }
  // top-p: the smallest likeliest-first prefix whose weight reaches top_p of the whole; the
  // sorted part grows eightfold until it holds that prefix.
  const double target = p.top_p * total;
  size_t n = 0;
  for (size_t sorted = std::min<size_t>(candidates_.size(), 64);; sorted = std::min(candidates_.size(), sorted * 8)) {
    std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<long>(sorted), candidates_.end(), Better);
    for (mass = 0, n = 0; n < sorted && (n == 0 || mass < target);) mass += candidates_[n++].first;
    if (mass >= target || sorted == candidates_.size()) break;
  }
  candidates_.resize(n);
  return mass;
}

// Leaves in candidates_ only what the constraint allows; false (status_ says why) when that is
// nothing. Greedy asks about its best few first, so the mask is computed only when they are
// all refused.
bool Sampler::ApplyConstraint(bool greedy) {
  if (!constraint_->status().ok()) return status_ = constraint_->status(), false;  // it failed: nothing more
  for (int tries = 0; greedy && tries < kGreedyTries; ++tries) {
    auto best = std::min_element(candidates_.begin(), candidates_.end(), Better);
    if (best == candidates_.end() || std::isinf(best->first)) break;
    if (constraint_->Allows(best->second)) {
      candidates_ = {*best};
      return true;
    }
    best->first = -std::numeric_limits<double>::infinity();
  }
  const std::vector<uint64_t>& mask = constraint_->Mask();
  std::erase_if(candidates_, [&](const std::pair<double, int32_t>& c) {
    const auto id = static_cast<size_t>(c.second);
    return id >= mask.size() * 64 || !((mask[id >> 6] >> (id & 63)) & 1);
  });
  if (!candidates_.empty()) return true;
  status_ = !constraint_->status().ok() ? constraint_->status()
                                        : Status(StatusCode::kInvalidArgument, "the grammar allows no token of the vocabulary here");
  return false;
}

// One draw from candidates_ of total weight `mass`, leaving out `skip`.
int32_t Sampler::Draw(double mass, int32_t skip) {
  double u = Uniform(rng_) * mass;
  int32_t last = -1;
  for (const auto& [w, id] : candidates_) {
    if (id == skip) continue;
    last = id;
    if ((u -= w) < 0) return id;
  }
  return last;  // rounding left u a hair above the total
}

int32_t Sampler::Sample(const std::vector<float>& logits) {
  const double mass = Weigh(logits);
  return Chosen(logits, mass > 0 ? Draw(mass, -1) : -1);
}

int32_t Sampler::Verify(const std::vector<float>& logits, int32_t draft, bool* accepted) {
  const double mass = Weigh(logits);
  *accepted = false;
  if (!(mass > 0)) return -1;
  double w = 0;
  for (const auto& [weight, id] : candidates_) {
    if (id == draft) w = weight;
  }
  // p(draft) = w / mass: certain (greedy's argmax, or the only candidate) takes no draw.
  *accepted = w >= mass || (w > 0 && Uniform(rng_) * mass < w);
  return Chosen(logits, *accepted ? draft : Draw(mass - w, draft));
}

TokenLogprobs LogprobsOf(const float* logits, size_t n, int32_t token, int top_n) {
  double top = -std::numeric_limits<double>::infinity(), sum = 0;
  for (size_t i = 0; i < n; ++i) top = std::max(top, static_cast<double>(logits[i]));
  for (size_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(logits[i]) - top);
  const double lse = top + std::log(sum);
  TokenLogprobs out;
  out.token = token;
  out.logprob = static_cast<float>(logits[static_cast<size_t>(token)] - lse);
  std::vector<int32_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = static_cast<int32_t>(i);
  const auto k = static_cast<long>(std::min<size_t>(static_cast<size_t>(std::max(top_n, 0)), n));
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int32_t a, int32_t b) {
    const float la = logits[static_cast<size_t>(a)], lb = logits[static_cast<size_t>(b)];
    return la > lb || (la == lb && a < b);
  });
  for (long i = 0; i < k; ++i) out.top.push_back({ids[static_cast<size_t>(i)], static_cast<float>(logits[static_cast<size_t>(ids[static_cast<size_t>(i)])] - lse)});
  return out;
}

// `token`, its log-probabilities recorded first when asked for.
int32_t Sampler::Chosen(const std::vector<float>& logits, int32_t token) {
  if (!params_.logprobs || token < 0) return token;
  logprobs_.push_back(LogprobsOf(logits.data(), logits.size(), token, *params_.logprobs));
  return token;
}

void Sampler::AcceptGenerated(int32_t token) {
  seen_.insert(token);
  ++generated_[token];
  if (!constraint_) return;
  constraint_->Accept(token);
  if (status_.ok() && !constraint_->status().ok()) status_ = constraint_->status();
}

std::optional<TokenLogprobs> Sampler::TakeLogprobs() {
  if (logprobs_.empty()) return std::nullopt;
  TokenLogprobs front = std::move(logprobs_.front());
  logprobs_.pop_front();
  return front;
}

TokenSampler Sampler::AsTokenSampler() {
  return [this](const std::vector<float>& logits) {
    int32_t id = Sample(logits);
    AcceptGenerated(id);
    return id;
  };
}

std::string StopStrings::Push(const std::string& piece) {
  if (stopped_) return "";
  held_ += piece;
  size_t first = std::string::npos;
  for (const std::string& stop : stops_) {
    const size_t at = stop.empty() ? std::string::npos : held_.find(stop);
    if (at < first) first = at, matched_ = stop;
  }
  if (first != std::string::npos) {
    stopped_ = true;
    std::string out = held_.substr(0, first);
    held_.clear();
    return out;
  }
  size_t keep = 0;  // the longest tail that is the start of some stop string
  for (const std::string& stop : stops_) {
    for (size_t k = stop.empty() ? 0 : std::min(stop.size() - 1, held_.size()); k > keep; --k) {
      if (held_.compare(held_.size() - k, k, stop, 0, k) == 0) {
        keep = k;
        break;
      }
    }
  }
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StopStrings::Flush() {
  std::string rest;
  rest.swap(held_);
  return rest;
}

}  // namespace vt
