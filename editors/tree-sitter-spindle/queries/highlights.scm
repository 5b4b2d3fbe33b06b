; Syntax highlighting for Spindle. Where several patterns match one node, the last one
; wins (tree-sitter highlight since 0.25, and Neovim), so the fallbacks come first and
; the patterns that look at a name's place come after them.

; Names (fallbacks)

(upper_identifier) @type
(identifier) @variable

; Comments

[(line_comment) (block_comment)] @comment

(shebang) @comment

; Literals

(integer) @number
(float) @number
(string) @string
(char) @string.special

; Special forms

(universe "Type" @type.builtin)
(hole) @variable.builtin
(wildcard) @variable.builtin
(rest_pattern) @punctuation.special

; Keywords

[
  "def"
  "total"
  "data"
  "record"
  "interface"
  "instance"
  "deriving"
  "extern"
  "import"
  "where"
  "let"
  "in"
  "if"
  "then"
  "else"
  "match"
  "with"
] @keyword

; Operators and punctuation

[
  "||"
  "&&"
  "=="
  "!="
  "<"
  "<="
  ">"
  ">="
  "++"
  "::"
  "+"
  "-"
  "*"
  "/"
  "%"
  "^"
  "->"
  "=>"
  "\\"
  "="
  "|"
  ":"
  "."
] @operator

["(" ")" "[" "]" "{" "}"] @punctuation.bracket

"," @punctuation.delimiter

; Declarations

(def_declaration name: (_) @function)
(extern_declaration name: (_) @function)
(method_signature name: (_) @function)
(method_definition name: (_) @function)
(binding name: (identifier) @function (explicit_parameters))
(binding name: (identifier) @function (implicit_parameters))
(binding name: (identifier) @function parameter: (identifier))

(data_declaration name: (upper_identifier) @type)
(record_declaration name: (upper_identifier) @type)
(interface_declaration name: (upper_identifier) @type)
(constructor_declaration name: (upper_identifier) @constructor)
(deriving_clause interface: (_) @type)

; Fields

(field_declaration name: (identifier) @property)
(field_initializer name: (_) @property)
(field_pattern name: (_) @property)
(field_access field: (_) @property)

; Parameters

(explicit_parameters name: (identifier) @variable.parameter)
(implicit_parameters name: (identifier) @variable.parameter)
(def_declaration parameter: (identifier) @variable.parameter)
(lambda parameter: (identifier) @variable.parameter)
(binding parameter: (identifier) @variable.parameter)
(method_definition parameter: (identifier) @variable.parameter)

; Calls

(application function: (identifier) @function)

; Constructors in patterns

(constructor_pattern constructor: (upper_identifier) @constructor)
(constructor_pattern argument: (upper_identifier) @constructor)
(match_arm pattern: (upper_identifier) @constructor)
(cons_pattern head: (upper_identifier) @constructor)
(cons_pattern tail: (upper_identifier) @constructor)
(tuple_pattern (upper_identifier) @constructor)
(list_pattern (upper_identifier) @constructor)
(parenthesized_pattern (upper_identifier) @constructor)
(field_pattern pattern: (upper_identifier) @constructor)
