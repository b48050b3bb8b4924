//! One statement of Spark SQL with a value of every kind of type, and what each must read back
//! as: for the adapters that reach Spark-speaking servers (Sail over Flight SQL and Spark
//! Connect, Apache Spark over Spark Connect).

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Decimal128Type, Int32Type, TimestampMicrosecondType};
use arrow_schema::{DataType, TimeUnit};
use nao_core::CollectedBatches;

/// Decimals, timestamps without and with a zone, a date, a list, a struct, a map, binary and a
/// NULL, each in a column of its own.
pub(crate) const SQL: &str = "SELECT CAST(1234.56 AS DECIMAL(12, 2)) AS d, \
     TIMESTAMP_NTZ '2024-01-02 03:04:05.678901' AS ts, \
     TIMESTAMP '2024-01-02 03:04:05.678901 UTC' AS tsz, \
     DATE '2024-01-02' AS dt, array(1, 2, 3) AS l, \
     named_struct('a', 1, 'b', 'x') AS st, map('k', 1) AS m, \
     CAST('abc' AS BINARY) AS bin, CAST(NULL AS INT) AS n";

/// 2024-01-02 03:04:05.678901 as microseconds since the epoch.
const INSTANT: i64 = 1_704_164_645_678_901;

/// Checks the one row of [`SQL`], value by value (`server` names the server in failures).
pub(crate) fn check(server: &str, result: &CollectedBatches) {
    assert_eq!(result.row_count, 1, "{server}");
    let schema = result.schema.clone();
    let batch = &result.batches[0];
    let column = |name: &str| batch.column(schema.index_of(name).unwrap()).clone();
    let d = column("d");
    assert_eq!(d.data_type(), &DataType::Decimal128(12, 2), "{server}");
    assert_eq!(
        d.as_primitive::<Decimal128Type>().value(0),
        123_456,
        "{server}"
    );
    let ts = column("ts");
    assert_eq!(
        ts.data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, None),
        "{server}"
    );
    assert_eq!(
        ts.as_primitive::<TimestampMicrosecondType>().value(0),
        INSTANT,
        "{server}"
    );
    let tsz = column("tsz");
    assert!(
        matches!(
            tsz.data_type(),
            DataType::Timestamp(TimeUnit::Microsecond, Some(_))
        ),
        "{server}: {}",
        tsz.data_type()
    );
    assert_eq!(
        tsz.as_primitive::<TimestampMicrosecondType>().value(0),
        INSTANT,
        "{server}: the instant, whatever zone it is shown in"
    );
    let dt = column("dt");
    assert_eq!(dt.data_type(), &DataType::Date32, "{server}");
    assert_eq!(dt.as_primitive::<Date32Type>().value(0), 19_724, "{server}");
    let l = column("l");
    let items = l.as_list::<i32>().value(0);
    assert_eq!(
        items.as_primitive::<Int32Type>().values().to_vec(),
        [1, 2, 3],
        "{server}"
    );
    let st = column("st");
    let st = st.as_struct();
    assert_eq!(st.column_names(), ["a", "b"], "{server}");
    assert_eq!(st.column(1).as_string::<i32>().value(0), "x", "{server}");
    let m = column("m");
    let m = m.as_map();
    assert_eq!(m.keys().as_string::<i32>().value(0), "k", "{server}");
    assert_eq!(
        m.values().as_primitive::<Int32Type>().value(0),
        1,
        "{server}"
    );
    let bin = column("bin");
    assert_eq!(bin.as_binary::<i32>().value(0), b"abc", "{server}");
    let n = column("n");
    assert!(n.is_null(0), "{server}");
}
