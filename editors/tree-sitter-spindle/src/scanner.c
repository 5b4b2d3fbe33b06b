/*
 * External scanner of the Spindle grammar: what grammar.js cannot say on its own.
 *
 * Spindle's lexer (src/syntax/lexer.rs) and parser (src/syntax/parser/) have rules that
 * depend on context or count; this scanner reproduces each of them:
 *
 * 1. Layout. The bindings of a `where` clause, and the methods of an `interface` or
 *    `instance` after `where`, are one per line, all starting in the column of the
 *    first. The `where` token opens the block: the scanner looks past it for the first
 *    item and records its column (`_where_clause`; `_where_block`, or `_where_empty`
 *    when no method follows on a new line, as the parser's `layout_block`).
 *    In a `where` clause, a line that starts at that column begins the next binding
 *    (`_layout_sep`) and a line that starts further left ends the block
 *    (`_layout_end`), as does the end of the input; like the parser, the scanner
 *    applies this only where an expression could end (it emits a layout token only
 *    where the parser can take one), so layout is suspended inside brackets.
 *    In a block of methods, the parser ends the method at any line that starts at or
 *    left of the column, inside brackets too: there the scanner returns the next
 *    method's name (`_method_name`), `_layout_end`, or `_invalid_token` when the
 *    method is cut short (an error for Spindle too).
 *    At most one block is open at a time (a `where` clause belongs to a top-level
 *    `def`, methods to a top-level interface or instance), so the state is one column
 *    and one kind.
 *    The parser looks at no layout before the first arm of a `match`: `with` followed
 *    by no `|` and no pattern is a match without arms (`_no_arms`); where arms follow,
 *    no layout token can come, so an arm may start at the layout column.
 * 2. `Type` is always a keyword (`_type`), never a capitalised name.
 *    Words that are keywords in one place only: `total` at the start of a line before
 *    `def`; `record`, `interface`, `instance` at the start of a line before a
 *    capitalised name (maybe after `(`); `where` starting a line after a def's body, or
 *    after an interface or instance head; `deriving` after a data declaration.
 *    Elsewhere a `where` starting a line is an error (`_invalid_token`) where an
 *    expression, a constructor's fields or a declaration could end before it: Spindle's
 *    parser ends them there (outside brackets) and then finds no clause. It is a name
 *    where an operand or a binder must come, and before a closing bracket or a comma
 *    (inside brackets, as for Spindle).
 * 3. `-` directly before a digit is subtraction after an operand (`x -1` is `x - 1`) and
 *    part of a negative literal elsewhere: the scanner emits `_minus` where the parser
 *    accepts a binary operator, and otherwise leaves `-1` to the literal rules.
 * 4. Block comments `{- ... -}` nest.
 * 5. A malformed number literal (`12ab`, `0x`, `1_`, an `Int` beyond 64 bits, a float
 *    beyond the `Float` range), a `\u{...}` escape that is no Unicode scalar value, a
 *    universe level above 1000 (`Type 1001`) and a block comment never closed are
 *    errors for Spindle's lexer or parser: the scanner returns `_invalid_token`, which
 *    no rule accepts, so the tree has an ERROR node there (the grammar's own rules
 *    would split `12ab` into two tokens and accept it).
 *
 * Layout tokens have zero width and are placed right after the previous token (before
 * the whitespace and comments that follow it), so a block's node ends where its last
 * item ends. Whether a token starts a line counts line breaks inside block comments too,
 * as Spindle's lexer does.
 */

#include "tree_sitter/parser.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <wctype.h>

enum TokenType {
  LAYOUT_SEP,
  LAYOUT_END,
  MINUS,
  TOTAL,
  RECORD,
  INTERFACE,
  INSTANCE,
  WHERE_CLAUSE,
  WHERE_BLOCK,
  WHERE_EMPTY,
  NO_ARMS,
  DERIVING,
  TYPE,
  METHOD_NAME,
  BLOCK_COMMENT,
  INVALID_TOKEN,
  ERROR_SENTINEL,
};

/* What kind of layout block is open. */
enum BlockKind {
  BLOCK_NONE = 0,
  BLOCK_WHERE = 1,   /* bindings of a `where` clause */
  BLOCK_METHODS = 2, /* methods of an interface or instance */
};

typedef struct {
  uint8_t kind;      /* enum BlockKind */
  uint32_t column;   /* the block's column, when kind != BLOCK_NONE */
  /* Set when the last token returned was a block comment that started a line or held
   * a line break: the token right after it (at comment_end_column) starts a line. */
  uint8_t comment_newline;
  uint32_t comment_end_column;
} Scanner;

#define MAX_WORD 16

/* The next token after whitespace and comments, as far as layout needs it. */
typedef struct {
  bool eof;
  bool line_start;
  uint32_t column;
  int32_t first;          /* its first character */
  int32_t second;         /* the character after a '-' (for `-1`) */
  char word[MAX_WORD + 1]; /* its word, if it is a short word ("" otherwise) */
  bool decl_keyword;      /* it starts a declaration, as TokenKind::starts_declaration */
} Next;

static void advance(TSLexer *lexer) { lexer->advance(lexer, false); }
static void skip(TSLexer *lexer) { lexer->advance(lexer, true); }

static bool is_ident_start(int32_t c) { return c == '_' || iswalpha(c) || c > 127; }
static bool is_ident_continue(int32_t c) {
  return c == '_' || c == '\'' || iswalnum(c) || c > 127;
}

/* Reads a word into `out` (cut at MAX_WORD characters: then it is no keyword). */
static void read_word(TSLexer *lexer, char *out) {
  size_t n = 0;
  bool too_long = false;
  while (is_ident_continue(lexer->lookahead)) {
    if (n < MAX_WORD && lexer->lookahead < 128) {
      out[n++] = (char)lexer->lookahead;
    } else {
      too_long = true;
    }
    advance(lexer);
  }
  out[too_long ? 0 : n] = '\0';
}

static void skip_spaces(TSLexer *lexer) {
  while (lexer->lookahead == ' ' || lexer->lookahead == '\t') advance(lexer);
}

/* Keywords of lexer.rs `keyword` (always keywords), except `_`. */
static bool is_keyword(const char *w) {
  static const char *const words[] = {"let",  "in",   "def",    "data",   "match", "with",
                                      "if",   "then", "else",   "extern", "import", "Type"};
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
    if (strcmp(w, words[i]) == 0) return true;
  }
  return false;
}

/* After a word at the start of a line: whether it is the contextual keyword `total`,
 * `record`, `interface` or `instance` (lexer.rs `declaration_word`). Consumes input. */
static bool is_declaration_word(TSLexer *lexer, const char *w) {
  if (strcmp(w, "total") == 0) {
    skip_spaces(lexer);
    char next[MAX_WORD + 1];
    if (!is_ident_start(lexer->lookahead)) return false;
    read_word(lexer, next);
    return strcmp(next, "def") == 0;
  }
  if (strcmp(w, "record") == 0 || strcmp(w, "interface") == 0 ||
      strcmp(w, "instance") == 0) {
    skip_spaces(lexer);
    while (lexer->lookahead == '(') advance(lexer);
    return iswupper(lexer->lookahead);
  }
  return false;
}

/* Skips a block comment whose `{` was consumed and whose `-` is the lookahead; returns
 * whether it was closed, and sets *newline if it holds a line break. */
static bool skip_block_comment(TSLexer *lexer, bool *newline) {
  advance(lexer); /* the '-' */
  unsigned depth = 1;
  while (!lexer->eof(lexer)) {
    int32_t c = lexer->lookahead;
    advance(lexer);
    if (c == '{' && lexer->lookahead == '-') {
      advance(lexer);
      depth++;
    } else if (c == '-' && lexer->lookahead == '}') {
      advance(lexer);
      if (--depth == 0) return true;
    } else if (c == '\n') {
      *newline = true;
    }
  }
  return false;
}

/* Looks past whitespace and comments (already at a comment or a token) for the next
 * token, filling `next`. `line_start` says whether a line already started. */
static void look_ahead(TSLexer *lexer, bool line_start, Next *next) {
  for (;;) {
    int32_t c = lexer->lookahead;
    if (lexer->eof(lexer)) break;
    if (c == '\n') {
      line_start = true;
      advance(lexer);
    } else if (iswspace(c)) {
      advance(lexer);
    } else if (c == '-') {
      advance(lexer);
      if (lexer->lookahead != '-') {
        next->second = lexer->lookahead;
        next->eof = false;
        next->line_start = line_start;
        next->first = '-';
        next->word[0] = '\0';
        next->decl_keyword = false;
        /* Column of the '-': one before the current position. */
        next->column = lexer->get_column(lexer) - 1;
        return;
      }
      while (!lexer->eof(lexer) && lexer->lookahead != '\n') advance(lexer);
    } else if (c == '{') {
      uint32_t column = lexer->get_column(lexer);
      advance(lexer);
      if (lexer->lookahead == '-') {
        skip_block_comment(lexer, &line_start);
        continue;
      }
      next->eof = false;
      next->line_start = line_start;
      next->first = '{';
      next->word[0] = '\0';
      next->decl_keyword = false;
      next->column = column;
      return;
    } else {
      next->eof = false;
      next->line_start = line_start;
      next->first = c;
      next->column = lexer->get_column(lexer);
      next->word[0] = '\0';
      next->decl_keyword = false;
      if (is_ident_start(c)) {
        read_word(lexer, next->word);
        const char *w = next->word;
        next->decl_keyword = strcmp(w, "def") == 0 || strcmp(w, "data") == 0 ||
                             strcmp(w, "extern") == 0 || strcmp(w, "import") == 0 ||
                             (line_start && is_declaration_word(lexer, w));
      }
      return;
    }
  }
  next->eof = true;
  next->line_start = true;
  next->column = 0;
  next->first = 0;
  next->word[0] = '\0';
  next->decl_keyword = false;
}

/* Whether `next` can start a `where` binding (parser `where_clause`: a name or `_`,
 * not a keyword, not `where`, not a declaration). */
static bool starts_binding(const Next *next) {
  if (next->eof || !is_ident_start(next->first)) return false;
  if (next->word[0] == '\0') return true; /* a long name */
  if (strcmp(next->word, "_") == 0) return true;
  return !is_keyword(next->word) && !next->decl_keyword && strcmp(next->word, "where") != 0;
}

/* The layout token due before `next` inside an open block, or -1. */
static int layout_token(Scanner *s, const bool *valid, const Next *next) {
  if (s->kind == BLOCK_NONE) return -1;
  if (next->eof) {
    if (valid[LAYOUT_END]) {
      s->kind = BLOCK_NONE;
      return LAYOUT_END;
    }
    return -1;
  }
  if (!next->line_start || next->column > s->column) return -1;
  bool more = next->column == s->column &&
              (s->kind == BLOCK_WHERE ? starts_binding(next) : !next->decl_keyword);
  if (s->kind == BLOCK_METHODS) {
    /* A method starts with its name: a token of its own, so that no zero-width token
     * is due twice at one place. */
    if (more && valid[METHOD_NAME] && is_ident_start(next->first) &&
        strcmp(next->word, "_") != 0 && !is_keyword(next->word)) {
      return METHOD_NAME;
    }
    if (!more && valid[LAYOUT_END]) {
      s->kind = BLOCK_NONE;
      return LAYOUT_END;
    }
    /* Spindle's parser ends the method at such a line whatever it is parsing (inside
     * brackets too): a method cut short there, or no name, is an error. */
    return INVALID_TOKEN;
  }
  if (more && valid[LAYOUT_SEP]) return LAYOUT_SEP;
  if (!more && valid[LAYOUT_END]) {
    s->kind = BLOCK_NONE;
    return LAYOUT_END;
  }
  return -1;
}

/* Whether arms follow the `with` of a `match`: `|`, a token that starts a pattern, or
 * the end of the input (then the missing arm is the error); parser `match_start`. */
static bool arms_follow(const Next *next) {
  if (next->eof) return true;
  int32_t c = next->first;
  if (c == '|' || c == '"' || c == '\'' || c == '(' || c == '[' || c == '{') return true;
  if (iswdigit(c)) return true;
  if (c == '-') return iswdigit(next->second);
  if (!is_ident_start(c)) return false;
  if (next->word[0] == '\0') return true; /* a long name */
  if (strcmp(next->word, "_") == 0) return true;
  return !is_keyword(next->word) && !next->decl_keyword;
}

/* Checks the number literal starting at the lookahead (a digit; any `-` is consumed)
 * as lexer.rs `number` does: returns whether it is malformed or out of range. */
static bool malformed_number(TSLexer *lexer, bool negative) {
  char text[80];
  size_t n = 0;
  bool long_text = false;
#define PUSH(c)                               \
  do {                                        \
    if (n + 1 < sizeof(text)) {               \
      text[n++] = (char)(c);                  \
    } else {                                  \
      long_text = true;                       \
    }                                         \
  } while (0)
  bool hex = false, is_float = false;
  if (lexer->lookahead == '0') {
    advance(lexer);
    if (lexer->lookahead == 'x') {
      advance(lexer);
      hex = true;
    } else {
      PUSH('0');
    }
  }
  const char *body_start = text;
  size_t digits = 0;
  int32_t last = 0;
  if (hex) {
    while (iswxdigit(lexer->lookahead) || lexer->lookahead == '_') {
      last = lexer->lookahead;
      if (last != '_') {
        PUSH(last);
        digits++;
      }
      advance(lexer);
    }
    if (digits == 0 && last == 0) return true; /* `0x` without digits */
  } else {
    while (iswdigit(lexer->lookahead) || lexer->lookahead == '_') {
      last = lexer->lookahead;
      if (last != '_') PUSH(last);
      advance(lexer);
    }
    if (lexer->lookahead == '.') {
      advance(lexer);
      if (!iswdigit(lexer->lookahead)) {
        /* `1.` then something else: the literal ended before the dot. */
        goto check_int;
      }
      PUSH('.');
      is_float = true;
      while (iswdigit(lexer->lookahead) || lexer->lookahead == '_') {
        last = lexer->lookahead;
        if (last != '_') PUSH(last);
        advance(lexer);
      }
    }
    if (lexer->lookahead == 'e' || lexer->lookahead == 'E') {
      advance(lexer);
      bool sign = lexer->lookahead == '+' || lexer->lookahead == '-';
      int32_t sign_char = lexer->lookahead;
      if (sign) advance(lexer);
      if (iswdigit(lexer->lookahead)) {
        is_float = true;
        PUSH('e');
        if (sign) PUSH(sign_char);
        while (iswdigit(lexer->lookahead) || lexer->lookahead == '_') {
          last = lexer->lookahead;
          if (last != '_') PUSH(last);
          advance(lexer);
        }
      } else {
        /* `1e`, `1ex`, `1e-x`: letters glued to the number, an invalid literal. */
        return true;
      }
    }
  }
  if (is_ident_continue(lexer->lookahead)) return true; /* glued letters: `12ab` */
  if (last == '_') return true;                          /* `1_` */
  text[n] = '\0';
  if (long_text) return false; /* not checked: let the grammar read it */
  if (is_float) {
    double x = strtod(body_start, NULL);
    return isinf(x);
  }
check_int:
  text[n] = '\0';
  if (long_text) return false;
  {
    /* Whether the magnitude fits: up to 2^63 - 1, or 2^63 when negative. */
    unsigned long long value = 0, limit = negative ? 9223372036854775808ULL
                                                   : 9223372036854775807ULL;
    unsigned base = hex ? 16 : 10;
    for (size_t i = 0; i < n; i++) {
      char c = text[i];
      unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                                          : (unsigned)(c - 'A' + 10);
      if (value > (limit - d) / base) return true;
      value = value * base + d;
    }
  }
  return false;
#undef PUSH
}

/* Checks a string or character literal whose opening quote `quote` is the lookahead,
 * for what the grammar's regular expressions let through: a `\u{...}` escape that is
 * no Unicode scalar value (a surrogate, or above 10FFFF). Returns whether it has one. */
static bool bad_unicode_escape(TSLexer *lexer, int32_t quote) {
  advance(lexer);
  while (!lexer->eof(lexer) && lexer->lookahead != quote) {
    if (quote == '\'' && lexer->lookahead == '\n') return false;
    if (lexer->lookahead != '\\') {
      advance(lexer);
      continue;
    }
    advance(lexer);
    if (lexer->lookahead != 'u') {
      if (!lexer->eof(lexer)) advance(lexer);
      continue;
    }
    advance(lexer);
    if (lexer->lookahead != '{') continue;
    advance(lexer);
    unsigned long value = 0;
    int digits = 0;
    while (iswxdigit(lexer->lookahead) && digits < 7) {
      int32_t c = lexer->lookahead;
      value = value * 16 + (unsigned long)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
      digits++;
      advance(lexer);
    }
    if (digits >= 1 && digits <= 6 && lexer->lookahead == '}' &&
        (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))) {
      return true;
    }
  }
  return false;
}

/* After the word `Type`: whether a universe level follows that is above 1000 (parser
 * `universe`). Consumes the input up to the end of the level. */
static bool universe_out_of_range(TSLexer *lexer) {
  while (iswspace(lexer->lookahead)) advance(lexer);
  if (!iswdigit(lexer->lookahead)) return false;
  unsigned long long level = 0;
  bool hex = false;
  if (lexer->lookahead == '0') {
    advance(lexer);
    if (lexer->lookahead == 'x') {
      advance(lexer);
      hex = true;
    }
  }
  while (iswxdigit(lexer->lookahead) || lexer->lookahead == '_') {
    int32_t c = lexer->lookahead;
    if (!hex && !iswdigit(c)) break;
    if (c != '_') {
      unsigned d = (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
      if (level <= 1000000) level = level * (hex ? 16 : 10) + d;
    }
    advance(lexer);
  }
  return level > 1000;
}

static bool finish(TSLexer *lexer, Scanner *s, int token) {
  lexer->result_symbol = (TSSymbol)token;
  s->comment_newline = 0;
  return true;
}

/* Lexes a block comment whose `{` is consumed; `line_start` says whether it starts a
 * line. Records for the next token whether it starts a line. */
static bool block_comment(TSLexer *lexer, Scanner *s, bool line_start) {
  bool newline = line_start;
  bool closed = skip_block_comment(lexer, &newline);
  lexer->mark_end(lexer);
  if (!closed) {
    /* Unterminated: the rest of the input is one token that no rule accepts. */
    lexer->result_symbol = INVALID_TOKEN;
    s->comment_newline = 0;
    return true;
  }
  lexer->result_symbol = BLOCK_COMMENT;
  s->comment_newline = newline;
  s->comment_end_column = newline ? lexer->get_column(lexer) : 0;
  return true;
}

static bool scan(Scanner *s, TSLexer *lexer, const bool *valid) {
  if (valid[ERROR_SENTINEL]) {
    /* Error recovery: every token is "valid"; only comments are lexed here. */
    while (iswspace(lexer->lookahead)) skip(lexer);
    if (lexer->lookahead == '{') {
      advance(lexer);
      if (lexer->lookahead == '-') return block_comment(lexer, s, false);
    }
    return false;
  }

  /* Zero-width tokens end here, right after the previous token. */
  lexer->mark_end(lexer);

  bool newline = false;
  uint32_t skipped = 0;
  while (iswspace(lexer->lookahead)) {
    if (lexer->lookahead == '\n') {
      newline = true;
      skipped = 0;
    } else {
      skipped++;
    }
    skip(lexer);
  }

  bool layout_wanted = s->kind == BLOCK_METHODS ||
                       (s->kind == BLOCK_WHERE && (valid[LAYOUT_SEP] || valid[LAYOUT_END]));

  if (lexer->eof(lexer)) {
    if (!layout_wanted) return false;
    Next next = {.eof = true, .line_start = true};
    int token = layout_token(s, valid, &next);
    return token >= 0 && finish(lexer, s, token);
  }

  /* Whether the token here starts a line: a line break before it (maybe inside the
   * block comment just returned), or only whitespace since the start of the line. */
  int32_t c = lexer->lookahead;
  uint32_t column = lexer->get_column(lexer);
  bool line_start = newline || column == skipped ||
                    (s->comment_newline && column - skipped == s->comment_end_column);

  if (c == '{') {
    advance(lexer);
    if (lexer->lookahead == '-') {
      /* A block comment: what comes after it is decided at the token after it. */
      return block_comment(lexer, s, line_start);
    }
    /* A `{`: it starts a pattern, so it is no `_no_arms`. */
    if (layout_wanted) {
      Next next = {.eof = false, .line_start = line_start, .column = column, .first = '{'};
      int token = layout_token(s, valid, &next);
      if (token >= 0) return finish(lexer, s, token);
    }
    return false;
  }

  if (valid[NO_ARMS]) {
    /* Right after `with`: no layout token can come here (the match is unfinished). */
    Next next;
    look_ahead(lexer, line_start, &next);
    /* In a block of methods, a line at or left of its column ends the method first. */
    bool cut = s->kind == BLOCK_METHODS && next.line_start && next.column <= s->column;
    return (cut || !arms_follow(&next)) && finish(lexer, s, NO_ARMS);
  }

  if (c == '-') {
    advance(lexer);
    if (lexer->lookahead != '-') {
      if (layout_wanted) {
        Next next = {.eof = false, .line_start = line_start, .column = column, .first = '-'};
        int token = layout_token(s, valid, &next);
        if (token >= 0) return finish(lexer, s, token);
      }
      if (valid[MINUS] && lexer->lookahead != '>' && lexer->lookahead != '}') {
        lexer->mark_end(lexer);
        return finish(lexer, s, MINUS);
      }
      if (iswdigit(lexer->lookahead) && malformed_number(lexer, true)) {
        lexer->mark_end(lexer);
        return finish(lexer, s, INVALID_TOKEN);
      }
      return false;
    }
    /* A line comment (lexed by the grammar), then the token that decides the layout:
     * a layout token goes before the comment. */
    if (!layout_wanted) return false;
    while (!lexer->eof(lexer) && lexer->lookahead != '\n') advance(lexer);
    Next next;
    look_ahead(lexer, line_start, &next);
    int token = layout_token(s, valid, &next);
    /* A method's name is lexed when the scanner reaches it. */
    return token >= 0 && token != METHOD_NAME && finish(lexer, s, token);
  }

  if (!is_ident_start(c)) {
    if (layout_wanted) {
      Next next = {.eof = false, .line_start = line_start, .column = column, .first = c};
      int token = layout_token(s, valid, &next);
      if (token >= 0) return finish(lexer, s, token);
    }
    if ((iswdigit(c) && malformed_number(lexer, false)) ||
        ((c == '"' || c == '\'') && bad_unicode_escape(lexer, c))) {
      lexer->mark_end(lexer);
      return finish(lexer, s, INVALID_TOKEN);
    }
    return false;
  }

  /* A word. */
  Next next = {.eof = false, .line_start = line_start, .column = column, .first = c};
  read_word(lexer, next.word);
  const char *w = next.word;
  bool contextual = strcmp(w, "total") == 0 || strcmp(w, "record") == 0 ||
                    strcmp(w, "interface") == 0 || strcmp(w, "instance") == 0;

  if (layout_wanted && line_start && column <= s->column) {
    next.decl_keyword = strcmp(w, "def") == 0 || strcmp(w, "data") == 0 ||
                        strcmp(w, "extern") == 0 || strcmp(w, "import") == 0;
    if (contextual && column == s->column) {
      /* Whether the block goes on needs the input after the word. In a block of
       * methods the word is taken as the next method's name (`total x = ...`): a
       * declaration indented to the block's column there is refused. */
      if (s->kind == BLOCK_METHODS) lexer->mark_end(lexer);
      next.decl_keyword = is_declaration_word(lexer, w);
      int token = layout_token(s, valid, &next);
      if (s->kind == BLOCK_METHODS && token != METHOD_NAME) token = INVALID_TOKEN;
      return token >= 0 && finish(lexer, s, token);
    }
    int token = layout_token(s, valid, &next);
    if (token == METHOD_NAME) lexer->mark_end(lexer);
    if (token >= 0) return finish(lexer, s, token);
  }

  if (strcmp(w, "Type") == 0) {
    /* Always the keyword: the grammar's capitalised names would take it otherwise
     * where a universe cannot stand (`(a Type)`). */
    lexer->mark_end(lexer);
    if (universe_out_of_range(lexer)) {
      lexer->mark_end(lexer);
      return finish(lexer, s, INVALID_TOKEN);
    }
    return finish(lexer, s, TYPE);
  }
  if (strcmp(w, "where") == 0) {
    bool clause = line_start && valid[WHERE_CLAUSE];
    bool block = valid[WHERE_BLOCK] || valid[WHERE_EMPTY];
    if (!clause && !block) {
      /* A `where` starting a line ends what comes before it for Spindle's parser (an
       * expression, a constructor's fields, a declaration's parameters), outside
       * brackets, and only a `where` clause may follow. Where one of those could end
       * here (a binary operator, `deriving` or the end of the declaration may come)
       * but no clause can follow, it is an error, not one more argument, field or
       * parameter named `where`. Elsewhere (a binder, an operand after an operator or
       * `in`) it is a name, as for Spindle.
       * Inside brackets Spindle takes it as a name wherever it is; the scanner cannot
       * see brackets, but a closing bracket or a comma right after the word shows one
       * open (outside brackets that token is an error of its own), so the word is a
       * name then. */
      if (line_start && (valid[MINUS] || valid[DERIVING] || valid[LAYOUT_END])) {
        lexer->mark_end(lexer);
        Next after;
        look_ahead(lexer, false, &after);
        int32_t a = after.first;
        bool closes = !after.eof && (a == ')' || a == ']' || a == '}' || a == ',');
        if (!closes) return finish(lexer, s, INVALID_TOKEN);
      }
      return false;
    }
    lexer->mark_end(lexer);
    Next item;
    look_ahead(lexer, false, &item);
    if (clause) {
      /* The first binding, on this line or the next (parser `where_clause`). */
      if (starts_binding(&item) && !(item.line_start && item.decl_keyword)) {
        s->kind = BLOCK_WHERE;
        s->column = item.column;
      }
      return finish(lexer, s, WHERE_CLAUSE);
    }
    /* Methods follow when the next token starts a line right of column 0 (parser
     * `layout_block`). */
    if (!item.eof && item.line_start && item.column > 0 && !item.decl_keyword) {
      s->kind = BLOCK_METHODS;
      s->column = item.column;
      return finish(lexer, s, WHERE_BLOCK);
    }
    return finish(lexer, s, WHERE_EMPTY);
  }
  if (strcmp(w, "deriving") == 0) {
    if (valid[DERIVING]) {
      lexer->mark_end(lexer);
      return finish(lexer, s, DERIVING);
    }
    return false;
  }
  if (contextual && line_start) {
    lexer->mark_end(lexer);
    int token = strcmp(w, "total") == 0    ? TOTAL
                : strcmp(w, "record") == 0 ? RECORD
                : strcmp(w, "interface") == 0 ? INTERFACE
                                              : INSTANCE;
    if (is_declaration_word(lexer, w)) return finish(lexer, s, token);
  }
  return false;
}

void *tree_sitter_spindle_external_scanner_create(void) {
  Scanner *s = (Scanner *)calloc(1, sizeof(Scanner));
  return s;
}

void tree_sitter_spindle_external_scanner_destroy(void *payload) { free(payload); }

unsigned tree_sitter_spindle_external_scanner_serialize(void *payload, char *buffer) {
  Scanner *s = (Scanner *)payload;
  buffer[0] = (char)s->kind;
  buffer[1] = (char)s->comment_newline;
  memcpy(buffer + 2, &s->column, sizeof(uint32_t));
  memcpy(buffer + 6, &s->comment_end_column, sizeof(uint32_t));
  return 10;
}

void tree_sitter_spindle_external_scanner_deserialize(void *payload, const char *buffer,
                                                      unsigned length) {
  Scanner *s = (Scanner *)payload;
  memset(s, 0, sizeof(Scanner));
  if (length >= 10) {
    s->kind = (uint8_t)buffer[0];
    s->comment_newline = (uint8_t)buffer[1];
    memcpy(&s->column, buffer + 2, sizeof(uint32_t));
    memcpy(&s->comment_end_column, buffer + 6, sizeof(uint32_t));
  }
}

bool tree_sitter_spindle_external_scanner_scan(void *payload, TSLexer *lexer,
                                               const bool *valid_symbols) {
  return scan((Scanner *)payload, lexer, valid_symbols);
}
