// The fields of a request that constrain its output to a grammar (specs/structured-outputs.md):
// OpenAI's `response_format`, vLLM's `structured_outputs` and its older `guided_*` names.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "api_request.h"
#include "vt/grammar.h"

namespace vtserve {

// Why a grammar cannot even start (it matches nothing, or its first state is past a limit), or
// "": the client's 400 before anything is queued, not a 500 at the first token.
std::string StartProblem(const std::shared_ptr<const vt::Grammar>& grammar);

// The fields this file reads, for the request parser's list of known fields.
bool IsStructuredField(const std::string& key);

// The grammar `j` asks for (null: none), compiled; false with `*error` (a 400 naming the field)
// when the fields are malformed, ask for two constraints, or do not compile. `body` is the
// request's text: a schema's members keep the order it wrote them in.
bool ReadStructured(const nlohmann::json& j, const std::string& body, std::shared_ptr<const vt::Grammar>* grammar,
                    ApiError* error);

}  // namespace vtserve
