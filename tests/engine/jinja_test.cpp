// The Jinja subset on small templates whose output can be worked out by hand: errors with
// positions, whitespace rules, scoping, Python's value semantics, filters, tests and methods.
#include "vt/jinja.h"

#include <gtest/gtest.h>

#include <random>

#include "json_value.h"
#include "vt/chat_template.h"

namespace vt {
namespace {

// The rendered text, or "ERROR: " and the message.
std::string Render(const std::string& source, const std::string& context = "{}") {
  auto t = jinja::Template::Parse(source);
  if (!t.ok()) return "ERROR: " + t.status().message();
  auto ctx = ParseJsonValue(context, "context");
  if (!ctx.ok()) return "ERROR: " + ctx.status().message();
  auto out = t.value().Render(ctx.value());
  return out.ok() ? out.value() : "ERROR: " + out.status().message();
}

TEST(Jinja, ParseErrorsNameLineAndColumn) {
  EXPECT_EQ(Render("{% if x %}\nabc"), "ERROR: template:2:4: missing {% endif %}");
  EXPECT_EQ(Render("a\n{{ 1 + }}"), "ERROR: template:2:8: expected an expression");
  EXPECT_EQ(Render("{% frobnicate %}"), "ERROR: template:1:1: unknown statement 'frobnicate'");
  EXPECT_EQ(Render("ok {{ x"), "ERROR: template:1:4: unclosed {{");
  EXPECT_EQ(Render("{% endfor %}"), "ERROR: template:1:1: unknown statement 'endfor'");
  EXPECT_EQ(Render("{{ 'abc }}"), "ERROR: template:1:4: unclosed string");
}

TEST(Jinja, RuntimeErrorsNameLineAndColumnAndRaisedExceptionsTheirMessage) {
  EXPECT_EQ(Render("line one\n{{ x | nosuch }}"), "ERROR: template:2:6: unknown filter 'nosuch'");
  EXPECT_EQ(Render("{{ 1 // 0 }}"), "ERROR: template:1:6: division by zero");
  EXPECT_EQ(Render("{{ raise_exception('roles must alternate') }}"),
            "ERROR: template:1:19: raise_exception: roles must alternate");
  EXPECT_EQ(Render("{{ 3 < 'a' }}"),
            "ERROR: template:1:6: '<' not supported between 'int' and 'str'");
  EXPECT_EQ(Render("{{ x() }}", R"({"x": 1})"),
            "ERROR: template:1:5: 'int' object is not callable");
}

TEST(Jinja, RunawayNestingAndRecursionAreErrorsNotCrashes) {
  EXPECT_EQ(
      Render("{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}").substr(0, 35),
      "ERROR: template:1:205: expression n");
  std::string ifs;
  for (int i = 0; i < 300; ++i) ifs += "{% if 1 %}";
  EXPECT_EQ(Render(ifs), "ERROR: template:1:2014: blocks nested too deeply");
  EXPECT_EQ(Render("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}").substr(0, 50),
            "ERROR: template:1:21: macro 'f' recursed too deepl");
}

// Runaway work is an error within budgets (statements, range() items, bytes of a string or of
// the output), not a request that takes every byte and second (an outside tester's
// range(100000000) took 16 GB); the ordinary sizes are well inside them.
TEST(Jinja, RunawayLoopsAndStringsAreErrorsWithinTheirBudgets) {
  EXPECT_EQ(Render("{% for i in range(100000000) %}{{ i }}{% endfor %}"),
            "ERROR: template:1:18: range() of 100000000 items: more than 1000000");
  EXPECT_EQ(
      Render("{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}"),
      "ERROR: template:1:30: the template ran past 2000000 steps");
  EXPECT_EQ(
      Render("{% for i in range(1000000) %}{{ 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' }}{% endfor %}"),
      "ERROR: template:1:30: the template's output passed 16777216 bytes");
  EXPECT_EQ(Render("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s + "
                   "ns.s %}{% endfor %}")
                .substr(0, 36),
            "ERROR: template:1:76: a string past ");
  EXPECT_EQ(Render("{{ 'ab' * 100000000 }}"), "ERROR: template:1:9: a string past 16777216 bytes");
  EXPECT_EQ(Render("{{ range(1000000) | length }} {{ ('ab' * 1000) | length }}"), "1000000 2000");
}

// Hostile input: soups of template fragments parse or fail, render or fail, and never crash.
TEST(Jinja, FragmentSoupNeverCrashes) {
  const char* pieces[] = {
      "{{",       "}}",         "{%",         "%}",    "{#",       "#}",      "-",
      "if",       "for",        "in",         "endif", "endfor",   "set",     "=",
      "x",        "ns",         "namespace(", ")",     "(",        "[",       "]",
      "{",        "}",          ":",          ",",     ".",        "|",       "trim",
      "'s'",      "\"",         "1",          "-1",    "0",        "/",       "//",
      "%",        "**",         "~",          "is",    "not",      "defined", "macro",
      "endmacro", "loop.index", " ",          "\n",    "messages", "[::-1]",  "raise_exception(",
      "else",     "elif",       "and",        "or",    "none",     "tojson",  "items()"};
  std::mt19937 rng(11);
  int rendered = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string src;
    for (int n = 1 + static_cast<int>(rng() % 24); n > 0; --n)
      src += pieces[rng() % (sizeof pieces / sizeof *pieces)];
    std::string out =
        Render(src, R"({"messages": [{"role": "user", "content": "hi"}], "x": [1, 2]})");
    rendered += out.rfind("ERROR: ", 0) != 0;
  }
  EXPECT_GT(rendered, 100);  // the soup is not all errors: rendering paths ran too
}

TEST(Jinja, BlocksTrimTheirLineAndDashesStripWhitespace) {
  EXPECT_EQ(Render("  {% if true %}\nx\n  {% endif %}\ny"), "x\ny");
  EXPECT_EQ(Render("a  {{- 'b' -}}  \n c"), "abc");
  EXPECT_EQ(Render("a {#- note -#} b"), "ab");
  EXPECT_EQ(Render("x\n"), "x");                      // one trailing newline is dropped
  EXPECT_EQ(Render("{{ 'a' }}\n{{ 'b' }}"), "a\nb");  // expressions keep their newline
}

TEST(Jinja, LoopSetsStayInTheLoopNamespacesCarryStateOut) {
  EXPECT_EQ(Render("{% set x = 1 %}{% for i in [1, 2] %}{% set x = i %}{% endfor %}{{ x }}"), "1");
  EXPECT_EQ(Render("{% set ns = namespace(x=1) %}{% for i in [1, 2] %}{% set ns.x = i %}{% endfor "
                   "%}{{ ns.x }}"),
            "2");
}

TEST(Jinja, LoopFieldsFiltersElseBreakAndContinue) {
  EXPECT_EQ(Render("{% for i in [5, 6, 7] if i != 6 %}{{ loop.index }}/{{ loop.length }}{{ '!' if "
                   "loop.last }} {% endfor %}"),
            "1/2 2/2! ");
  EXPECT_EQ(Render("{% for i in [] %}x{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(Render("{% for i in range(10) %}{% if i == 1 %}{% continue %}{% endif %}{% if i == 3 "
                   "%}{% break %}{% endif %}{{ i }}{% endfor %}"),
            "02");
  EXPECT_EQ(Render("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",
                   R"({"d": {"b": 1, "a": 2}})"),
            "b=1;a=2;");
  EXPECT_EQ(Render("{% for x in xs %}{{ loop.previtem }}<{{ x }}>{{ loop.revindex0 }} {% endfor %}",
                   R"({"xs": ["a", "b"]})"),
            "<a>1 a<b>0 ");
}

TEST(Jinja, MacrosTakeDefaultsAndKeywords) {
  EXPECT_EQ(Render("{% macro m(a, b='B', c=3) %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }} {{ "
                   "m(1, c=4) }} {{ m('x', 'y') }}"),
            "1B3 1B4 xy3");
}

// Python's Jinja is what models were trained with; @huggingface/jinja differs here.
TEST(Jinja, ValuesPrintAndStripAsPythonDoes) {
  EXPECT_EQ(Render("{{ true }} {{ none }} {{ 1.0 }} {{ 0.1 }} {{ [1, 'a'] }} {{ {'k': none} }}"),
            "True None 1.0 0.1 [1, 'a'] {'k': None}");
  EXPECT_EQ(Render("{{ ' x\\n\\n'.strip('\\n') }}|"), " x|");
  EXPECT_EQ(Render("{{ '\\u3000x\\u00a0' | trim }}|"), "x|");
  EXPECT_EQ(Render("{{ undefined_name }}|{{ 'a' + 1 }}"), "|a1");
}

TEST(Jinja, ToJsonWritesWhatPythonsJsonDumpsWrites) {
  const char* ctx = R"({"v": {"a": [1, 2.5, "é\n\"q\""], "b": null, "c": true}})";
  EXPECT_EQ(Render("{{ v | tojson }}", ctx),
            R"({"a": [1, 2.5, "é\n\"q\""], "b": null, "c": true})");
  EXPECT_EQ(Render("{{ v.a | tojson(indent=2) }}", ctx), "[\n  1,\n  2.5,\n  \"é\\n\\\"q\\\"\"\n]");
}

TEST(Jinja, IndicesAndSlicesCountFromEitherEnd) {
  const char* ctx = R"({"xs": [1, 2, 3, 4], "s": "héllo"})";
  EXPECT_EQ(Render("{{ xs[-1] }} {{ xs[1:3] }} {{ xs[::-1] }} {{ xs[::2] }} {{ xs[9] }}|", ctx),
            "4 [2, 3] [4, 3, 2, 1] [1, 3] |");
  EXPECT_EQ(Render("{{ s[1] }} {{ s[::-1] }} {{ s[-3:] }}", ctx), "é olléh llo");
}

TEST(Jinja, OperatorsBindAsJinjasGrammarSays) {
  EXPECT_EQ(
      Render("{{ 1 + 2 * 3 ** 2 }} {{ 2 * 3 ~ 4 }} {{ not 1 == 2 }} {{ x | default('d') ~ '!' }}"),
      "19 64 True d!");
  EXPECT_EQ(Render("{{ -7 // 2 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 'ab' * 2 }} {{ 'x' if 0 else 'y' }} "
                   "{{ 0 or 'z' }}"),
            "-4 2 3.5 abab y z");
  EXPECT_EQ(Render("{{ 'b' in 'abc' }} {{ 2 not in [1, 3] }} {{ 'k' in {'k': 1} }}"),
            "True True True");
}

TEST(Jinja, StringMethodsFollowPython) {
  EXPECT_EQ(Render("{{ 'a,b,,c'.split(',') }} {{ ' a  b '.split() }} {{ 'a b c'.split(' ', 1) }}"),
            "['a', 'b', '', 'c'] ['a', 'b'] ['a', 'b c']");
  EXPECT_EQ(Render("{{ 'xyz'.startswith(('a', 'x')) }} {{ 'xyz'.endswith('z') }} {{ "
                   "'aaa'.replace('a', 'b', 2) }}"),
            "True True bba");
  EXPECT_EQ(Render("{{ 'hello wORLD'.title() }} {{ '-'.join(['a', 'b']) }} {{ '{} and "
                   "{}'.format(1, 'x') }}"),
            "Hello World a-b 1 and x");
}

TEST(Jinja, FiltersOverListsAndDicts) {
  const char* ctx =
      R"({"ms": [{"role": "user", "n": 2}, {"role": "bot", "n": 1}, {"role": "user", "n": 3}]})";
  EXPECT_EQ(Render("{{ ms | selectattr('role', 'eq', 'user') | map(attribute='n') | list }}", ctx),
            "[2, 3]");
  EXPECT_EQ(
      Render("{{ ms | rejectattr('role', 'equalto', 'user') | map(attribute='role') | join }}",
             ctx),
      "bot");
  EXPECT_EQ(Render("{{ ms | map(attribute='role') | unique | list }} {{ ms | sort(attribute='n') | "
                   "map(attribute='n') | join(',') }}",
                   ctx),
            "['user', 'bot'] 1,2,3");
  EXPECT_EQ(Render("{{ ms | length }} {{ (ms | first).role }} {{ (ms | last).n }} {{ [3, 1, 2] | "
                   "sort(reverse=true) }}",
                   ctx),
            "3 user 3 [3, 2, 1]");
  EXPECT_EQ(Render("{{ '' | default('e', true) }} {{ {'b': 1, 'a': 2} | dictsort }} {{ 'a\\nb' | "
                   "indent(2) }}"),
            "e [['a', 2], ['b', 1]] a\n  b");
}

TEST(Jinja, ChatRenderingPassesTransformersVariables) {
  const char* source =
      "{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"
      "{% if add_generation_prompt %}[assistant]{% endif %}{{ 'T' if enable_thinking is defined "
      "else 'U' }}";
  auto messages = ParseJsonValue(R"([{"role": "user", "content": "hi"}])", "messages");
  ASSERT_TRUE(messages.ok());
  ChatOptions o;
  o.bos_token = "<s>";
  EXPECT_EQ(RenderChat(source, messages.value(), o).value(), "<s>[user]hi[assistant]U");
  o.add_generation_prompt = false;
  o.enable_thinking = false;
  EXPECT_EQ(RenderChat(source, messages.value(), o).value(), "<s>[user]hiT");
}

}  // namespace
}  // namespace vt
