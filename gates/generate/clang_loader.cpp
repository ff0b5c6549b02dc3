// libclang loaded on first use (dlopen) instead of linked: linking it cost every proofgate
// command 12 ms of start-up (LLVM's relocations and static constructors; `proofgate
// --version` took 16 ms on a 2-vCPU Xeon), paid by every preflight though only `mutate
// --generate` parses C++. The definitions below stand in for libclang's own, each calling
// through the address LoadLibclang resolved. Written once from clang-c/*.h for the functions
// clang_walker.{h,cpp}, clang_points.cpp, clang_database.cpp and clang_text.h call; add one
// here with each new call.
#include "gates/generate/clang_loader.h"

#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>
#include <dlfcn.h>

#include <mutex>
#include <string>

namespace pg {
namespace {

enum Fn {
  k_clang_CXXConstructor_isDefaultConstructor,
  k_clang_CXXMethod_isDefaulted,
  k_clang_CXXMethod_isDeleted,
  k_clang_CompilationDatabase_dispose,
  k_clang_CompilationDatabase_fromDirectory,
  k_clang_CompilationDatabase_getAllCompileCommands,
  k_clang_CompilationDatabase_getCompileCommands,
  k_clang_CompileCommand_getArg,
  k_clang_CompileCommand_getDirectory,
  k_clang_CompileCommand_getFilename,
  k_clang_CompileCommand_getNumArgs,
  k_clang_CompileCommands_dispose,
  k_clang_CompileCommands_getCommand,
  k_clang_CompileCommands_getSize,
  k_clang_Cursor_getArgument,
  k_clang_Cursor_getNumArguments,
  k_clang_Cursor_getVarDeclInitializer,
  k_clang_Cursor_isNull,
  k_clang_PrintingPolicy_dispose,
  k_clang_PrintingPolicy_setProperty,
  k_clang_File_isEqual,
  k_clang_createIndex,
  k_clang_defaultDiagnosticDisplayOptions,
  k_clang_disposeDiagnostic,
  k_clang_disposeIndex,
  k_clang_disposeString,
  k_clang_disposeTokens,
  k_clang_disposeTranslationUnit,
  k_clang_formatDiagnostic,
  k_clang_getCString,
  k_clang_getArrayElementType,
  k_clang_getPointeeType,
  k_clang_Type_getSizeOf,
  k_clang_getCanonicalType,
  k_clang_getCursorExtent,
  k_clang_getCursorKind,
  k_clang_getCursorLocation,
  k_clang_getCursorPrettyPrinted,
  k_clang_getCursorPrintingPolicy,
  k_clang_getCursorReferenced,
  k_clang_getCursorSpelling,
  k_clang_getCursorType,
  k_clang_getDiagnostic,
  k_clang_getDiagnosticSeverity,
  k_clang_getExpansionLocation,
  k_clang_getFile,
  k_clang_getFileName,
  k_clang_getInclusions,
  k_clang_getLocationForOffset,
  k_clang_getNumDiagnostics,
  k_clang_getRange,
  k_clang_getRangeEnd,
  k_clang_getRangeStart,
  k_clang_getResultType,
  k_clang_getSpecializedCursorTemplate,
  k_clang_getSpellingLocation,
  k_clang_getTemplateCursorKind,
  k_clang_getTokenLocation,
  k_clang_getTokenSpelling,
  k_clang_getTranslationUnitCursor,
  k_clang_getTranslationUnitSpelling,
  k_clang_getTypeDeclaration,
  k_clang_getTypeSpelling,
  k_clang_isAttribute,
  k_clang_isConstQualifiedType,
  k_clang_isCursorDefinition,
  k_clang_isDeclaration,
  k_clang_isExpression,
  k_clang_parseTranslationUnit2FullArgv,
  k_clang_tokenize,
  k_clang_visitChildren,
  kCount
};

const char* const kNames[kCount] = {
    "clang_CXXConstructor_isDefaultConstructor",
    "clang_CXXMethod_isDefaulted",
    "clang_CXXMethod_isDeleted",
    "clang_CompilationDatabase_dispose",
    "clang_CompilationDatabase_fromDirectory",
    "clang_CompilationDatabase_getAllCompileCommands",
    "clang_CompilationDatabase_getCompileCommands",
    "clang_CompileCommand_getArg",
    "clang_CompileCommand_getDirectory",
    "clang_CompileCommand_getFilename",
    "clang_CompileCommand_getNumArgs",
    "clang_CompileCommands_dispose",
    "clang_CompileCommands_getCommand",
    "clang_CompileCommands_getSize",
    "clang_Cursor_getArgument",
    "clang_Cursor_getNumArguments",
    "clang_Cursor_getVarDeclInitializer",
    "clang_Cursor_isNull",
    "clang_PrintingPolicy_dispose",
    "clang_PrintingPolicy_setProperty",
    "clang_File_isEqual",
    "clang_createIndex",
    "clang_defaultDiagnosticDisplayOptions",
    "clang_disposeDiagnostic",
    "clang_disposeIndex",
    "clang_disposeString",
    "clang_disposeTokens",
    "clang_disposeTranslationUnit",
    "clang_formatDiagnostic",
    "clang_getCString",
    "clang_getArrayElementType",
    "clang_getPointeeType",
    "clang_Type_getSizeOf",
    "clang_getCanonicalType",
    "clang_getCursorExtent",
    "clang_getCursorKind",
    "clang_getCursorLocation",
    "clang_getCursorPrettyPrinted",
    "clang_getCursorPrintingPolicy",
    "clang_getCursorReferenced",
    "clang_getCursorSpelling",
    "clang_getCursorType",
    "clang_getDiagnostic",
    "clang_getDiagnosticSeverity",
    "clang_getExpansionLocation",
    "clang_getFile",
    "clang_getFileName",
    "clang_getInclusions",
    "clang_getLocationForOffset",
    "clang_getNumDiagnostics",
    "clang_getRange",
    "clang_getRangeEnd",
    "clang_getRangeStart",
    "clang_getResultType",
    "clang_getSpecializedCursorTemplate",
    "clang_getSpellingLocation",
    "clang_getTemplateCursorKind",
    "clang_getTokenLocation",
    "clang_getTokenSpelling",
    "clang_getTranslationUnitCursor",
    "clang_getTranslationUnitSpelling",
    "clang_getTypeDeclaration",
    "clang_getTypeSpelling",
    "clang_isAttribute",
    "clang_isConstQualifiedType",
    "clang_isCursorDefinition",
    "clang_isDeclaration",
    "clang_isExpression",
    "clang_parseTranslationUnit2FullArgv",
    "clang_tokenize",
    "clang_visitChildren",
};

void* g_fn[kCount];

// The library found at configure time, then the same through its resolved path.
Status Load() {
  void* lib = nullptr;
  std::string why;
  for (const char* path : {PG_LIBCLANG_PATH, PG_LIBCLANG_REAL_PATH}) {
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* err = dlerror();
    why = err ? err : path;
  }
  if (!lib)
    return Status::Invalid("mutate --generate needs libclang (Debian: libclang-16-dev): " + why);
  for (int i = 0; i < kCount; ++i) {
    g_fn[i] = dlsym(lib, kNames[i]);
    if (!g_fn[i])
      return Status::Invalid(std::string("libclang at ") + PG_LIBCLANG_PATH + " lacks " +
                             kNames[i]);
  }
  return Status();
}

}  // namespace

Status LoadLibclang() {
  static std::once_flag once;
  static Status loaded;
  std::call_once(once, [] { loaded = Load(); });
  return loaded;
}

}  // namespace pg

extern "C" {
unsigned clang_CXXConstructor_isDefaultConstructor(CXCursor a0) {
  return reinterpret_cast<unsigned (*)(CXCursor)>(
      pg::g_fn[pg::k_clang_CXXConstructor_isDefaultConstructor])(a0);
}
unsigned clang_CXXMethod_isDefaulted(CXCursor a0) {
  return reinterpret_cast<unsigned (*)(CXCursor)>(pg::g_fn[pg::k_clang_CXXMethod_isDefaulted])(a0);
}
unsigned clang_CXXMethod_isDeleted(CXCursor a0) {
  return reinterpret_cast<unsigned (*)(CXCursor)>(pg::g_fn[pg::k_clang_CXXMethod_isDeleted])(a0);
}
void clang_CompilationDatabase_dispose(CXCompilationDatabase a0) {
  reinterpret_cast<void (*)(CXCompilationDatabase)>(
      pg::g_fn[pg::k_clang_CompilationDatabase_dispose])(a0);
}
CXCompilationDatabase clang_CompilationDatabase_fromDirectory(const char* a0,
                                                              CXCompilationDatabase_Error* a1) {
  return reinterpret_cast<CXCompilationDatabase (*)(const char*, CXCompilationDatabase_Error*)>(
      pg::g_fn[pg::k_clang_CompilationDatabase_fromDirectory])(a0, a1);
}
CXCompileCommands clang_CompilationDatabase_getAllCompileCommands(CXCompilationDatabase a0) {
  return reinterpret_cast<CXCompileCommands (*)(CXCompilationDatabase)>(
      pg::g_fn[pg::k_clang_CompilationDatabase_getAllCompileCommands])(a0);
}
CXCompileCommands clang_CompilationDatabase_getCompileCommands(CXCompilationDatabase a0,
                                                               const char* a1) {
  return reinterpret_cast<CXCompileCommands (*)(CXCompilationDatabase, const char*)>(
      pg::g_fn[pg::k_clang_CompilationDatabase_getCompileCommands])(a0, a1);
}
CXString clang_CompileCommand_getArg(CXCompileCommand a0, unsigned a1) {
  return reinterpret_cast<CXString (*)(CXCompileCommand, unsigned)>(
      pg::g_fn[pg::k_clang_CompileCommand_getArg])(a0, a1);
}
CXString clang_CompileCommand_getDirectory(CXCompileCommand a0) {
  return reinterpret_cast<CXString (*)(CXCompileCommand)>(
      pg::g_fn[pg::k_clang_CompileCommand_getDirectory])(a0);
}
CXString clang_CompileCommand_getFilename(CXCompileCommand a0) {
  return reinterpret_cast<CXString (*)(CXCompileCommand)>(
      pg::g_fn[pg::k_clang_CompileCommand_getFilename])(a0);
}
unsigned clang_CompileCommand_getNumArgs(CXCompileCommand a0) {
  return reinterpret_cast<unsigned (*)(CXCompileCommand)>(
      pg::g_fn[pg::k_clang_CompileCommand_getNumArgs])(a0);
}
void clang_CompileCommands_dispose(CXCompileCommands a0) {
  reinterpret_cast<void (*)(CXCompileCommands)>(pg::g_fn[pg::k_clang_CompileCommands_dispose])(a0);
}
CXCompileCommand clang_CompileCommands_getCommand(CXCompileCommands a0, unsigned a1) {
  return reinterpret_cast<CXCompileCommand (*)(CXCompileCommands, unsigned)>(
      pg::g_fn[pg::k_clang_CompileCommands_getCommand])(a0, a1);
}
unsigned clang_CompileCommands_getSize(CXCompileCommands a0) {
  return reinterpret_cast<unsigned (*)(CXCompileCommands)>(
      pg::g_fn[pg::k_clang_CompileCommands_getSize])(a0);
}
CXCursor clang_Cursor_getArgument(CXCursor a0, unsigned a1) {
  return reinterpret_cast<CXCursor (*)(CXCursor, unsigned)>(
      pg::g_fn[pg::k_clang_Cursor_getArgument])(a0, a1);
}
int clang_Cursor_getNumArguments(CXCursor a0) {
  return reinterpret_cast<int (*)(CXCursor)>(pg::g_fn[pg::k_clang_Cursor_getNumArguments])(a0);
}
CXCursor clang_Cursor_getVarDeclInitializer(CXCursor a0) {
  return reinterpret_cast<CXCursor (*)(CXCursor)>(
      pg::g_fn[pg::k_clang_Cursor_getVarDeclInitializer])(a0);
}
int clang_Cursor_isNull(CXCursor a0) {
  return reinterpret_cast<int (*)(CXCursor)>(pg::g_fn[pg::k_clang_Cursor_isNull])(a0);
}
int clang_File_isEqual(CXFile a0, CXFile a1) {
  return reinterpret_cast<int (*)(CXFile, CXFile)>(pg::g_fn[pg::k_clang_File_isEqual])(a0, a1);
}
CXIndex clang_createIndex(int a0, int a1) {
  return reinterpret_cast<CXIndex (*)(int, int)>(pg::g_fn[pg::k_clang_createIndex])(a0, a1);
}
unsigned clang_defaultDiagnosticDisplayOptions() {
  return reinterpret_cast<unsigned (*)()>(pg::g_fn[pg::k_clang_defaultDiagnosticDisplayOptions])();
}
void clang_disposeDiagnostic(CXDiagnostic a0) {
  reinterpret_cast<void (*)(CXDiagnostic)>(pg::g_fn[pg::k_clang_disposeDiagnostic])(a0);
}
void clang_disposeIndex(CXIndex a0) {
  reinterpret_cast<void (*)(CXIndex)>(pg::g_fn[pg::k_clang_disposeIndex])(a0);
}
void clang_disposeString(CXString a0) {
  reinterpret_cast<void (*)(CXString)>(pg::g_fn[pg::k_clang_disposeString])(a0);
}
void clang_disposeTokens(CXTranslationUnit a0, CXToken* a1, unsigned a2) {
  reinterpret_cast<void (*)(CXTranslationUnit, CXToken*, unsigned)>(
      pg::g_fn[pg::k_clang_disposeTokens])(a0, a1, a2);
}
void clang_disposeTranslationUnit(CXTranslationUnit a0) {
  reinterpret_cast<void (*)(CXTranslationUnit)>(pg::g_fn[pg::k_clang_disposeTranslationUnit])(a0);
}
CXString clang_formatDiagnostic(CXDiagnostic a0, unsigned a1) {
  return reinterpret_cast<CXString (*)(CXDiagnostic, unsigned)>(
      pg::g_fn[pg::k_clang_formatDiagnostic])(a0, a1);
}
const char* clang_getCString(CXString a0) {
  return reinterpret_cast<const char* (*)(CXString)>(pg::g_fn[pg::k_clang_getCString])(a0);
}
CXType clang_getArrayElementType(CXType a0) {
  return reinterpret_cast<CXType (*)(CXType)>(pg::g_fn[pg::k_clang_getArrayElementType])(a0);
}
CXType clang_getPointeeType(CXType a0) {
  return reinterpret_cast<CXType (*)(CXType)>(pg::g_fn[pg::k_clang_getPointeeType])(a0);
}
long long clang_Type_getSizeOf(CXType a0) {
  return reinterpret_cast<long long (*)(CXType)>(pg::g_fn[pg::k_clang_Type_getSizeOf])(a0);
}
CXType clang_getCanonicalType(CXType a0) {
  return reinterpret_cast<CXType (*)(CXType)>(pg::g_fn[pg::k_clang_getCanonicalType])(a0);
}
CXSourceRange clang_getCursorExtent(CXCursor a0) {
  return reinterpret_cast<CXSourceRange (*)(CXCursor)>(pg::g_fn[pg::k_clang_getCursorExtent])(a0);
}
enum CXCursorKind clang_getCursorKind(CXCursor a0) {
  return reinterpret_cast<enum CXCursorKind (*)(CXCursor)>(pg::g_fn[pg::k_clang_getCursorKind])(a0);
}
CXSourceLocation clang_getCursorLocation(CXCursor a0) {
  return reinterpret_cast<CXSourceLocation (*)(CXCursor)>(pg::g_fn[pg::k_clang_getCursorLocation])(
      a0);
}
CXCursor clang_getCursorReferenced(CXCursor a0) {
  return reinterpret_cast<CXCursor (*)(CXCursor)>(pg::g_fn[pg::k_clang_getCursorReferenced])(a0);
}
CXString clang_getCursorSpelling(CXCursor a0) {
  return reinterpret_cast<CXString (*)(CXCursor)>(pg::g_fn[pg::k_clang_getCursorSpelling])(a0);
}
CXType clang_getCursorType(CXCursor a0) {
  return reinterpret_cast<CXType (*)(CXCursor)>(pg::g_fn[pg::k_clang_getCursorType])(a0);
}
CXDiagnostic clang_getDiagnostic(CXTranslationUnit a0, unsigned a1) {
  return reinterpret_cast<CXDiagnostic (*)(CXTranslationUnit, unsigned)>(
      pg::g_fn[pg::k_clang_getDiagnostic])(a0, a1);
}
enum CXDiagnosticSeverity clang_getDiagnosticSeverity(CXDiagnostic a0) {
  return reinterpret_cast<enum CXDiagnosticSeverity (*)(CXDiagnostic)>(
      pg::g_fn[pg::k_clang_getDiagnosticSeverity])(a0);
}
void clang_getExpansionLocation(CXSourceLocation a0, CXFile* a1, unsigned* a2, unsigned* a3,
                                unsigned* a4) {
  reinterpret_cast<void (*)(CXSourceLocation, CXFile*, unsigned*, unsigned*, unsigned*)>(
      pg::g_fn[pg::k_clang_getExpansionLocation])(a0, a1, a2, a3, a4);
}
CXFile clang_getFile(CXTranslationUnit a0, const char* a1) {
  return reinterpret_cast<CXFile (*)(CXTranslationUnit, const char*)>(
      pg::g_fn[pg::k_clang_getFile])(a0, a1);
}
CXString clang_getFileName(CXFile a0) {
  return reinterpret_cast<CXString (*)(CXFile)>(pg::g_fn[pg::k_clang_getFileName])(a0);
}
void clang_getInclusions(CXTranslationUnit a0, CXInclusionVisitor a1, CXClientData a2) {
  reinterpret_cast<void (*)(CXTranslationUnit, CXInclusionVisitor, CXClientData)>(
      pg::g_fn[pg::k_clang_getInclusions])(a0, a1, a2);
}
unsigned clang_getNumDiagnostics(CXTranslationUnit a0) {
  return reinterpret_cast<unsigned (*)(CXTranslationUnit)>(pg::g_fn[pg::k_clang_getNumDiagnostics])(
      a0);
}
void clang_PrintingPolicy_dispose(CXPrintingPolicy a0) {
  reinterpret_cast<void (*)(CXPrintingPolicy)>(pg::g_fn[pg::k_clang_PrintingPolicy_dispose])(a0);
}
void clang_PrintingPolicy_setProperty(CXPrintingPolicy a0, enum CXPrintingPolicyProperty a1,
                                      unsigned a2) {
  reinterpret_cast<void (*)(CXPrintingPolicy, enum CXPrintingPolicyProperty, unsigned)>(
      pg::g_fn[pg::k_clang_PrintingPolicy_setProperty])(a0, a1, a2);
}
CXString clang_getCursorPrettyPrinted(CXCursor a0, CXPrintingPolicy a1) {
  return reinterpret_cast<CXString (*)(CXCursor, CXPrintingPolicy)>(
      pg::g_fn[pg::k_clang_getCursorPrettyPrinted])(a0, a1);
}
CXPrintingPolicy clang_getCursorPrintingPolicy(CXCursor a0) {
  return reinterpret_cast<CXPrintingPolicy (*)(CXCursor)>(
      pg::g_fn[pg::k_clang_getCursorPrintingPolicy])(a0);
}
CXSourceLocation clang_getLocationForOffset(CXTranslationUnit a0, CXFile a1, unsigned a2) {
  return reinterpret_cast<CXSourceLocation (*)(CXTranslationUnit, CXFile, unsigned)>(
      pg::g_fn[pg::k_clang_getLocationForOffset])(a0, a1, a2);
}
CXSourceRange clang_getRange(CXSourceLocation a0, CXSourceLocation a1) {
  return reinterpret_cast<CXSourceRange (*)(CXSourceLocation, CXSourceLocation)>(
      pg::g_fn[pg::k_clang_getRange])(a0, a1);
}
CXSourceLocation clang_getRangeEnd(CXSourceRange a0) {
  return reinterpret_cast<CXSourceLocation (*)(CXSourceRange)>(pg::g_fn[pg::k_clang_getRangeEnd])(
      a0);
}
CXSourceLocation clang_getRangeStart(CXSourceRange a0) {
  return reinterpret_cast<CXSourceLocation (*)(CXSourceRange)>(pg::g_fn[pg::k_clang_getRangeStart])(
      a0);
}
CXType clang_getResultType(CXType a0) {
  return reinterpret_cast<CXType (*)(CXType)>(pg::g_fn[pg::k_clang_getResultType])(a0);
}
CXCursor clang_getSpecializedCursorTemplate(CXCursor a0) {
  return reinterpret_cast<CXCursor (*)(CXCursor)>(
      pg::g_fn[pg::k_clang_getSpecializedCursorTemplate])(a0);
}
void clang_getSpellingLocation(CXSourceLocation a0, CXFile* a1, unsigned* a2, unsigned* a3,
                               unsigned* a4) {
  reinterpret_cast<void (*)(CXSourceLocation, CXFile*, unsigned*, unsigned*, unsigned*)>(
      pg::g_fn[pg::k_clang_getSpellingLocation])(a0, a1, a2, a3, a4);
}
enum CXCursorKind clang_getTemplateCursorKind(CXCursor a0) {
  return reinterpret_cast<enum CXCursorKind (*)(CXCursor)>(
      pg::g_fn[pg::k_clang_getTemplateCursorKind])(a0);
}
CXSourceLocation clang_getTokenLocation(CXTranslationUnit a0, CXToken a1) {
  return reinterpret_cast<CXSourceLocation (*)(CXTranslationUnit, CXToken)>(
      pg::g_fn[pg::k_clang_getTokenLocation])(a0, a1);
}
CXString clang_getTokenSpelling(CXTranslationUnit a0, CXToken a1) {
  return reinterpret_cast<CXString (*)(CXTranslationUnit, CXToken)>(
      pg::g_fn[pg::k_clang_getTokenSpelling])(a0, a1);
}
CXCursor clang_getTranslationUnitCursor(CXTranslationUnit a0) {
  return reinterpret_cast<CXCursor (*)(CXTranslationUnit)>(
      pg::g_fn[pg::k_clang_getTranslationUnitCursor])(a0);
}
CXString clang_getTranslationUnitSpelling(CXTranslationUnit a0) {
  return reinterpret_cast<CXString (*)(CXTranslationUnit)>(
      pg::g_fn[pg::k_clang_getTranslationUnitSpelling])(a0);
}
CXCursor clang_getTypeDeclaration(CXType a0) {
  return reinterpret_cast<CXCursor (*)(CXType)>(pg::g_fn[pg::k_clang_getTypeDeclaration])(a0);
}
CXString clang_getTypeSpelling(CXType a0) {
  return reinterpret_cast<CXString (*)(CXType)>(pg::g_fn[pg::k_clang_getTypeSpelling])(a0);
}
unsigned clang_isAttribute(enum CXCursorKind a0) {
  return reinterpret_cast<unsigned (*)(enum CXCursorKind)>(pg::g_fn[pg::k_clang_isAttribute])(a0);
}
unsigned clang_isConstQualifiedType(CXType a0) {
  return reinterpret_cast<unsigned (*)(CXType)>(pg::g_fn[pg::k_clang_isConstQualifiedType])(a0);
}
unsigned clang_isCursorDefinition(CXCursor a0) {
  return reinterpret_cast<unsigned (*)(CXCursor)>(pg::g_fn[pg::k_clang_isCursorDefinition])(a0);
}
unsigned clang_isDeclaration(enum CXCursorKind a0) {
  return reinterpret_cast<unsigned (*)(enum CXCursorKind)>(pg::g_fn[pg::k_clang_isDeclaration])(a0);
}
unsigned clang_isExpression(enum CXCursorKind a0) {
  return reinterpret_cast<unsigned (*)(enum CXCursorKind)>(pg::g_fn[pg::k_clang_isExpression])(a0);
}
enum CXErrorCode clang_parseTranslationUnit2FullArgv(CXIndex a0, const char* a1,
                                                     const char* const* a2, int a3,
                                                     struct CXUnsavedFile* a4, unsigned a5,
                                                     unsigned a6, CXTranslationUnit* a7) {
  return reinterpret_cast<enum CXErrorCode (*)(
      CXIndex, const char*, const char* const*, int, struct CXUnsavedFile*, unsigned, unsigned,
      CXTranslationUnit*)>(pg::g_fn[pg::k_clang_parseTranslationUnit2FullArgv])(a0, a1, a2, a3, a4,
                                                                                a5, a6, a7);
}
void clang_tokenize(CXTranslationUnit a0, CXSourceRange a1, CXToken** a2, unsigned* a3) {
  reinterpret_cast<void (*)(CXTranslationUnit, CXSourceRange, CXToken**, unsigned*)>(
      pg::g_fn[pg::k_clang_tokenize])(a0, a1, a2, a3);
}
unsigned clang_visitChildren(CXCursor a0, CXCursorVisitor a1, CXClientData a2) {
  return reinterpret_cast<unsigned (*)(CXCursor, CXCursorVisitor, CXClientData)>(
      pg::g_fn[pg::k_clang_visitChildren])(a0, a1, a2);
}
}  // extern "C"
