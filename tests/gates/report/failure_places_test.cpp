// Failure places read from a leg's output (gates/report/failure_places.cpp): the edges of the
// explanation under a place, line ends, the limit and the line number's cut.
#include "gates/report/failure_places.h"

#include <gtest/gtest.h>

namespace pg {
namespace {

TEST(FailurePlaces, AnExplanationIsTheSixLinesUnderThePlaceAtMost) {
  std::string log = "t.cpp:5: Failure\n";
  for (int i = 1; i <= 8; ++i) log += "line " + std::to_string(i) + "\n";
  std::vector<FailurePlace> places = FailurePlaces(log);
  ASSERT_EQ(places.size(), 1u);
  EXPECT_EQ(places[0].message, "line 1\nline 2\nline 3\nline 4\nline 5\nline 6");
}

// "[  FAILED", "===" and "---" end an explanation only where a line starts with them: a
// message that quotes them a character in goes on.
TEST(FailurePlaces, MarkersEndAnExplanationOnlyAtTheStartOfALine) {
  std::string log =
      "a.cpp:1: Failure\n x [  FAILED  ] quoted\n ===\n ---\nlast\n"
      "b.cpp:2: Failure\nkept\n====\nafter equals\n"
      "c.cpp:3: Failure\nkept\n----\nafter dashes\n"
      "d.cpp:4: Failure\nkept\n[  FAILED  ] Suite.Case (1 ms)\nafter the case\n";
  std::vector<FailurePlace> places = FailurePlaces(log);
  ASSERT_EQ(places.size(), 4u);
  EXPECT_EQ(places[0].message, " x [  FAILED  ] quoted\n ===\n ---\nlast");
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(places[i].message, "kept") << places[i].file;
}

// Windows line ends: the CR is not part of a line, and a line of a lone CR is blank.
TEST(FailurePlaces, CarriageReturnsAreLineEndsAndALoneOneIsABlankLine) {
  std::vector<FailurePlace> places =
      FailurePlaces("a.cpp:3: Failure\r\nfirst\r\n\r\nnot part of it\r\n\r");
  ASSERT_EQ(places.size(), 1u);
  EXPECT_EQ(places[0].line, 3);
  EXPECT_EQ(places[0].message, "first");
}

TEST(FailurePlaces, TheLimitIsTheMostPlacesReturned) {
  std::string log = "a.cpp:1: Failure\n\nb.cpp:2: Failure\n\nc.cpp:3: Failure\n";
  EXPECT_EQ(FailurePlaces(log, 2).size(), 2u);
  EXPECT_EQ(FailurePlaces(log, 3).size(), 3u);
  EXPECT_EQ(FailurePlaces(log, 0).size(), 0u);
  EXPECT_EQ(FailurePlaces(log, 2).back().file, "b.cpp");
}

// A line number too long for an int is cut to its first nine digits, never an exception.
TEST(FailurePlaces, ALineNumberPastNineDigitsIsCutToNine) {
  std::vector<FailurePlace> places = FailurePlaces("a.cpp:98765432109876: Failure\nwhy\n");
  ASSERT_EQ(places.size(), 1u);
  EXPECT_EQ(places[0].line, 987654321);
}

// A place seen before is skipped, and what follows it is not taken for its explanation;
// the same file at another line is another place.
TEST(FailurePlaces, ARepeatedPlaceIsSkippedAndAnotherLineIsAnotherPlace) {
  std::vector<FailurePlace> places = FailurePlaces(
      "a.cpp:7: Failure\nfirst\n\na.cpp:7: Failure\nsecond\n\na.cpp:8: Failure\nthird\n");
  ASSERT_EQ(places.size(), 2u);
  EXPECT_EQ(places[0].message, "first");
  EXPECT_EQ(places[1].line, 8);
  EXPECT_EQ(places[1].message, "third");
}

// A place is its file and line: two errors at other columns of one line are one place.
TEST(FailurePlaces, TwoErrorsOnOneLineAreOnePlace) {
  std::vector<FailurePlace> places = FailurePlaces(
      "src/a.cpp:3:10: error: first\nsrc/a.cpp:3:12: error: second\nsrc/a.cpp:4:1: error: third\n");
  ASSERT_EQ(places.size(), 2u);
  EXPECT_EQ(places[0].message, "first");
  EXPECT_EQ(places[1].line, 4);
}

}  // namespace
}  // namespace pg
