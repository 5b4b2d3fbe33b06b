/**
 * @file Tree-sitter grammar for Spindle, the typed lazy workflow language (`.sp`).
 *
 * The authority is Spindle's own parser (src/syntax/lexer.rs and src/syntax/parser/);
 * this grammar follows it rule by rule, and tests/tree_sitter.rs checks that both agree
 * on every `.sp` file of the repository (no ERROR node where Spindle parses, one where
 * it refuses, the same declaration boundaries).
 *
 * What a context-free grammar cannot say is done by the external scanner
 * (src/scanner.c):
 *
 * - layout: the bindings of a `where` clause and the methods of an `interface` /
 *   `instance` block are one per line, all in the column of the first; the scanner
 *   opens the block at its `where` (`_where_block` when methods follow on the next lines,
 *   `_where_empty` when none do) and emits zero-width `_layout_sep` and `_layout_end`
 *   tokens (outside brackets only, as the parser suspends layout inside them);
 * - words that are keywords only in one place: `total` before `def`, `record`,
 *   `interface` and `instance` at the start of a line before a capitalised name,
 *   `where` starting a line after a def's body (or after an interface/instance head),
 *   `deriving` after a data declaration; a `where` starting a line where no clause
 *   can follow but what comes before could end is an error (`_invalid_token`);
 * - `-` before a digit: subtraction after an operand (`x -1` is `x - 1`), part of a
 *   negative literal elsewhere (`f (-1)`);
 * - nested block comments `{- {- -} -}`.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const PREC = {
  open: -2, // lambda, let, if, match: extend as far right as possible
  arrow: -1, // `->`, `=>` (right-associative)
  or: 1,
  and: 2,
  compare: 3,
  concat: 4, // `++`, `::`
  add: 5,
  mul: 6,
  pow: 7,
  app: 8,
  field: 9,
};

/** Letters, as Spindle's `char::is_alphabetic` (approximated by Unicode categories). */
const LOWER_START = '[\\p{Ll}\\p{Lt}\\p{Lm}\\p{Lo}\\p{Nl}_]';
const UPPER_START = '\\p{Lu}';
const IDENT_CONTINUE = "[\\p{L}\\p{Nl}\\p{Mn}\\p{Mc}\\p{Nd}\\p{No}_']";

/**
 * One or more `rule`s separated by `sep`.
 * @param {RuleOrLiteral} rule
 * @param {RuleOrLiteral} sep
 */
function sep1(rule, sep) {
  return seq(rule, repeat(seq(sep, rule)));
}

module.exports = grammar({
  name: 'spindle',

  word: $ => $.identifier,

  externals: $ => [
    $._layout_sep, // zero width: a new line at the layout column
    $._layout_end, // zero width: a line left of the layout column, or the end
    $._minus, // `-` as subtraction (after an operand)
    $._total, // `total` at the start of a line, before `def`
    $._record, // `record` at the start of a line, before a capitalised name
    $._interface, // likewise `interface`
    $._instance, // likewise `instance`
    $._where_clause, // `where` starting a line after a def's body (opens the block)
    $._where_block, // `where` after an interface or instance head, methods follow
    $._where_empty, // `where` after an interface or instance head, no methods follow
    $._no_arms, // zero width: a `match` with no arms (`with`, then no `|` nor pattern)
    $._deriving, // `deriving` after a data or record declaration
    $._type, // `Type`, always a keyword (never a capitalised name)
    $._method_name, // the name starting a method, at the column of its block
    $.block_comment, // `{- ... -}`, nesting
    $._invalid_token, // never valid: a malformed literal or an unclosed block comment
    $._error_sentinel, // never valid: tells the scanner the parser is recovering
  ],

  extras: $ => [/\s/, $.line_comment, $.block_comment],

  reserved: {
    global: _ => [
      'let', 'in', 'def', 'data', 'match', 'with', 'if', 'then', 'else', 'extern',
      'import',
    ],
  },

  supertypes: $ => [$._declaration, $._expression, $._pattern],

  // `{ x` at the start of an arrow segment is a binder `{x : A} ->` or a record update
  // `{ x | f = e }`: the update's record is a name of its own rule (`_update_record`),
  // so the token after the name decides without a conflict.

  rules: {
    // A layout block's `_layout_end` stands between declarations, outside the
    // declaration it closes: so a declaration ends with its last token, and comments
    // between two declarations belong to neither.
    source_file: $ => seq(
      optional($.shebang),
      repeat(choice($._declaration, $._layout_end)),
    ),

    shebang: _ => token(seq('#!', /[^\n]*/)),

    line_comment: _ => token(seq('--', /[^\n]*/)),

    // ----------------------------------------------------------------- declarations

    _declaration: $ => choice(
      $.import_declaration,
      $.extern_declaration,
      $.def_declaration,
      $.data_declaration,
      $.record_declaration,
      $.interface_declaration,
      $.instance_declaration,
    ),

    import_declaration: $ => seq('import', field('path', $.string)),

    extern_declaration: $ => seq(
      'extern',
      field('name', $._name),
      ':',
      field('type', $._expression),
    ),

    def_declaration: $ => seq(
      optional(field('total', alias($._total, 'total'))),
      'def',
      field('name', $._name),
      repeat(field('parameter', $._parameter)),
      optional(seq(':', field('type', $._expression))),
      '=',
      field('body', $._expression),
      optional(field('where', $.where_clause)),
    ),

    where_clause: $ => seq(
      alias($._where_clause, 'where'),
      sep1($.binding, $._layout_sep),
    ),

    /** `name params : T = e`, as in a `where` clause or a `let`. */
    binding: $ => seq(
      field('name', $._binder),
      repeat(field('parameter', $._parameter)),
      optional(seq(':', field('type', $._expression))),
      '=',
      field('value', $._expression),
    ),

    data_declaration: $ => seq(
      'data',
      field('name', $.upper_identifier),
      repeat(field('parameter', $._parameter)),
      // Without `=`, a `deriving` would be a parameter's name (as in Spindle).
      optional(seq(
        '=',
        optional('|'),
        sep1(field('constructor', $.constructor_declaration), '|'),
        optional(field('deriving', $.deriving_clause)),
      )),
    ),

    constructor_declaration: $ => seq(
      field('name', $.upper_identifier),
      repeat(field('field', $._field_type)),
    ),

    /** A constructor's field: an atom without braces. */
    _field_type: $ => choice($._primary, alias($.field_type_access, $.field_access)),

    field_type_access: $ => prec(PREC.field, seq(
      field('record', $._field_type),
      '.',
      field('field', $._name),
    )),

    deriving_clause: $ => seq(
      alias($._deriving, 'deriving'),
      choice(
        field('interface', $._name),
        seq('(', sep1(field('interface', $._name), ','), ')'),
      ),
    ),

    record_declaration: $ => seq(
      alias($._record, 'record'),
      field('name', $.upper_identifier),
      repeat(field('parameter', $._parameter)),
      '=',
      '{',
      optional(sep1(field('field', $.field_declaration), ',')),
      '}',
      optional(field('deriving', $.deriving_clause)),
    ),

    field_declaration: $ => seq(
      field('name', $.identifier),
      ':',
      field('type', $._expression),
    ),

    interface_declaration: $ => seq(
      alias($._interface, 'interface'),
      field('name', $.upper_identifier),
      repeat1(field('parameter', $._parameter)),
      optional(choice(
        seq(
          alias($._where_block, 'where'),
          // Each method starts a line at the block's column, with its name.
          repeat1(field('method', $.method_signature)),
        ),
        alias($._where_empty, 'where'),
      )),
    ),

    method_signature: $ => seq(
      field('name', alias($._method_name, $.identifier)),
      ':',
      field('type', $._expression),
    ),

    instance_declaration: $ => seq(
      alias($._instance, 'instance'),
      optional(seq(field('constraint', $._instance_type), '=>')),
      field('head', $._instance_type),
      optional(choice(
        seq(
          alias($._where_block, 'where'),
          // Each method starts a line at the block's column, with its name.
          repeat1(field('method', $.method_definition)),
        ),
        alias($._where_empty, 'where'),
      )),
    ),

    /** An interface applied to types: atoms applied to atoms, up to `=>` or `where`. */
    _instance_type: $ => choice($._field_type, alias($.instance_application, $.application)),

    instance_application: $ => prec.left(PREC.app, seq(
      field('function', $._instance_type),
      field('argument', $._field_type),
    )),

    method_definition: $ => seq(
      field('name', alias($._method_name, $.identifier)),
      repeat(field('parameter', $._parameter)),
      '=',
      field('body', $._expression),
    ),

    // ------------------------------------------------------------------- parameters

    _parameter: $ => choice($._binder, $.explicit_parameters, $.implicit_parameters),

    _binder: $ => choice($.identifier, $.upper_identifier, $.wildcard),

    /** `(x y : A)` or `(x)`. */
    explicit_parameters: $ => seq(
      '(',
      repeat1(field('name', $._binder)),
      optional(seq(':', field('type', $._expression))),
      ')',
    ),

    /** `{a b : Type}` or `{a}`. */
    implicit_parameters: $ => seq(
      '{',
      repeat1(field('name', $._binder)),
      optional(seq(':', field('type', $._expression))),
      '}',
    ),

    // ------------------------------------------------------------------ expressions

    _expression: $ => choice(
      $._operand_expression,
      $._open_expression,
      $.function_type,
      $.constrained_type,
    ),

    /** `A -> B`, `(x : A) -> B`, `{a : Type} (x : a) -> B`. */
    function_type: $ => prec.right(PREC.arrow, seq(
      field('domain', choice($._operand_expression, $.telescope)),
      '->',
      field('codomain', $._expression),
    )),

    /** `Show a => a -> String`, `(Eq a, Show a) => ...`. */
    constrained_type: $ => prec.right(PREC.arrow, seq(
      field('constraint', $._operand_expression),
      '=>',
      field('body', $._expression),
    )),

    /**
     * Binders in braces (and parentheses after them) at the start of an arrow, each
     * with its type: `{a : Type} (x : a) ->`.
     */
    telescope: $ => seq(
      alias($.typed_implicit_parameters, $.implicit_parameters),
      repeat(choice(
        alias($.typed_implicit_parameters, $.implicit_parameters),
        alias($.typed_explicit_parameters, $.explicit_parameters),
      )),
    ),

    typed_implicit_parameters: $ => seq(
      '{',
      repeat1(field('name', $._binder)),
      ':',
      field('type', $._expression),
      '}',
    ),

    typed_explicit_parameters: $ => seq(
      '(',
      repeat1(field('name', $._binder)),
      ':',
      field('type', $._expression),
      ')',
    ),

    /**
     * Everything but arrows and the open-ended forms: the binary operators, one level
     * per precedence (LANGUAGE.md 3, docs/syntax.md 1), applications and atoms. The
     * last operand may be a lambda, `let`, `if` or `match`, which extends to the right.
     * Every level's node is a `binary_expression`.
     */
    _operand_expression: $ => $._or_level,

    _or_level: $ => choice(alias($.or_expression, $.binary_expression), $._and_level),
    or_expression: $ => prec(PREC.or, seq(
      field('left', $._and_level),
      field('operator', '||'),
      field('right', choice($._or_level, $._open_expression)),
    )),

    _and_level: $ => choice(alias($.and_expression, $.binary_expression), $._compare_level),
    and_expression: $ => prec(PREC.and, seq(
      field('left', $._compare_level),
      field('operator', '&&'),
      field('right', choice($._and_level, $._open_expression)),
    )),

    // Comparisons do not chain: `a < b < c` is refused, as by Spindle.
    _compare_level: $ => choice(alias($.comparison, $.binary_expression), $._concat_level),
    comparison: $ => prec(PREC.compare, seq(
      field('left', $._concat_level),
      field('operator', choice('==', '!=', '<', '<=', '>', '>=')),
      field('right', choice($._concat_level, $._open_expression)),
    )),

    _concat_level: $ => choice(alias($.concat_expression, $.binary_expression), $._add_level),
    concat_expression: $ => prec(PREC.concat, seq(
      field('left', $._add_level),
      field('operator', choice('++', '::')),
      field('right', choice($._concat_level, $._open_expression)),
    )),

    _add_level: $ => choice(alias($.add_expression, $.binary_expression), $._mul_level),
    add_expression: $ => prec(PREC.add, seq(
      field('left', $._add_level),
      field('operator', choice('+', alias($._minus, '-'))),
      field('right', choice($._mul_level, $._open_expression)),
    )),

    _mul_level: $ => choice(alias($.mul_expression, $.binary_expression), $._pow_level),
    mul_expression: $ => prec(PREC.mul, seq(
      field('left', $._mul_level),
      field('operator', choice('*', '/', '%')),
      field('right', choice($._pow_level, $._open_expression)),
    )),

    _pow_level: $ => choice(alias($.pow_expression, $.binary_expression), $._app_level),
    pow_expression: $ => prec(PREC.pow, seq(
      field('left', $._app_level),
      field('operator', '^'),
      field('right', choice($._pow_level, $._open_expression)),
    )),

    _app_level: $ => choice($.application, $._atom),

    /** `f x {A} y`, whose last argument may be an open-ended form (`f x \y -> y`). */
    application: $ => prec.left(PREC.app, seq(
      field('function', choice($.application, $._atom)),
      field('argument', choice($._atom, $.implicit_argument, $._open_expression)),
    )),

    /** `{A}` or `{e : T}` supplying an implicit argument. */
    implicit_argument: $ => seq(
      '{',
      field('value', $._expression),
      optional(seq(':', field('type', $._expression))),
      '}',
    ),

    _open_expression: $ => choice(
      $.lambda,
      $.let_expression,
      $.if_expression,
      $.match_expression,
    ),

    lambda: $ => prec.right(PREC.open, seq(
      '\\',
      repeat1(field('parameter', $._parameter)),
      '->',
      field('body', $._expression),
    )),

    let_expression: $ => prec.right(PREC.open, seq(
      'let',
      field('binding', $.binding),
      'in',
      field('body', $._expression),
    )),

    if_expression: $ => prec.right(PREC.open, seq(
      'if',
      field('condition', $._expression),
      'then',
      field('consequence', $._expression),
      'else',
      field('alternative', $._expression),
    )),

    match_expression: $ => prec.right(PREC.open, seq(
      'match',
      field('scrutinee', $._expression),
      'with',
      choice(
        seq(optional('|'), sep1(field('arm', $.match_arm), '|')),
        $._no_arms,
      ),
    )),

    match_arm: $ => prec.right(PREC.open, seq(
      field('pattern', $._pattern),
      optional(seq('if', field('guard', $._operand_expression))),
      '->',
      field('body', $._expression),
    )),

    // ------------------------------------------------------------------------ atoms

    _atom: $ => choice(
      $._primary,
      $.field_access,
      $.record_expression,
      $.record_update,
    ),

    _primary: $ => choice(
      $.identifier,
      $.upper_identifier,
      $.integer,
      $.float,
      $.string,
      $.char,
      $.wildcard,
      $.hole,
      $.universe,
      $.unit,
      $.parenthesized_expression,
      $.annotation,
      $.tuple,
      $.list,
    ),

    /** `s.name`, binding tighter than application. */
    field_access: $ => prec(PREC.field, seq(
      field('record', $._atom),
      '.',
      field('field', $._name),
    )),

    /** `Type` or `Type n`. */
    universe: $ => prec.right(seq(
      alias($._type, 'Type'),
      optional(field('level', $.integer)),
    )),

    unit: _ => seq('(', ')'),

    parenthesized_expression: $ => seq('(', $._expression, ')'),

    annotation: $ => seq(
      '(',
      field('expression', $._expression),
      ':',
      field('type', $._expression),
      ')',
    ),

    tuple: $ => seq(
      '(',
      $._expression,
      repeat1(seq(',', $._expression)),
      ')',
    ),

    list: $ => seq('[', optional(sep1($._expression, ',')), ']'),

    /** `{ name = e, ... }` or `{}`. */
    record_expression: $ => seq(
      '{',
      optional(sep1(field('field', $.field_initializer), ',')),
      '}',
    ),

    /**
     * `{ r | name = e, ... }`, `{ r.f | ... }`: the record is a name or a field of one,
     * as Spindle reads braces (`{ f x | ... }` is refused: braces that open with a name
     * and a token other than `|`, `.` or `=` are an implicit argument or binder).
     */
    record_update: $ => seq(
      '{',
      field('record', $._update_record),
      '|',
      sep1(field('field', $.field_initializer), ','),
      '}',
    ),

    // `{ r.` is always an update for Spindle (never an implicit argument `{ r.f }`):
    // the name goes to the update first.
    _update_record: $ => choice(
      prec(1, $.identifier),
      prec(1, $.upper_identifier),
      alias($.update_field_access, $.field_access),
    ),

    update_field_access: $ => seq(
      field('record', $._update_record),
      '.',
      field('field', $._name),
    ),

    field_initializer: $ => seq(
      field('name', $._name),
      '=',
      field('value', $._expression),
    ),

    // --------------------------------------------------------------------- patterns

    _pattern: $ => choice($.cons_pattern, $.constructor_pattern, $._pattern_atom),

    /** `p :: ps`, right-associative. */
    cons_pattern: $ => prec.right(seq(
      field('head', choice($.constructor_pattern, $._pattern_atom)),
      '::',
      field('tail', $._pattern),
    )),

    constructor_pattern: $ => seq(
      field('constructor', $.upper_identifier),
      repeat1(field('argument', $._pattern_atom)),
    ),

    _pattern_atom: $ => choice(
      $.upper_identifier,
      $.identifier,
      $.wildcard,
      $.integer,
      $.string,
      $.char,
      alias($.unit_pattern, $.unit),
      $.parenthesized_pattern,
      $.tuple_pattern,
      $.list_pattern,
      $.record_pattern,
    ),

    unit_pattern: _ => seq('(', ')'),

    parenthesized_pattern: $ => seq('(', $._pattern, ')'),

    tuple_pattern: $ => seq('(', $._pattern, repeat1(seq(',', $._pattern)), ')'),

    list_pattern: $ => seq('[', optional(sep1($._pattern, ',')), ']'),

    /** `{ name = p, other, .. }`. */
    record_pattern: $ => seq(
      '{',
      optional(choice(
        seq(sep1(field('field', $.field_pattern), ','), optional(seq(',', $.rest_pattern))),
        $.rest_pattern,
      )),
      '}',
    ),

    field_pattern: $ => seq(
      field('name', $._name),
      optional(seq('=', field('pattern', $._pattern))),
    ),

    rest_pattern: _ => '..',

    // --------------------------------------------------------------------- tokens

    _name: $ => choice($.identifier, $.upper_identifier),

    identifier: _ => token(new RegExp(LOWER_START + IDENT_CONTINUE + '*')),

    upper_identifier: _ => token(new RegExp(UPPER_START + IDENT_CONTINUE + '*')),

    wildcard: _ => '_',

    /** `?name` or `?`: a typed hole. */
    hole: _ => token(new RegExp('\\?(' + '[\\p{L}_]' + IDENT_CONTINUE + '*)?')),

    integer: _ => token(seq(
      optional('-'),
      choice(/0x[0-9a-fA-F_]+/, /[0-9][0-9_]*/),
    )),

    float: _ => token(seq(
      optional('-'),
      /[0-9][0-9_]*/,
      choice(
        seq(/\.[0-9][0-9_]*/, optional(/[eE][+-]?[0-9][0-9_]*/)),
        /[eE][+-]?[0-9][0-9_]*/,
      ),
    )),

    string: _ => token(seq(
      '"',
      repeat(choice(
        /[^"\\]/,
        /\\[ntr\\"'0]/,
        /\\u\{[0-9a-fA-F]{1,6}\}/,
      )),
      '"',
    )),

    char: _ => token(seq(
      '\'',
      choice(
        /[^'\\\n\r]/,
        /\\[ntr\\"'0]/,
        /\\u\{[0-9a-fA-F]{1,6}\}/,
      ),
      '\'',
    )),
  },
});
