// JSON Schemas as grammars: each schema's grammar takes the JSON texts the schema allows (in
// the converter's layout: `"key": value` members after `, `) and nothing it refuses.
#include "json_schema_grammar.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "grammar_match.h"
#include "vt/grammar.h"

namespace vttools {
namespace {

using Json = nlohmann::ordered_json;

std::shared_ptr<const vt::Grammar> FromSchema(const std::string& schema) {
  auto gbnf = JsonSchemaToGbnf(Json::parse(schema), "schema");
  EXPECT_TRUE(gbnf.ok()) << gbnf.status().message();
  if (!gbnf.ok()) return nullptr;
  auto g = vt::Grammar::FromGbnf(gbnf.value());
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << gbnf.value();
  return g.ok() ? g.value() : nullptr;
}

bool Matches(const std::shared_ptr<const vt::Grammar>& g, const std::string& text) {
  return vt::testing::GrammarTakes(g, text);
}

std::string ErrorOf(const std::string& schema) {
  auto gbnf = JsonSchemaToGbnf(Json::parse(schema), "schema");
  return gbnf.ok() ? "" : gbnf.status().message();
}

TEST(JsonSchemaGrammar, AnObjectHasItsRequiredMembersInOrderAndNoOthers) {
  auto g = FromSchema(R"({"type": "object", "properties": {"name": {"type": "string"},
    "age": {"type": "integer", "minimum": 0, "maximum": 120}, "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
    "required": ["name", "age"], "additionalProperties": false})");
  ASSERT_TRUE(g);
  EXPECT_TRUE(Matches(g, R"({"name": "Ann", "age": 42})"));
  EXPECT_TRUE(Matches(g, R"({"name":"Ann","age":120,"tags":["a", "b"]})"));
  EXPECT_TRUE(Matches(g, R"({"name": "\"A\u00e9\"", "age": 0, "tags": []})"));
  EXPECT_FALSE(Matches(g, R"({"name": "Ann"})"));              // age is required
  EXPECT_FALSE(Matches(g, R"({"name": "Ann", "age": 121})"));  // past maximum
  EXPECT_FALSE(Matches(g, R"({"name": "Ann", "age": 1, "tags": ["a", "b", "c"]})"));
  EXPECT_FALSE(Matches(g, R"({"name": "Ann", "age": 1, "x": 1})"));  // no other keys
  EXPECT_FALSE(Matches(g, R"({"name": "A
nn", "age": 1})"));                                                  // a raw newline
}

TEST(JsonSchemaGrammar, OptionalMembersMayBeLeftOutAnywhereAndOtherKeysComeWhenAllowed) {
  auto g = FromSchema(
      R"({"properties": {"a": {"type": "boolean"}, "b": {"type": "null"}, "c": {"const": 1}},
    "required": ["b"], "additionalProperties": {"type": "integer"}})");
  ASSERT_TRUE(g);
  EXPECT_TRUE(Matches(g, R"({"b": null})"));
  EXPECT_TRUE(Matches(g, R"({"a": true, "b": null, "c": 1})"));
  EXPECT_TRUE(Matches(g, R"({"b": null, "zz": -5, "y": 0})"));
  EXPECT_FALSE(Matches(g, R"({"a": true})"));
  EXPECT_FALSE(Matches(g, R"({"b": null, "zz": "s"})"));
  EXPECT_FALSE(Matches(g, R"({"b": null, "c": 2})"));
  auto accented =
      FromSchema(R"({"properties": {"né": {"const": 1}}, "additionalProperties": true})");
  EXPECT_TRUE(Matches(accented, R"({"né": 1, "nê": 2, "n": 3, "néé": 4})"));
  EXPECT_FALSE(Matches(accented, R"({"né": 1, "né": 2})"));  // a named key is not another key
  auto none = FromSchema(R"({"type": "object"})");  // no properties named: any member is other
  EXPECT_TRUE(Matches(none, R"({})"));
  EXPECT_FALSE(Matches(none, R"({"x": 1})"));  // strict: additionalProperties absent is false
}

// Every integer in a window is taken exactly when it is in the range.
TEST(JsonSchemaGrammar, IntegerBoundsAreExact) {
  const std::vector<std::tuple<std::string, int64_t, int64_t>> ranges = {
      {R"("minimum": -123, "maximum": 4567)", -123, 4567},
      {R"("minimum": 7, "maximum": 7)", 7, 7},
      {R"("minimum": 0, "maximum": 9999)", 0, 9999},
      {R"("exclusiveMinimum": -51, "exclusiveMaximum": -2)", -50, -3},
      {R"("minimum": 10)", 10, 9999999999999999},
      {R"("maximum": 305)", -9999999999999999, 305},
      {R"("minimum": 100, "maximum": 1099)", 100, 1099},
      // Past int64 (a double to the JSON parser): still whole, the grammar's 16 digits the bound.
      {R"("minimum": -99999999999999999999, "maximum": 5)", -9999999999999999, 5}};
  for (const auto& [bounds, lo, hi] : ranges) {
    auto g = FromSchema(R"({"type": "integer", )" + bounds + "}");
    ASSERT_TRUE(g) << bounds;
    for (int64_t v = -200; v <= 10100; ++v) {
      ASSERT_EQ(Matches(g, std::to_string(v)), v >= lo && v <= hi) << bounds << ": " << v;
    }
    EXPECT_FALSE(Matches(g, "007")) << bounds;
    EXPECT_FALSE(Matches(g, "-0")) << bounds;
  }
}

TEST(JsonSchemaGrammar, EnumsConstsChoicesAndRecursiveReferences) {
  auto g = FromSchema(
      R"({"$defs": {"node": {"type": "object", "properties": {"v": {"enum": ["x", 2, null, [true]]},
    "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["v", "kids"]}},
    "anyOf": [{"$ref": "#/$defs/node"}, {"type": ["string", "null"], "maxLength": 2}]})");
  ASSERT_TRUE(g);
  EXPECT_TRUE(Matches(
      g,
      R"({"v": "x", "kids": [{"v": 2, "kids": []}, {"v": [true], "kids": [{"v": null, "kids": []}]}]})"));
  EXPECT_TRUE(Matches(g, R"("ab")"));
  EXPECT_TRUE(Matches(g, "null"));
  EXPECT_FALSE(Matches(g, R"("abc")"));
  EXPECT_FALSE(Matches(g, R"({"v": 3, "kids": []})"));
  EXPECT_FALSE(Matches(g, R"({"v": "x", "kids": [{"v": 2}]})"));
}

TEST(JsonSchemaGrammar, StringsCountCharactersAndFollowPatternsAndFormats) {
  auto len = FromSchema(R"({"type": "string", "minLength": 2, "maxLength": 3})");
  EXPECT_TRUE(Matches(len, R"("é\n")"));  // two characters: one of two bytes, one escaped
  EXPECT_TRUE(Matches(len, R"("abc")"));
  EXPECT_FALSE(Matches(len, R"("a")"));
  EXPECT_FALSE(Matches(len, R"("abcd")"));
  auto pattern = FromSchema(R"({"type": "string", "pattern": "^[A-Z]{2}-\\d+\"?$"})");
  EXPECT_TRUE(Matches(pattern, R"("AB-12")"));
  EXPECT_TRUE(Matches(pattern, R"("AB-12\"")"));  // the pattern's quote, escaped in JSON
  EXPECT_FALSE(Matches(pattern, R"("AB-12"")"));
  EXPECT_FALSE(Matches(pattern, R"("ab-12")"));
  EXPECT_FALSE(Matches(pattern, R"("xAB-12")"));  // anchored: nothing before
  auto anywhere = FromSchema(R"({"type": "string", "pattern": "ok"})");
  EXPECT_TRUE(Matches(anywhere, R"("it is ok here")"));
  EXPECT_FALSE(Matches(anywhere, R"("it is o.k.")"));
  auto date = FromSchema(R"({"type": "string", "format": "date-time"})");
  EXPECT_TRUE(Matches(date, R"("2026-12-06T18:30:00Z")"));
  EXPECT_TRUE(Matches(
      date, R"("2026-02-31T23:59:59.123+05:30")"));  // the grammar does not know months' lengths
  EXPECT_FALSE(Matches(date, R"("2026-13-06T18:30:00Z")"));
  auto uuid = FromSchema(R"({"format": "uuid"})");
  EXPECT_TRUE(Matches(uuid, R"("123e4567-e89b-12d3-a456-426614174000")"));
  EXPECT_FALSE(Matches(uuid, R"("123e4567e89b12d3a456426614174000")"));
}

TEST(JsonSchemaGrammar, ArraysHoldTheirTuplesAndCounts) {
  auto tuple = FromSchema(
      R"({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false})");
  EXPECT_TRUE(Matches(tuple, R"([1, "a"])"));
  EXPECT_TRUE(Matches(tuple, R"([1])"));
  EXPECT_TRUE(Matches(tuple, R"([])"));
  EXPECT_FALSE(Matches(tuple, R"([1, "a", 2])"));
  EXPECT_FALSE(Matches(tuple, R"(["a"])"));
  auto counted = FromSchema(
      R"({"type": "array", "items": {"type": "boolean"}, "minItems": 2, "maxItems": 3})");
  EXPECT_FALSE(Matches(counted, R"([true])"));
  EXPECT_TRUE(Matches(counted, R"([true, false])"));
  EXPECT_TRUE(Matches(counted, R"([true,false,true])"));
  EXPECT_FALSE(Matches(counted, R"([true, false, true, true])"));
  auto open = FromSchema(R"({"type": "array", "prefixItems": [{"const": "x"}], "minItems": 2})");
  EXPECT_TRUE(Matches(open, R"(["x", {"any": [1]}, 3])"));
  EXPECT_FALSE(Matches(open, R"(["x"])"));
}

TEST(JsonSchemaGrammar, WhatTheGrammarCannotSayIsRefusedWithItsPlace) {
  EXPECT_EQ(
      ErrorOf(R"({"type": "object", "properties": {"x": {"type": "number", "multipleOf": 2}}})"),
      "schema.properties.x: \"multipleOf\" is not supported");
  EXPECT_EQ(ErrorOf(R"({"type": "array", "items": {"not": {}}})"),
            "schema.items: \"not\" is not supported");
  EXPECT_EQ(ErrorOf(R"({"type": "string", "format": "hostname"})"),
            "schema.format: the format \"hostname\" is not supported");
  EXPECT_EQ(ErrorOf(R"({"$ref": "#/$defs/missing"})"),
            "schema.$ref: \"#/$defs/missing\" names nothing in the schema");
  EXPECT_EQ(ErrorOf(R"({"type": "integer", "minimum": 5, "maximum": 4})"),
            "schema: no integer is in [5, 4]");
  EXPECT_EQ(ErrorOf(R"({"type": "integer", "minimum": 1e30})"),
            "schema: bounds past 16 digits: the grammar writes integers of 16 digits at most");
  EXPECT_EQ(ErrorOf(R"({"properties": {"a": {}}, "required": ["b"]})"),
            "schema.required: required names \"b\", which is not in properties");
  EXPECT_EQ(ErrorOf("false"), "schema: the schema false allows no value");
  EXPECT_EQ(ErrorOf(R"j({"type": "string", "pattern": "(?=x)"})j"),
            "schema.pattern: regex at offset 0: lookaround and inline flags are not supported");
}

// A keyword the grammar cannot honour is refused, never dropped: untyped schemas take their
// keywords' type, a narrowing keyword beside a choice is refused, an enum keeps its type's values.
TEST(JsonSchemaGrammar, NoKeywordIsDropped) {
  auto short_list = FromSchema(R"({"maxItems": 1})");
  ASSERT_TRUE(short_list);
  EXPECT_TRUE(Matches(short_list, "[1]"));
  EXPECT_FALSE(Matches(short_list, "[1, 2]"));
  EXPECT_EQ(ErrorOf(R"({"minimum": 2})"),
            "schema: \"minimum\" on a number (not an integer) is not supported");
  EXPECT_EQ(ErrorOf(R"({"uniqueItems": true})"),
            "schema.uniqueItems: uniqueItems: true is not supported");
  EXPECT_EQ(ErrorOf(R"({"type": "string", "anyOf": [{"minLength": 2}]})"),
            "schema: \"type\" beside \"anyOf\" is not supported");
  EXPECT_EQ(ErrorOf(R"({"enum": [1, 2], "minimum": 2})"),
            "schema: \"minimum\" beside \"enum\" is not supported");
  auto typed = FromSchema(R"({"type": "string", "enum": ["a", 1], "description": "d"})");
  ASSERT_TRUE(typed);
  EXPECT_TRUE(Matches(typed, R"("a")"));
  EXPECT_FALSE(Matches(typed, "1"));
  EXPECT_EQ(ErrorOf(R"({"type": "integer", "const": 1.5})"),
            "schema.const: no value is of the schema's type");
}

// 3,000 optional properties: the grammar grows with the members, not with their square.
TEST(JsonSchemaGrammar, ManyPropertiesMakeAGrammarOfTheirSize) {
  Json props = Json::object();
  for (int i = 0; i < 3000; ++i) props["p" + std::to_string(i)] = {{"type", "boolean"}};
  Json schema = {{"type", "object"}, {"properties", props}};
  auto gbnf = JsonSchemaToGbnf(schema, "schema");
  ASSERT_TRUE(gbnf.ok());
  EXPECT_LT(gbnf.value().size(), 1000000u);
  auto g = vt::Grammar::FromGbnf(gbnf.value());
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_TRUE(Matches(g.value(), R"({"p5": true, "p2999": false})"));
  EXPECT_FALSE(Matches(g.value(), R"({"p2999": false, "p5": true})"));
}

// OpenAPI's nullable (the openai package's zod helper writes it for .nullable()), and
// extensions (x-...) and pydantic's discriminator read as annotations.
TEST(JsonSchemaGrammar, NullableAndExtensionsAreRead) {
  auto g = FromSchema(
      R"({"type": "integer", "nullable": true, "x-order": 3, "discriminator": {"propertyName": "k"}})");
  ASSERT_TRUE(g);
  EXPECT_TRUE(Matches(g, "null"));
  EXPECT_TRUE(Matches(g, "-12"));
  EXPECT_FALSE(Matches(g, "\"x\""));
  auto big = FromSchema(R"({"type": "number"})");
  EXPECT_TRUE(Matches(big, "1.5e-12"));
  EXPECT_FALSE(Matches(big, "6e730")) << "JavaScript reads it as Infinity";
}

TEST(JsonSchemaGrammar, AnyJsonObjectIsAnObjectOfAnyValues) {
  auto g = vt::Grammar::FromGbnf(AnyJsonGbnf(true));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_TRUE(Matches(g.value(), R"({"a": [1, 2.5e-3, {"b": null}], "c": "d"})"));
  EXPECT_TRUE(Matches(g.value(), R"({})"));
  EXPECT_FALSE(Matches(g.value(), R"([1])"));
  EXPECT_FALSE(Matches(g.value(), R"({"a": 01})"));
}

}  // namespace
}  // namespace vttools
