//! The Spark Connect messages the adapter sends and reads, as prost types.
//!
//! Written out here rather than generated: the one crate publishing them for tonic 0.14
//! (`apache-spark-connect-proto`) generates them at build time, which needs `protoc`, and no
//! crate on crates.io ships them pre-generated for tonic 0.14 and arrow 58. The adapter needs
//! only a small part of the protocol: a SQL or catalogue relation as the plan of
//! `ExecutePlan`, its Arrow batches and end, `ReattachExecute`, `Interrupt` and
//! `ReleaseExecute`. Names, field numbers and types follow the `spark.connect` package of
//! Spark Connect's protocol (`spark/connect/base.proto`, `relations.proto`, `catalog.proto`,
//! version 4.x; every field here has kept its number since 3.5). Fields a response carries that
//! are not listed here are skipped when decoding, as protobuf intends.

// prost's derives write the field accessors; the messages are private to the adapter.
#![allow(missing_docs, unreachable_pub)]

use std::collections::HashMap;

use prost::bytes::Bytes;

/// Who sends the request (`UserContext`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct UserContext {
    #[prost(string, tag = "1")]
    pub user_id: String,
    #[prost(string, tag = "2")]
    pub user_name: String,
}

/// `ExecutePlanRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExecutePlanRequest {
    #[prost(string, tag = "1")]
    pub session_id: String,
    #[prost(message, optional, tag = "2")]
    pub user_context: Option<UserContext>,
    #[prost(message, optional, tag = "3")]
    pub plan: Option<Plan>,
    #[prost(string, optional, tag = "4")]
    pub client_type: Option<String>,
    #[prost(message, repeated, tag = "5")]
    pub request_options: Vec<RequestOption>,
    #[prost(string, optional, tag = "6")]
    pub operation_id: Option<String>,
    #[prost(string, repeated, tag = "7")]
    pub tags: Vec<String>,
}

/// `ExecutePlanRequest.RequestOption`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RequestOption {
    #[prost(oneof = "request_option::Option", tags = "1")]
    pub option: Option<request_option::Option>,
}

/// The cases of [`RequestOption`].
pub mod request_option {
    /// `request_option`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Option {
        #[prost(message, tag = "1")]
        ReattachOptions(super::ReattachOptions),
    }
}

/// `ReattachOptions`: the server keeps the responses until released, so the client can
/// reattach, and ends the result with `ResultComplete`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReattachOptions {
    #[prost(bool, tag = "1")]
    pub reattachable: bool,
}

/// `Plan`: here always a relation (`root`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Plan {
    #[prost(oneof = "plan::OpType", tags = "1")]
    pub op_type: Option<plan::OpType>,
}

/// The cases of [`Plan`].
pub mod plan {
    /// `op_type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum OpType {
        #[prost(message, tag = "1")]
        Root(super::Relation),
    }
}

/// `Relation`: a SQL query or a catalogue call.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Relation {
    #[prost(oneof = "relation::RelType", tags = "10, 200")]
    pub rel_type: Option<relation::RelType>,
}

/// The cases of [`Relation`].
pub mod relation {
    /// `rel_type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum RelType {
        #[prost(message, tag = "10")]
        Sql(super::Sql),
        #[prost(message, tag = "200")]
        Catalog(super::Catalog),
    }
}

/// `SQL`: a query's text, without parameters.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sql {
    #[prost(string, tag = "1")]
    pub query: String,
}

/// `Catalog`: the catalogue calls the adapter makes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Catalog {
    #[prost(oneof = "catalog::CatType", tags = "4, 6")]
    pub cat_type: Option<catalog::CatType>,
}

/// The cases of [`Catalog`].
pub mod catalog {
    /// `cat_type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum CatType {
        #[prost(message, tag = "4")]
        ListTables(super::ListTables),
        #[prost(message, tag = "6")]
        ListColumns(super::ListColumns),
    }
}

/// `ListTables`: the tables of a database (the current one when `db_name` is not set).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListTables {
    #[prost(string, optional, tag = "1")]
    pub db_name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub pattern: Option<String>,
}

/// `ListColumns`: the columns of one table.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListColumns {
    #[prost(string, tag = "1")]
    pub table_name: String,
    #[prost(string, optional, tag = "2")]
    pub db_name: Option<String>,
}

/// `ExecutePlanResponse`: one message of a result stream.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExecutePlanResponse {
    #[prost(string, tag = "1")]
    pub session_id: String,
    #[prost(string, tag = "12")]
    pub operation_id: String,
    #[prost(string, tag = "13")]
    pub response_id: String,
    #[prost(string, tag = "15")]
    pub server_side_session_id: String,
    #[prost(oneof = "execute_plan_response::ResponseType", tags = "2, 14")]
    pub response_type: Option<execute_plan_response::ResponseType>,
}

/// The cases of [`ExecutePlanResponse`] the adapter reads (the others decode as `None`).
pub mod execute_plan_response {
    /// `response_type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum ResponseType {
        #[prost(message, tag = "2")]
        ArrowBatch(super::ArrowBatch),
        #[prost(message, tag = "14")]
        ResultComplete(super::ResultComplete),
    }
}

/// `ExecutePlanResponse.ArrowBatch`: an Arrow IPC stream (schema and batches).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArrowBatch {
    #[prost(int64, tag = "1")]
    pub row_count: i64,
    #[prost(bytes = "bytes", tag = "2")]
    pub data: Bytes,
}

/// `ExecutePlanResponse.ResultComplete`: the result is whole.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct ResultComplete {}

/// `InterruptRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InterruptRequest {
    #[prost(string, tag = "1")]
    pub session_id: String,
    #[prost(message, optional, tag = "2")]
    pub user_context: Option<UserContext>,
    #[prost(string, optional, tag = "3")]
    pub client_type: Option<String>,
    #[prost(int32, tag = "4")]
    pub interrupt_type: i32,
    #[prost(oneof = "interrupt_request::Interrupt", tags = "6")]
    pub interrupt: Option<interrupt_request::Interrupt>,
}

/// `InterruptRequest.InterruptType.INTERRUPT_TYPE_OPERATION_ID`.
pub const INTERRUPT_TYPE_OPERATION_ID: i32 = 3;

/// The cases of [`InterruptRequest`] the adapter sends.
pub mod interrupt_request {
    /// `interrupt`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Interrupt {
        #[prost(string, tag = "6")]
        OperationId(String),
    }
}

/// `InterruptResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InterruptResponse {
    #[prost(string, tag = "1")]
    pub session_id: String,
    #[prost(string, repeated, tag = "2")]
    pub interrupted_ids: Vec<String>,
}

/// `ReattachExecuteRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReattachExecuteRequest {
    #[prost(string, tag = "1")]
    pub session_id: String,
    #[prost(message, optional, tag = "2")]
    pub user_context: Option<UserContext>,
    #[prost(string, tag = "3")]
    pub operation_id: String,
    #[prost(string, optional, tag = "4")]
    pub client_type: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub last_response_id: Option<String>,
}

/// `ReleaseExecuteRequest` (always `ReleaseAll` here).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReleaseExecuteRequest {
    #[prost(string, tag = "1")]
    pub session_id: String,
    #[prost(message, optional, tag = "2")]
    pub user_context: Option<UserContext>,
    #[prost(string, tag = "3")]
    pub operation_id: String,
    #[prost(string, optional, tag = "4")]
    pub client_type: Option<String>,
    #[prost(oneof = "release_execute_request::Release", tags = "5")]
    pub release: Option<release_execute_request::Release>,
}

/// The cases of [`ReleaseExecuteRequest`] the adapter sends.
pub mod release_execute_request {
    /// `release`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Release {
        #[prost(message, tag = "5")]
        ReleaseAll(super::ReleaseAll),
    }
}

/// `ReleaseExecuteRequest.ReleaseAll`.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct ReleaseAll {}

/// `ReleaseExecuteResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReleaseExecuteResponse {
    #[prost(string, tag = "1")]
    pub session_id: String,
}

/// `google.rpc.Status`, as gRPC servers put it in the `grpc-status-details-bin` trailer.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RpcStatus {
    #[prost(int32, tag = "1")]
    pub code: i32,
    #[prost(string, tag = "2")]
    pub message: String,
    #[prost(message, repeated, tag = "3")]
    pub details: Vec<Any>,
}

/// `google.protobuf.Any`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Any {
    #[prost(string, tag = "1")]
    pub type_url: String,
    #[prost(bytes = "vec", tag = "2")]
    pub value: Vec<u8>,
}

/// `google.rpc.ErrorInfo`: Spark puts the exception's class in `reason` and its error class,
/// SQLSTATE and message parameters in `metadata`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ErrorInfo {
    #[prost(string, tag = "1")]
    pub reason: String,
    #[prost(string, tag = "2")]
    pub domain: String,
    #[prost(map = "string, string", tag = "3")]
    pub metadata: HashMap<String, String>,
}

/// The `type_url` of [`ErrorInfo`] in an [`Any`].
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;

    #[test]
    fn a_sql_plan_encodes_with_the_protocols_field_numbers() {
        let plan = Plan {
            op_type: Some(plan::OpType::Root(Relation {
                rel_type: Some(relation::RelType::Sql(Sql {
                    query: "SELECT 1".into(),
                })),
            })),
        };
        // Plan.root = 1 (length-delimited), Relation.sql = 10, SQL.query = 1.
        let bytes = plan.encode_to_vec();
        assert_eq!(bytes[0], (1 << 3) | 2);
        assert_eq!(bytes[2], (10 << 3) | 2);
        assert_eq!(bytes[4], (1 << 3) | 2);
        assert_eq!(&bytes[6..], b"SELECT 1");
    }

    #[test]
    fn unknown_response_fields_are_skipped() {
        // An ExecutePlanResponse with execution_progress (18) and a schema (7) the adapter
        // does not model, then result_complete (14).
        let mut bytes = Vec::new();
        prost::encoding::encode_key(18, prost::encoding::WireType::LengthDelimited, &mut bytes);
        bytes.extend([2, 0x10, 0x01]); // ExecutionProgress { num_inflight_tasks: 1 }
        prost::encoding::encode_key(7, prost::encoding::WireType::LengthDelimited, &mut bytes);
        bytes.push(0);
        prost::encoding::encode_key(14, prost::encoding::WireType::LengthDelimited, &mut bytes);
        bytes.push(0);
        let response = ExecutePlanResponse::decode(bytes.as_slice()).unwrap();
        assert_eq!(
            response.response_type,
            Some(execute_plan_response::ResponseType::ResultComplete(
                ResultComplete {}
            ))
        );
    }
}
