// The integers of a range as GBNF digit rules (llama.cpp's way: per number of digits, each digit
// a literal or a class), for JSON Schema's integer bounds (json_schema_grammar.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vttools {

// "(a | b | ...)": GBNF's alternatives.
std::string GbnfAlternatives(const std::vector<std::string>& alts);

// The integers in [lo, hi] (lo <= hi), without leading zeros or "-0", as one GBNF expression.
std::string IntegerRangeGbnf(int64_t lo, int64_t hi);

}  // namespace vttools
