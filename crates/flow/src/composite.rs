//! Composite tools: a flow published as a tool.
//!
//! The contract is derived, never written by hand: `kind: composite`, the flow's name,
//! version, description and inputs (a `secret: true` flow input stays a secret slot, so a
//! secret passed to the composite reaches the inner flow as a reference), the type of the
//! flow's output, and as capabilities the union of every inner step's *effective*
//! capabilities — nesting hides no effect, at any depth.

use browserflow_contract::{ContractParts, Kind, ToolContract};

use crate::diagnostic::{Code, Diagnostic, Diagnostics};
use crate::plan::Plan;

impl Plan {
    /// The contract of this flow as a composite tool.
    pub fn contract(&self) -> Result<ToolContract, Diagnostics> {
        ToolContract::new(ContractParts {
            name: self.name.clone(),
            version: self.version.to_string(),
            kind: Kind::Composite,
            description: self.description.clone(),
            inputs: self.inputs.clone(),
            output: self.output_schema.clone(),
            capabilities: self.capabilities.clone(),
        })
        .map_err(|problems| {
            Diagnostics(
                problems
                    .0
                    .into_iter()
                    .map(|p| {
                        let message =
                            format!("the derived composite contract is not valid: {}", p.message);
                        Diagnostic::new(Code::Invalid(p.rule), p.pointer, message)
                    })
                    .collect(),
            )
        })
    }
}
