// GBNF grammars over bytes, regexes as grammars, and the token masks they give a vocabulary.
#include "vt/grammar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "grammar_match.h"
#include "tokenizer_support.h"
#include "vt/sampling.h"
#include "vt/token_constraint.h"

namespace vt {
namespace {

std::shared_ptr<const Grammar> Compile(const std::string& gbnf) {
  auto g = Grammar::FromGbnf(gbnf);
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << gbnf;
  return g.ok() ? g.value() : nullptr;
}

// Whether the grammar takes all of `text` and may end there.
bool Matches(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  return testing::GrammarTakes(g, text);
}

std::string ErrorOf(const std::string& gbnf) {
  auto g = Grammar::FromGbnf(gbnf);
  return g.ok() ? "" : g.status().message();
}

TEST(Grammar, LiteralsClassesAndRepetitionsMatchWhatTheySay) {
  auto g = Compile(R"(root ::= "ab" [0-9]{2,3} ("x" | "yz")* [^a-c]? end
end ::= "!"+  # a comment
)");
  ASSERT_TRUE(g);
  EXPECT_TRUE(Matches(g, "ab12!"));
  EXPECT_TRUE(Matches(g, "ab123xyzxd!!"));
  EXPECT_FALSE(Matches(g, "ab1!"));      // {2,3}: one digit is too few
  EXPECT_TRUE(Matches(g, "ab1234!"));    // the fourth is [^a-c]
  EXPECT_FALSE(Matches(g, "ab12345!"));  // five are too many
  EXPECT_FALSE(Matches(g, "ab12b!"));    // [^a-c]
  EXPECT_FALSE(Matches(g, "ab12"));      // "!"+ needs one
  EXPECT_FALSE(Matches(g, "ab12!?"));
}

TEST(Grammar, ClassesMatchWholeUtf8CharactersAndDotAnyOne) {
  auto g = Compile(R"(root ::= [α-ω] . [^"\\] "\u00e9")");
  ASSERT_TRUE(g);
  EXPECT_TRUE(Matches(g, "β€xé"));
  EXPECT_TRUE(Matches(g, "ω😀ñé"));
  EXPECT_FALSE(Matches(g, "a€xé"));             // not in α-ω
  EXPECT_FALSE(Matches(g, "β\xe2\x82xé"));      // a character cut short
  EXPECT_FALSE(Matches(g, "β€\"é"));            // the negated class
  EXPECT_FALSE(Matches(g, "β\xed\xa0\x80xé"));  // a surrogate is no character
}

TEST(Grammar, RulesSpanLinesInsideParenthesesAndWithALeadingBar) {
  auto g = Compile("root ::= item (\n  \",\" item\n)*\n  | \"none\"\nitem ::= [a-z]+\n");
  ASSERT_TRUE(g);
  EXPECT_TRUE(Matches(g, "ab,c,def"));
  EXPECT_TRUE(Matches(g, "none"));
  EXPECT_FALSE(Matches(g, "ab,"));
}

TEST(Grammar, BadGrammarsAreRefusedWithTheirPlace) {
  EXPECT_EQ(ErrorOf("root ::= \"a\" b\n"), "line 1, column 14: rule 'b' is not defined");
  EXPECT_EQ(ErrorOf("start ::= \"a\"\n"), "the grammar has no 'root' rule");
  EXPECT_EQ(ErrorOf("root ::= \"a\"\nroot ::= \"b\"\n"),
            "line 2, column 1: rule 'root' is defined twice");
  EXPECT_EQ(ErrorOf("root ::= \"abc\n"), "line 1, column 10: unterminated string");
  EXPECT_EQ(ErrorOf("root ::= (\"a\" \n"),
            "line 2, column 1: expected ')' to close the group opened at line 1, column 10: ");
  EXPECT_EQ(ErrorOf("root ::= [a-z]{3,2}"), "line 1, column 15: {m,n} with n < m");
  EXPECT_EQ(ErrorOf("root ::= x\nx ::= y \"a\"\ny ::= \"\" | x \"b\""),
            "rule 'x' is left recursive (it can reach itself before any byte)");
  EXPECT_EQ(ErrorOf("root = \"a\""), "line 1, column 6: expected '::=' after 'root'");
}

// x* is right recursive; a reference in the last place pushes nothing, so a long match keeps
// one stack of the same depth: the automaton's states stay few.
TEST(Grammar, ALongRepetitionKeepsTheStatesFew) {
  auto g = Compile(R"(root ::= "[" item* "]"
item ::= [a-z] | "," )");
  ASSERT_TRUE(g);
  GrammarAutomaton a(g);
  GrammarAutomaton::State s = a.Advance(a.start(), '[');
  for (int i = 0; i < 20000; ++i) s = a.Advance(s, i % 7 ? 'q' : ',');
  s = a.Advance(s, ']');
  EXPECT_TRUE(a.Accepting(s));
  EXPECT_LT(a.num_states(), 10u);
}

// What an outside tester sent: groups 10,000 deep, and rules in a chain of thousands. Each is
// refused or run without the parser's or the automaton's recursion overflowing the stack.
TEST(Grammar, DeepNestingAndLongChainsAreRefusedOrRunNotOverflowed) {
  EXPECT_EQ(ErrorOf("root ::= " + std::string(10000, '(') + "\"a\"" + std::string(10000, ')')),
            "line 1, column 266: groups nest deeper than 256 levels");
  EXPECT_NE(RegexToGbnf(std::string(10000, '(') + "a" + std::string(10000, ')'))
                .status()
                .message()
                .find("deeper than 256"),
            std::string::npos);
  std::string chain = "root ::= r0\n";
  for (int i = 0; i < 3000; ++i)
    chain += "r" + std::to_string(i) + " ::= r" + std::to_string(i + 1) + " | \"x\"\n";
  chain += "r3000 ::= \"y\"\n";
  auto g = Compile(chain);
  ASSERT_TRUE(g);
  EXPECT_TRUE(Matches(g, "y"));
  std::string longer = "root ::= r0\n";
  for (int i = 0; i < 21000; ++i)
    longer += "r" + std::to_string(i) + " ::= r" + std::to_string(i + 1) + "\n";
  longer += "r21000 ::= \"y\"\n";
  auto deep = Grammar::FromGbnf(longer);
  ASSERT_TRUE(deep.ok()) << deep.status().message();
  GrammarAutomaton a(deep.value());
  EXPECT_NE(a.status().message().find("more than 20000 rules before a byte"), std::string::npos)
      << a.status().message();
  EXPECT_FALSE(a.Accepting(a.start()));
}

TEST(Grammar, AnAmbiguityPastTheLimitFailsTheAutomatonNotTheProcess) {
  // Each "a" may return to "b" or to "c": 2^n stacks after n of them.
  auto g = Compile(R"(root ::= e
e ::= "a" e "b" | "a" e "c" | "")");
  ASSERT_TRUE(g);
  GrammarAutomaton a(g);
  GrammarAutomaton::State s = a.start();
  for (int i = 0; i < 17 && s != GrammarAutomaton::kDead; ++i) s = a.Advance(s, 'a');
  EXPECT_EQ(s, GrammarAutomaton::kDead);
  EXPECT_NE(a.status().message().find("more than 32768"), std::string::npos)
      << a.status().message();
}

std::shared_ptr<const Grammar> FromRegex(const std::string& re) {
  auto body = RegexToGbnf(re);
  EXPECT_TRUE(body.ok()) << body.status().message();
  return body.ok() ? Compile("root ::= " + body.value()) : nullptr;
}

TEST(Grammar, RegexesBecomeTheSameLanguage) {
  auto phone = FromRegex(R"(^\(\d{3}\) \d{3}-\d{4}$)");
  ASSERT_TRUE(phone);
  EXPECT_TRUE(Matches(phone, "(555) 123-4567"));
  EXPECT_FALSE(Matches(phone, "(555) 123-456"));
  auto words = FromRegex(R"((?:foo|ba[rz])+\.\w*?)");
  ASSERT_TRUE(words);
  EXPECT_TRUE(Matches(words, "foobazbar.x_1"));
  EXPECT_FALSE(Matches(words, "foo,x"));
  auto dot = FromRegex(R"([^\d\s"]\S.)");
  ASSERT_TRUE(dot);
  EXPECT_TRUE(Matches(dot, "a€é"));
  EXPECT_FALSE(Matches(dot, "1ab"));
  EXPECT_FALSE(Matches(dot, "ab\n"));  // . is not a newline
  EXPECT_FALSE(Matches(dot, "a b"));   // \S
  EXPECT_FALSE(RegexToGbnf("(?=a)b").ok());
  EXPECT_FALSE(RegexToGbnf(R"((a)\1)").ok());
  EXPECT_FALSE(RegexToGbnf("a)").ok());
}

// A SentencePiece vocabulary: every byte, some longer pieces, BOS and EOS.
Tokenizer Vocab() {
  std::vector<GgufValue> tokens, scores, types;
  auto add = [&](const std::string& text, TokenType type) {
    tokens.push_back(GgufValue::String(text));
    scores.push_back(GgufValue::Float(GgufType::kF32, static_cast<float>(text.size())));
    types.push_back(GgufValue::Int(GgufType::kI32, static_cast<int32_t>(type)));
  };
  add("<unk>", TokenType::kUnknown);
  add("<s>", TokenType::kControl);
  add("</s>", TokenType::kControl);
  for (int b = 0; b < 256; ++b) {
    char hex[7];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    add(hex, TokenType::kByte);
  }
  for (const char* piece : {"{\"", "\"}", "\":", "true", "tru", "false", "12", "\xe2\x96\x81{",
                            "\xe2\x96\x81true", "ab", "é", "\xe2\x96\x81"}) {
    add(piece, TokenType::kNormal);
  }
  GgufWriter w;
  w.Set("tokenizer.ggml.model", GgufValue::String("llama"));
  w.Set("tokenizer.ggml.tokens", GgufValue::Array(GgufType::kString, tokens));
  w.Set("tokenizer.ggml.scores", GgufValue::Array(GgufType::kF32, scores));
  w.Set("tokenizer.ggml.token_type", GgufValue::Array(GgufType::kI32, types));
  w.Set("tokenizer.ggml.bos_token_id", GgufValue::Uint(GgufType::kU32, 1));
  w.Set("tokenizer.ggml.eos_token_id", GgufValue::Uint(GgufType::kU32, 2));
  auto t = testing::LoadTokenizer(w);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

std::vector<int32_t> Allowed(GrammarConstraint& c, size_t vocab) {
  const std::vector<uint64_t>& mask = c.Mask();
  std::vector<int32_t> out;
  for (size_t id = 0; id < vocab; ++id) {
    if ((mask[id >> 6] >> (id & 63)) & 1) out.push_back(static_cast<int32_t>(id));
  }
  return out;
}

// The mask is every token Allows says yes to, in every state along the way.
TEST(Grammar, TheMaskIsEveryTokenWhoseBytesTheGrammarTakes) {
  const Tokenizer t = Vocab();
  auto trie = VocabTrie::Build(t);
  GrammarConstraint c(Compile(R"(root ::= "{\"" [a-z]+ "\":" ("true" | "false") "}")"), trie);
  const std::vector<std::string> path = {"{\"", "ab", "\":", "tru", "e", "}"};
  for (const std::string& piece : path) {
    std::vector<int32_t> brute;
    for (size_t id = 0; id < t.size(); ++id) {
      if (c.Allows(static_cast<int32_t>(id))) brute.push_back(static_cast<int32_t>(id));
    }
    EXPECT_EQ(Allowed(c, t.size()), brute) << "before " << piece;
    EXPECT_FALSE(brute.empty());
    EXPECT_FALSE(c.Allows(t.eos())) << "EOS before the grammar may end";
    const int32_t id =
        t.Find(piece.size() == 1 ? "<0x" + std::string(1, "0123456789ABCDEF"[piece[0] >> 4]) +
                                       std::string(1, "0123456789ABCDEF"[piece[0] & 15]) + ">"
                                 : piece);
    ASSERT_GE(id, 0) << piece;
    ASSERT_TRUE(c.Allows(id)) << piece;
    c.Accept(id);
    ASSERT_TRUE(c.status().ok()) << c.status().message();
  }
  EXPECT_EQ(Allowed(c, t.size()), std::vector<int32_t>{t.eos()});  // only the end is left
  EXPECT_TRUE(c.Complete());
}

TEST(Grammar, TheFirstPiecesSpaceThatTheDecoderDropsIsSkipped) {
  const Tokenizer t = Vocab();
  ASSERT_TRUE(t.add_space_prefix());
  GrammarConstraint c(Compile(R"(root ::= "true")"), VocabTrie::Build(t));
  EXPECT_TRUE(c.Allows(t.Find("\xe2\x96\x81true")));  // " true" decodes to "true" first
  EXPECT_TRUE(c.Allows(t.Find("tru")));
  EXPECT_FALSE(c.Allows(t.Find("\xe2\x96\x81")));  // " " alone would be no text at all
  c.Accept(t.Find("tru"));
  EXPECT_FALSE(c.Allows(t.Find("\xe2\x96\x81{")));
  EXPECT_TRUE(c.Allows(t.Find("<0x65>")));
  EXPECT_FALSE(c.Allows(t.Find("<0x20>")));  // no longer first: a space is a space
  GrammarConstraint later(Compile(R"(root ::= "tru" " true")"), VocabTrie::Build(t));
  later.Accept(t.Find("tru"));
  EXPECT_TRUE(later.Allows(t.Find("\xe2\x96\x81true")))
      << "past the first piece, \" true\" keeps its space";
}

// A speculative step accepts several tokens before its caller sees the first: the grammar says
// after how many it was complete, so the output ends at that token, not at the step's first.
TEST(Grammar, CompletionIsCountedInTokens) {
  const Tokenizer t = Vocab();
  GrammarConstraint c(Compile(R"(root ::= "tru" "e")"), VocabTrie::Build(t));
  c.Accept(t.Find("tru"));
  EXPECT_FALSE(c.CompleteAfter(1));
  c.Accept(t.Find("<0x65>"));
  EXPECT_TRUE(c.Complete());
  EXPECT_FALSE(c.CompleteAfter(1)) << "the first token did not complete it";
  EXPECT_TRUE(c.CompleteAfter(2));
}

TEST(Grammar, ARefusedTokenIsAnErrorOfTheConstraint) {
  const Tokenizer t = Vocab();
  GrammarConstraint c(Compile(R"(root ::= "ab")"), VocabTrie::Build(t));
  c.Accept(t.Find("12"));
  EXPECT_FALSE(c.status().ok());
}

// The sampler samples only what the grammar allows: greedy takes the best allowed token, a
// temperature draws among allowed ones only.
TEST(Grammar, TheSamplerDrawsOnlyAllowedTokens) {
  const Tokenizer t = Vocab();
  auto trie = VocabTrie::Build(t);
  const std::shared_ptr<const Grammar> digits = Compile(R"(root ::= [0-9]+)");
  std::vector<float> logits(t.size(), 0.0f);
  logits[static_cast<size_t>(t.Find("ab"))] = 9;  // the model's favourite, refused
  logits[static_cast<size_t>(t.Find("12"))] = 5;
  SamplingParams greedy;
  greedy.temperature = 0;
  auto s = Sampler::Create(greedy);
  ASSERT_TRUE(s.ok());
  s->Constrain(std::make_shared<GrammarConstraint>(digits, trie));
  EXPECT_EQ(s->Sample(logits), t.Find("12"));
  SamplingParams hot;
  hot.seed = 7;
  auto h = Sampler::Create(hot);
  h->Constrain(std::make_shared<GrammarConstraint>(digits, trie));
  for (int i = 0; i < 200; ++i) {
    const int32_t id = h->Sample(logits);
    const std::string piece = t.Piece(id);
    ASSERT_FALSE(piece.empty());
    EXPECT_EQ(piece.find_first_not_of("0123456789"), std::string::npos) << piece;
  }
}

TEST(Grammar, AGrammarThatAllowsNoTokenEndsSamplingWithItsReason) {
  const Tokenizer t = Vocab();
  // Every byte has a token here, so the model's rows are what allow nothing: logits for
  // <unk>, <s> and </s> only, none of which spells "é".
  auto s = Sampler::Create(SamplingParams{});
  s->Constrain(
      std::make_shared<GrammarConstraint>(Compile(R"(root ::= "é")"), VocabTrie::Build(t)));
  std::vector<float> logits(3, 0.0f);
  EXPECT_EQ(s->Sample(logits), -1);
  EXPECT_EQ(s->status().message(), "the grammar allows no token of the vocabulary here");
}

TEST(Grammar, LogitBiasMovesTheChoiceAndLogprobsAreTheModelsOwn) {
  std::vector<float> logits = {1.0f, 2.0f, 0.5f, -1.0f};
  SamplingParams p;
  p.temperature = 0;
  p.logit_bias = {{3, 10.0f}};
  p.logprobs = 2;
  auto s = Sampler::Create(p);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->Sample(logits), 3);
  auto lp = s->TakeLogprobs();
  ASSERT_TRUE(lp);
  double lse = 0;
  for (float l : logits) lse += std::exp(static_cast<double>(l));
  lse = std::log(lse);
  EXPECT_EQ(lp->token, 3);
  EXPECT_NEAR(lp->logprob, -1.0 - lse, 1e-5);  // the model's, before the bias
  ASSERT_EQ(lp->top.size(), 2u);
  EXPECT_EQ(lp->top[0].first, 1);
  EXPECT_NEAR(lp->top[0].second, 2.0 - lse, 1e-5);
  EXPECT_EQ(lp->top[1].first, 0);
  EXPECT_FALSE(s->TakeLogprobs());
  p.logit_bias = {{0, 101.0f}};
  EXPECT_EQ(p.Validate().message(), "logit_bias values must be in [-100, 100], got 101");
}

}  // namespace
}  // namespace vt
