// Whether a grammar takes a whole text: the automaton run byte by byte (the tests' check of
// what a constrained decode may write).
#pragma once

#include <memory>
#include <string>

#include "vt/grammar.h"

namespace vt::testing {

inline bool GrammarTakes(const std::shared_ptr<const vt::Grammar>& g, const std::string& text) {
  vt::GrammarAutomaton a(g);
  vt::GrammarAutomaton::State s = a.start();
  for (char c : text) {
    s = a.Advance(s, static_cast<uint8_t>(c));
    if (s == vt::GrammarAutomaton::kDead) return false;
  }
  return a.Accepting(s);
}

}  // namespace vt::testing
