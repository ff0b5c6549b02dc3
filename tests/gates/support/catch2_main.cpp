// Catch2's main, built once for the Shapes walks' Catch2 projects
// (tests/gates/mutate/shapes_test.cpp), as Catch2 v3 ships Catch2WithMain: compiling it in each
// tree of each walk was most of their time.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
