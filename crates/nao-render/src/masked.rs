//! The mark a masked result column carries, so that every reader of the result is told.

/// Arrow field metadata key set on a result column whose values were masked by the host's
/// policy (nao-core's policy layer sets it). Its value says how and why, in words for the
/// reader: `hashed by the host's policy (customers.email)`. The renderer turns it into a
/// notice under the table.
pub const MASKED_FIELD_METADATA: &str = "nao.masked";
