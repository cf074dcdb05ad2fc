// Tokenizer of the schema language and the formatting of parse errors (position, offending
// line, caret). The whole schema is tokenized up front: schemas are a line or two long.
#include "schema_lexer.hpp"

#include "backplane/core/error.hpp"

namespace bp::schema_detail {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}
int count_characters(std::string_view s) {
  int n = 0;
  for (char c : s) n += is_continuation_byte(c) ? 0 : 1;
  return n;
}
bool is_punct(char c) {
  return std::string_view("()[],*=?!.").find(c) != std::string_view::npos;
}

// Where the number that starts at `i` (a digit, or '-' and a digit) ends; `kind` becomes
// Float for a fraction ("1." and "1.5") or a complete exponent.
size_t number_end(std::string_view text, size_t i, TokenKind& kind) {
  const size_t n = text.size();
  ++i;
  while (i < n && is_digit(text[i])) ++i;
  if (i < n && text[i] == '.') {
    kind = TokenKind::Float;
    ++i;
    while (i < n && is_digit(text[i])) ++i;
  }
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    // Only a complete exponent belongs to the number; "1e" is 1 followed by "e".
    size_t j = i + 1;
    if (j < n && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < n && is_digit(text[j])) {
      kind = TokenKind::Float;
      i = j;
      while (i < n && is_digit(text[i])) ++i;
    }
  }
  return i;
}

// Where the string literal that opens at `i` stops: at its closing quote, or at the end of
// the line or text when it has none. A backslash escapes the next character on the line.
size_t string_end(std::string_view text, size_t i) {
  const size_t n = text.size();
  const char quote = text[i];
  ++i;
  while (i < n && text[i] != quote && text[i] != '\n') {
    i += (text[i] == '\\' && i + 1 < n && text[i + 1] != '\n') ? 2 : 1;
  }
  return i;
}

// End sits just after the last token, so "missing ')'" points at the end of the text the
// user wrote rather than at trailing blank lines.
Token end_token(const std::vector<Token>& tokens) {
  Token end;
  if (!tokens.empty()) {
    end = tokens.back();
    end.column += count_characters(end.text);
    end.offset += end.text.size();
  }
  end.kind = TokenKind::End;
  end.text = {};
  return end;
}

}  // namespace

std::string describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::End:
      return "end of input";
    case TokenKind::String:
      return fmt::format("string {}", token.text);
    case TokenKind::Invalid:
      if (token.text.front() == '\'' || token.text.front() == '"') {
        return fmt::format("unterminated string {}", token.text);
      }
      return fmt::format("'{}'", token.text);
    default:
      return fmt::format("'{}'", token.text);
  }
}

SchemaLexer::SchemaLexer(std::string_view text, std::string_view source)
    : text_(text), source_(source) {
  tokenize();
}

const Token& SchemaLexer::next() {
  const Token& token = tokens_[pos_];
  if (token.kind != TokenKind::End) ++pos_;
  return token;
}

bool SchemaLexer::accept(char punct) {
  if (!peek().is(punct)) return false;
  next();
  return true;
}

const Token& SchemaLexer::expect(char punct) {
  if (!peek().is(punct)) fail(peek(), fmt::format("expected '{}'", punct));
  return next();
}

Token SchemaLexer::make(TokenKind kind, size_t begin, size_t end) const {
  const int column = count_characters(text_.substr(line_start_, begin - line_start_)) + 1;
  return Token{kind, text_.substr(begin, end - begin), line_, column, begin, line_start_};
}

void SchemaLexer::tokenize() {
  const size_t n = text_.size();
  size_t i = 0;
  while (true) {
    while (i < n && is_space(text_[i])) {
      if (text_[i] == '\n') {
        ++line_;
        line_start_ = i + 1;
      }
      ++i;
    }
    if (i == n) break;
    const size_t begin = i;
    const char c = text_[i];
    const bool negative_number = c == '-' && i + 1 < n && is_digit(text_[i + 1]);
    if (is_ident_start(c)) {
      while (i < n && is_ident_char(text_[i])) ++i;
      tokens_.push_back(make(TokenKind::Ident, begin, i));
    } else if (is_digit(c) || negative_number) {
      TokenKind kind = TokenKind::Int;
      i = number_end(text_, i, kind);
      tokens_.push_back(make(kind, begin, i));
    } else if (c == '-' && i + 1 < n && text_[i + 1] == '>') {
      i += 2;
      tokens_.push_back(make(TokenKind::Arrow, begin, i));
    } else if (c == '\'' || c == '"') {
      i = string_end(text_, i);
      if (i < n && text_[i] == c) {
        tokens_.push_back(make(TokenKind::String, begin, i + 1));
        i += 1;
      } else {
        tokens_.push_back(make(TokenKind::Invalid, begin, i));
        break;  // the parser stops at the first Invalid token
      }
    } else if (is_punct(c)) {
      ++i;
      tokens_.push_back(make(TokenKind::Punct, begin, i));
    } else {
      // One character; a UTF-8 sequence is kept whole so the message prints it intact.
      ++i;
      if (static_cast<unsigned char>(c) >= 0xC0) {
        while (i < n && is_continuation_byte(text_[i])) ++i;
      }
      tokens_.push_back(make(TokenKind::Invalid, begin, i));
      break;
    }
  }
  tokens_.push_back(end_token(tokens_));
}

void SchemaLexer::fail(const Token& at, std::string_view expected, std::string_view hint) const {
  std::string_view line = text_.substr(at.line_start);
  line = line.substr(0, line.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // The caret line copies tabs from the offending line and has one space per other
  // character, so the caret stays under the token.
  std::string caret;
  for (size_t k = 0; k < at.offset - at.line_start && k < line.size(); ++k) {
    if (!is_continuation_byte(line[k])) caret += line[k] == '\t' ? '\t' : ' ';
  }
  caret += '^';
  std::string message =
      fmt::format("{} {}:{}: {} but found {}", source_, at.line, at.column, expected, describe(at));
  if (!hint.empty()) message += fmt::format(" ({})", hint);
  message += fmt::format("\n{}\n{}", line, caret);
  throw Error(ErrorCode::Parse, message);
}

}  // namespace bp::schema_detail
