// The tools' only includer of nlohmann/json besides their mains.
#include "json_value.h"

#include <nlohmann/json.hpp>

namespace vt {
namespace {

// nlohmann's ordered_json keeps keys in document order, as Python's json.loads does.
jinja::Value FromJson(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return jinja::Value::None();
    case nlohmann::ordered_json::value_t::boolean: return jinja::Value::Bool(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer:
    case nlohmann::ordered_json::value_t::number_unsigned: return jinja::Value::Int(j.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_float: return jinja::Value::Float(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return jinja::Value::String(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      jinja::Array items;
      for (const auto& item : j) items.push_back(FromJson(item));
      return jinja::Value::MakeArray(std::move(items));
    }
    case nlohmann::ordered_json::value_t::object: {
      jinja::Object items;
      for (const auto& [k, v] : j.items()) items.emplace_back(k, FromJson(v));
      return jinja::Value::MakeObject(std::move(items));
    }
    default: return jinja::Value();
  }
}

}  // namespace

StatusOr<jinja::Value> ParseJsonValue(const std::string& text, const std::string& what) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status(StatusCode::kInvalidArgument, what + ": not valid JSON");
  return FromJson(j);
}

}  // namespace vt
