//! Readback (`get_ast`): from the stack form back to core terms.

use super::value::CtxtId;
use super::Machine;
use crate::core::term::RcTerm;

impl<'p> Machine<'p> {
    /// A closure as Spindle source.
    pub fn show_closure(&mut self, _t: &'p RcTerm, _env: CtxtId) -> String {
        "<function>".to_string()
    }
}
