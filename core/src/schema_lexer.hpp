// Tokens of the schema language and the error reporting shared by the schema parser.
// Internal to core: the lexer never throws; a character it cannot read becomes an Invalid
// token, so every error goes through SchemaLexer::fail and reads "expected X but found Y"
// at the position where the parser stopped. Not thread-safe (one lexer per parse).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bp::schema_detail {

enum class TokenKind {
  Ident,    // Tensor, self, None, True
  Int,      // 0, -1
  Float,    // 1e-05, -0.5, 1.
  String,   // 'none' or "none", text keeps the quotes and escapes
  Punct,    // one of ( ) [ ] , * = ? ! .
  Arrow,    // ->
  Invalid,  // a character outside the language, or an unterminated string
  End,
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;  // a view into the schema text
  int line = 1;           // 1-based
  int column = 1;         // 1-based, in characters (UTF-8 code points), as editors count
  size_t offset = 0;      // byte offset of the token in the schema text
  size_t line_start = 0;  // byte offset of the first character of `line`

  bool is(char punct) const {
    return kind == TokenKind::Punct && text.size() == 1 && text[0] == punct;
  }
  bool is_ident(std::string_view word) const { return kind == TokenKind::Ident && text == word; }
};

// How a token is named in messages: "','", "'Tensr'", "end of input".
std::string describe(const Token& token);

class SchemaLexer {
 public:
  SchemaLexer(std::string_view text, std::string_view source);

  const Token& peek() const { return tokens_[pos_]; }
  // Returns the current token and advances (End repeats forever).
  const Token& next();
  // Consumes the current token if it is `punct`.
  bool accept(char punct);
  // Consumes `punct` or fails with "expected '<punct>'".
  const Token& expect(char punct);

  // Throws bp::Error(Parse): "<source> <line>:<column>: <expected> but found <token>",
  // then " (<hint>)" when a hint is given, then the offending line and a caret under `at`.
  [[noreturn]] void fail(const Token& at, std::string_view expected,
                         std::string_view hint = {}) const;

 private:
  void tokenize();
  Token make(TokenKind kind, size_t begin, size_t end) const;

  std::string_view text_;
  std::string_view source_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  // Position bookkeeping while tokenizing.
  int line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace bp::schema_detail
