; Definitions and references for code navigation (`tree-sitter tags`, GitHub's
; symbol search, editors' outline views).

(def_declaration name: (_) @name) @definition.function

(extern_declaration name: (_) @name) @definition.function

(data_declaration name: (_) @name) @definition.class

(record_declaration name: (_) @name) @definition.class

(constructor_declaration name: (_) @name) @definition.function

(interface_declaration name: (_) @name) @definition.interface

(method_signature name: (_) @name) @definition.method

(method_definition name: (_) @name) @definition.method

(instance_declaration
  head: [
    (upper_identifier) @name
    (application function: (upper_identifier) @name)
  ]) @reference.implementation

(application function: (identifier) @name) @reference.call
