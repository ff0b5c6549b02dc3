#include "vt/sampling.h"

#include <algorithm>
#include <cmath>

namespace vt {
namespace {

// vLLM treats temperatures below this as greedy.
constexpr double kGreedyBelow = 1e-5;

Status Bad(const std::string& what, double value) {
  std::string v = std::to_string(value);
  v.erase(v.find_last_not_of('0') + 1);
  if (!v.empty() && v.back() == '.') v.pop_back();
  return Status(StatusCode::kInvalidArgument, what + ", got " + v);
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
  // Most likely first; equal logits keep the lower id first, as GreedyToken does.
  auto better = [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  if (p.temperature < kGreedyBelow) {
    candidates_ = {{1.0, std::min_element(candidates_.begin(), candidates_.end(), better)->second}};
    return 1.0;
  }
  size_t keep = candidates_.size();
  if (p.top_k > 0 && static_cast<size_t>(p.top_k) < keep) keep = static_cast<size_t>(p.top_k);
  std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<long>(keep), candidates_.end(), better);
  candidates_.resize(keep);
  double top = candidates_.front().first, total = 0;
  for (auto& [l, id] : candidates_) total += (l = std::exp((l - top) / p.temperature));
  double mass = 0;  // top-p: the smallest prefix whose probability reaches top_p
  size_t n = 0;
  while (n < candidates_.size() && (n == 0 || mass < p.top_p * total)) mass += candidates_[n++].first;
  candidates_.resize(n);
  double floor = p.min_p * candidates_.front().first;  // the top weight is exp(0) = 1 before normalising
  while (candidates_.size() > 1 && candidates_.back().first < floor) {
    mass -= candidates_.back().first;
    candidates_.pop_back();
  }
  return mass;
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

int32_t Sampler::Sample(const std::vector<float>& logits) { return Draw(Weigh(logits), -1); }

int32_t Sampler::Verify(const std::vector<float>& logits, int32_t draft, bool* accepted) {
  const double mass = Weigh(logits);
  double w = 0;
  for (const auto& [weight, id] : candidates_) {
    if (id == draft) w = weight;
  }
  // p(draft) = w / mass: certain (greedy's argmax, or the only candidate) takes no draw.
  *accepted = w >= mass || (w > 0 && Uniform(rng_) * mass < w);
  if (*accepted) return draft;
  return Draw(mass - w, draft);
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
    if (!stop.empty()) first = std::min(first, held_.find(stop));
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
