; Scopes, definitions and references of local names, for editors that highlight or
; rename a variable everywhere it is used.

; Scopes

[
  (def_declaration)
  (method_definition)
  (lambda)
  (let_expression)
  (match_arm)
  (function_type)
] @local.scope

; Definitions: parameters

(explicit_parameters name: (identifier) @local.definition)
(implicit_parameters name: (identifier) @local.definition)
(def_declaration parameter: (identifier) @local.definition)
(lambda parameter: (identifier) @local.definition)
(binding parameter: (identifier) @local.definition)
(method_definition parameter: (identifier) @local.definition)

; Definitions: `let` and `where` bindings

(binding name: (identifier) @local.definition)

; Definitions: variables bound by patterns

(match_arm pattern: (identifier) @local.definition)
(constructor_pattern argument: (identifier) @local.definition)
(cons_pattern head: (identifier) @local.definition)
(cons_pattern tail: (identifier) @local.definition)
(tuple_pattern (identifier) @local.definition)
(list_pattern (identifier) @local.definition)
(parenthesized_pattern (identifier) @local.definition)
(field_pattern pattern: (identifier) @local.definition)
(field_pattern !pattern name: (identifier) @local.definition)

; References

(identifier) @local.reference
