#include "harmony.h"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

namespace vtserve {
namespace {

const std::string kMessage = "<|message|>", kChannel = "<|channel|>", kStart = "<|start|>";
const std::array<std::string, 4> kEnds = {"<|end|>", "<|call|>", "<|return|>", "<|start|>"};
const std::array<std::string, 6> kMarkers = {"<|end|>", "<|call|>", "<|return|>", "<|start|>", "<|message|>", "<|channel|>"};

// The word after `key` in a header, up to a space or the next special token.
std::string WordAfter(const std::string& header, const std::string& key) {
  const size_t at = header.find(key);
  if (at == std::string::npos) return "";
  const size_t from = at + key.size();
  size_t end = header.find_first_of(" \t\n", from);
  end = std::min(end, header.find("<|", from));
  return header.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

// How much of `text`'s end may be a special token still arriving ("<", "<|", "<|en"): a model
// that writes them as bytes sends them a byte at a time, and none of it is text until known.
size_t PartialMarker(const std::string& text) {
  const size_t lt = text.rfind('<');
  if (lt == std::string::npos) return 0;
  const size_t tail = text.size() - lt;
  for (const std::string& m : kMarkers) {
    if (m.size() > tail && m.compare(0, tail, text, lt, tail) == 0) return tail;
  }
  return 0;
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// One message into the output, by its channel and recipient. A call's arguments still arriving
// are nothing yet; once the text is complete, arguments that are not a JSON object (cut off by
// max_tokens) are content, as a Hermes call that does not parse.
void Take(const std::string& header, const std::string& text, bool complete, HarmonyOutput* out) {
  const std::string recipient = WordAfter(header, "to="), channel = WordAfter(header, kChannel);
  const std::string prefix = "functions.";
  if (recipient.rfind(prefix, 0) == 0 && recipient.size() > prefix.size()) {
    const nlohmann::json args = nlohmann::json::parse(text, nullptr, false);
    if (args.is_object()) return out->calls.push_back(ToolCall{NewToolCallId(), recipient.substr(prefix.size()), Trim(text)});
    if (!complete) return;
  }
  if (channel == "analysis") out->reasoning += text;
  else out->content += text;
}

}  // namespace

HarmonyOutput ParseHarmony(const std::string& text, bool complete) {
  HarmonyOutput out;
  // Harmony text opens with a header's special token; other text is a model writing plainly.
  // Streaming, a lone "<" may be the first byte of one (a model that writes them as bytes).
  if (text.rfind("<|", 0) != 0 && (complete || text != "<")) return out.content = text, out;
  for (size_t at = 0; at < text.size();) {
    const size_t message = text.find(kMessage, at);
    if (message == std::string::npos) break;  // a header still arriving
    const size_t body = message + kMessage.size();
    size_t end = std::string::npos, end_len = 0;
    for (const std::string& e : kEnds) {
      const size_t found = text.find(e, body);
      if (found < end) end = found, end_len = e == kStart ? 0 : e.size();  // <|start|> opens the next header
    }
    out.any_message = true;
    std::string said = text.substr(body, end == std::string::npos ? std::string::npos : end - body);
    if (end == std::string::npos && !complete) said.resize(said.size() - PartialMarker(said));
    Take(text.substr(at, message - at), said, complete, &out);
    if (end == std::string::npos) break;
    at = end + end_len;
  }
  // Complete text with no message in it was never harmony: all of it is content, nothing lost.
  if (complete && !out.any_message) out.content = text;
  return out;
}

}  // namespace vtserve
