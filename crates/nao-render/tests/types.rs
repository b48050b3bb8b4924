//! Every Arrow type an adapter can produce, rendered in full.

mod common;

use std::sync::Arc;

use arrow_array::builder::{
    Int32Builder, ListBuilder, MapBuilder, StringBuilder, StringDictionaryBuilder,
};
use arrow_array::types::{Int8Type, Int32Type};
use arrow_array::*;
use arrow_buffer::{IntervalDayTime, IntervalMonthDayNano, i256};
use arrow_schema::{DataType, Field, Fields};
use common::{batch, render};

#[test]
fn integers_signed_and_unsigned() {
    let b = batch(vec![
        (
            "i8",
            Arc::new(Int8Array::from(vec![Some(i8::MIN), None, Some(i8::MAX)])) as ArrayRef,
        ),
        (
            "i16",
            Arc::new(Int16Array::from(vec![i16::MIN, 0, i16::MAX])),
        ),
        (
            "i32",
            Arc::new(Int32Array::from(vec![i32::MIN, -1, i32::MAX])),
        ),
        (
            "i64",
            Arc::new(Int64Array::from(vec![i64::MIN, 0, i64::MAX])),
        ),
        ("u8", Arc::new(UInt8Array::from(vec![0, 1, u8::MAX]))),
        ("u16", Arc::new(UInt16Array::from(vec![0, 1, u16::MAX]))),
        ("u32", Arc::new(UInt32Array::from(vec![0, 1, u32::MAX]))),
        ("u64", Arc::new(UInt64Array::from(vec![0, 1, u64::MAX]))),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 3 rows, 8 columns.\n\n\
         | # | i8: Int8 | i16: Int16 | i32: Int32 | i64: Int64 | u8: UInt8 | u16: UInt16 | u32: UInt32 | u64: UInt64 |\n\
         |---|---|---|---|---|---|---|---|---|\n\
         | 1 | -128 | -32768 | -2147483648 | -9223372036854775808 | 0 | 0 | 0 | 0 |\n\
         | 2 | ∅ | 0 | -1 | 0 | 1 | 1 | 1 | 1 |\n\
         | 3 | 127 | 32767 | 2147483647 | 9223372036854775807 | 255 | 65535 | 4294967295 | 18446744073709551615 |\n\
         \n\
         - ∅ is NULL (a text value that is exactly ∅ shows as \\u{2205}).\n"
    );
}

#[test]
fn floats_shortest_round_trip() {
    let b = batch(vec![
        (
            "f16",
            arrow_cast::cast(
                &Float32Array::from(vec![1.5, f32::NAN, f32::NEG_INFINITY, -0.0, 65504.0, 0.25]),
                &DataType::Float16,
            )
            .unwrap(),
        ),
        (
            "f32",
            Arc::new(Float32Array::from(vec![
                0.1,
                f32::NAN,
                f32::INFINITY,
                -0.0,
                f32::MAX,
                1e-7,
            ])),
        ),
        (
            "f64",
            Arc::new(Float64Array::from(vec![
                0.1,
                1.0 / 3.0,
                -f64::INFINITY,
                -0.0,
                1e300,
                5e-324,
            ])),
        ),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 6 rows, 3 columns.\n\n\
         | # | f16: Float16 | f32: Float32 | f64: Float64 |\n\
         |---|---|---|---|\n\
         | 1 | 1.5 | 0.1 | 0.1 |\n\
         | 2 | NaN | NaN | 0.3333333333333333 |\n\
         | 3 | -inf | inf | -inf |\n\
         | 4 | -0 | -0 | -0 |\n\
         | 5 | 65504 | 3.4028235e38 | 1e300 |\n\
         | 6 | 0.25 | 1e-7 | 5e-324 |\n"
    );
}

#[test]
fn decimals_exact_at_every_width() {
    let b = batch(vec![
        (
            "d32",
            Arc::new(
                Decimal32Array::from(vec![Some(1_250), Some(-5), None])
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ) as ArrayRef,
        ),
        (
            "d64",
            Arc::new(
                Decimal64Array::from(vec![12, 0, -7])
                    .with_precision_and_scale(18, -3)
                    .unwrap(),
            ),
        ),
        (
            "d128",
            Arc::new(
                Decimal128Array::from(vec![
                    99_999_999_999_999_999_999_999_999_999_999_999_999i128,
                    -1,
                    100,
                ])
                .with_precision_and_scale(38, 10)
                .unwrap(),
            ),
        ),
        (
            "d256",
            Arc::new(
                Decimal256Array::from(vec![
                    i256::from_i128(123_456_789),
                    i256::MIN,
                    i256::from_i128(-10),
                ])
                .with_precision_and_scale(76, 4)
                .unwrap(),
            ),
        ),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 3 rows, 4 columns.\n\n\
         | # | d32: Decimal32(9, 2) | d64: Decimal64(18, -3) | d128: Decimal128(38, 10) | d256: Decimal256(76, 4) |\n\
         |---|---|---|---|---|\n\
         | 1 | 12.50 | 12000 | 9999999999999999999999999999.9999999999 | 12345.6789 |\n\
         | 2 | -0.05 | 0 | -0.0000000001 | -5789604461865809771178549250434395392663499233282028201972879200395656481.9968 |\n\
         | 3 | ∅ | -7000 | 0.0000000100 | -0.0010 |\n\
         \n\
         - ∅ is NULL (a text value that is exactly ∅ shows as \\u{2205}).\n"
    );
}

#[test]
fn booleans_text_and_binary() {
    let b = batch(vec![
        (
            "ok",
            Arc::new(BooleanArray::from(vec![Some(true), Some(false), None])) as ArrayRef,
        ),
        (
            "s",
            Arc::new(StringArray::from(vec![Some("Alice"), Some("NULL"), None])),
        ),
        (
            "ls",
            Arc::new(LargeStringArray::from(vec![Some(""), Some("∅"), Some("é")])),
        ),
        (
            "sv",
            Arc::new(StringViewArray::from(vec![
                Some("a view longer than twelve"),
                None,
                Some("x"),
            ])),
        ),
        (
            "bin",
            Arc::new(BinaryArray::from(vec![
                Some(b"Hello".as_slice()),
                Some(b"".as_slice()),
                Some([7u8; 1024].as_slice()),
            ])),
        ),
        (
            "lbin",
            Arc::new(LargeBinaryArray::from(vec![
                Some(b"\x00\xff".as_slice()),
                None,
                Some(b"a".as_slice()),
            ])),
        ),
        (
            "bview",
            Arc::new(BinaryViewArray::from(vec![
                Some(b"0123456789abcdefg".as_slice()),
                None,
                None,
            ])),
        ),
        (
            "fbin",
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    vec![Some([1u8, 2, 3]), Some([255, 0, 16]), None].into_iter(),
                    3,
                )
                .unwrap(),
            ),
        ),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 3 rows, 8 columns.\n\n\
         | # | ok: Boolean | s: Utf8 | ls: LargeUtf8 | sv: Utf8View | bin: Binary | lbin: LargeBinary | bview: BinaryView | fbin: FixedSizeBinary(3) |\n\
         |---|---|---|---|---|---|---|---|---|\n\
         | 1 | true | Alice |  | a view longer than twelve | 0x48656c6c6f (5 bytes) | 0x00ff (2 bytes) | 0x30313233343536373839616263646566… (17 bytes) | 0x010203 (3 bytes) |\n\
         | 2 | false | NULL | \\u{2205} | ∅ | 0x (0 bytes) | ∅ | ∅ | 0xff0010 (3 bytes) |\n\
         | 3 | ∅ | ∅ | é | x | 0x07070707070707070707070707070707… (1024 bytes) | 0x61 (1 byte) | ∅ | ∅ |\n\
         \n\
         - ∅ is NULL (a text value that is exactly ∅ shows as \\u{2205}).\n"
    );
}

#[test]
fn dates_times_and_timestamps() {
    let b = batch(vec![
        (
            "d32",
            Arc::new(Date32Array::from(vec![19_783, -1, 0])) as ArrayRef,
        ),
        (
            "d64",
            Arc::new(Date64Array::from(vec![
                1_709_251_200_000,
                1_709_294_400_123,
                -86_400_000,
            ])),
        ),
        (
            "t32s",
            Arc::new(Time32SecondArray::from(vec![0, 45_296, 86_399])),
        ),
        (
            "t32ms",
            Arc::new(Time32MillisecondArray::from(vec![
                500, 45_296_120, 90_000_000,
            ])),
        ),
        (
            "t64us",
            Arc::new(Time64MicrosecondArray::from(vec![
                1,
                45_296_000_000,
                86_399_999_999,
            ])),
        ),
        (
            "t64ns",
            Arc::new(Time64NanosecondArray::from(vec![1, 10, 45_296_000_000_100])),
        ),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 3 rows, 6 columns.\n\n\
         | # | d32: Date32 | d64: Date64 | t32s: Time32(s) | t32ms: Time32(ms) | t64us: Time64(µs) | t64ns: Time64(ns) |\n\
         |---|---|---|---|---|---|---|\n\
         | 1 | 2024-03-01 | 2024-03-01 | 00:00:00 | 00:00:00.5 | 00:00:00.000001 | 00:00:00.000000001 |\n\
         | 2 | 1969-12-31 | 2024-03-01T12:00:00.123 | 12:34:56 | 12:34:56.12 | 12:34:56 | 00:00:00.00000001 |\n\
         | 3 | 1970-01-01 | 1969-12-31 | 23:59:59 | 90000000 ms (out of range) | 23:59:59.999999 | 12:34:56.0000001 |\n"
    );
}

#[test]
fn timestamps_with_and_without_zone() {
    let noon = 1_709_294_400i64;
    let b = batch(vec![
        (
            "local_s",
            Arc::new(TimestampSecondArray::from(vec![noon, -1])) as ArrayRef,
        ),
        (
            "utc_ms",
            Arc::new(
                TimestampMillisecondArray::from(vec![noon * 1_000 + 5, 0]).with_timezone("UTC"),
            ),
        ),
        (
            "india_us",
            Arc::new(
                TimestampMicrosecondArray::from(vec![noon * 1_000_000, 1]).with_timezone("+05:30"),
            ),
        ),
        (
            "ny_ns",
            Arc::new(
                TimestampNanosecondArray::from(vec![noon * 1_000_000_000 + 100, -1])
                    .with_timezone("-05:00"),
            ),
        ),
        (
            "named",
            Arc::new(TimestampSecondArray::from(vec![noon, 0]).with_timezone("Europe/Paris")),
        ),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 2 rows, 5 columns.\n\n\
         | # | local_s: Timestamp(s) | utc_ms: Timestamp(ms, UTC) | india_us: Timestamp(µs, +05:30) | ny_ns: Timestamp(ns, -05:00) | named: Timestamp(s, Europe/Paris) |\n\
         |---|---|---|---|---|---|\n\
         | 1 | 2024-03-01T12:00:00 | 2024-03-01T12:00:00.005Z | 2024-03-01T17:30:00+05:30 | 2024-03-01T07:00:00.0000001-05:00 | 2024-03-01T12:00:00Z |\n\
         | 2 | 1969-12-31T23:59:59 | 1970-01-01T00:00:00Z | 1970-01-01T05:30:00.000001+05:30 | 1969-12-31T18:59:59.999999999-05:00 | 1970-01-01T00:00:00Z |\n"
    );
}

#[test]
fn durations_and_intervals() {
    let b = batch(vec![
        (
            "ds",
            Arc::new(DurationSecondArray::from(vec![0, 93_784, -60])) as ArrayRef,
        ),
        (
            "dms",
            Arc::new(DurationMillisecondArray::from(vec![
                1_500,
                -86_400_000,
                3_600_000,
            ])),
        ),
        (
            "dus",
            Arc::new(DurationMicrosecondArray::from(vec![1, 60_000_000, 0])),
        ),
        (
            "dns",
            Arc::new(DurationNanosecondArray::from(vec![
                1,
                -1,
                86_400_000_000_001,
            ])),
        ),
        (
            "ym",
            Arc::new(IntervalYearMonthArray::from(vec![14, -3, 0])),
        ),
        (
            "dt",
            Arc::new(IntervalDayTimeArray::from(vec![
                IntervalDayTime::new(3, 500),
                IntervalDayTime::new(-1, -3_600_000),
                IntervalDayTime::new(0, 0),
            ])),
        ),
        (
            "mdn",
            Arc::new(IntervalMonthDayNanoArray::from(vec![
                IntervalMonthDayNano::new(1, 2, 3_723_000_000_007),
                IntervalMonthDayNano::new(-13, 0, 0),
                IntervalMonthDayNano::new(0, -7, 1),
            ])),
        ),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 3 rows, 7 columns.\n\n\
         | # | ds: Duration(s) | dms: Duration(ms) | dus: Duration(µs) | dns: Duration(ns) | ym: Interval(YearMonth) | dt: Interval(DayTime) | mdn: Interval(MonthDayNano) |\n\
         |---|---|---|---|---|---|---|---|\n\
         | 1 | PT0S | PT1.5S | PT0.000001S | PT0.000000001S | P1Y2M | P3DT0.5S | P1M2DT1H2M3.000000007S |\n\
         | 2 | P1DT2H3M4S | P-1D | PT1M | PT-0.000000001S | P-3M | P-1DT-1H | P-1Y-1M |\n\
         | 3 | PT-1M | PT1H | PT0S | P1DT0.000000001S | PT0S | PT0S | P-7DT0.000000001S |\n"
    );
}

#[test]
fn lists_structs_maps_as_compact_json() {
    let mut list = ListBuilder::new(Int32Builder::new());
    list.append_value([Some(1), None, Some(3)]);
    list.append_null();
    list.append_value([]);
    let list = list.finish();

    let large_list = LargeListArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(7)]),
        Some(vec![]),
        None,
    ]);
    let fixed = FixedSizeListArray::from_iter_primitive::<Int32Type, _, _>(
        vec![
            Some(vec![Some(1), Some(2)]),
            None,
            Some(vec![None, Some(-4)]),
        ],
        2,
    );
    let structs = StructArray::from(vec![
        (
            Arc::new(Field::new("name", DataType::Utf8, true)),
            Arc::new(StringArray::from(vec![Some("a\"b"), None, Some("日本|語")])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("when", DataType::Date32, true)),
            Arc::new(Date32Array::from(vec![Some(0), Some(1), None])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("price", DataType::Decimal128(5, 2), true)),
            Arc::new(
                Decimal128Array::from(vec![Some(150), None, Some(-1)])
                    .with_precision_and_scale(5, 2)
                    .unwrap(),
            ) as ArrayRef,
        ),
    ]);
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    map.keys().append_value("x");
    map.values().append_value(1);
    map.keys().append_value("y<z>");
    map.values().append_null();
    map.append(true).unwrap();
    map.append(false).unwrap();
    map.append(true).unwrap();
    let map = map.finish();

    let b = batch(vec![
        ("list", Arc::new(list) as ArrayRef),
        ("large", Arc::new(large_list)),
        ("fixed", Arc::new(fixed)),
        ("record", Arc::new(structs)),
        ("attrs", Arc::new(map)),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 3 rows, 5 columns.\n\n\
         | # | list: List(Int32) | large: LargeList(Int32) | fixed: FixedSizeList(2, Int32) | record: Struct(name: Utf8, when: Date32, price: Decimal128(5, 2)) | attrs: Map(Utf8, Int32) |\n\
         |---|---|---|---|---|---|\n\
         | 1 | [1,null,3] | [7] | [1,2] | {\"name\":\"a\\\\\"b\",\"when\":\"1970-01-01\",\"price\":1.50} | {\"x\":1,\"y&lt;z>\":null} |\n\
         | 2 | ∅ | [] | ∅ | {\"name\":null,\"when\":\"1970-01-02\",\"price\":null} | ∅ |\n\
         | 3 | [] | ∅ | [null,-4] | {\"name\":\"日本\\|語\",\"when\":null,\"price\":-0.01} | {} |\n\
         \n\
         - ∅ is NULL (a text value that is exactly ∅ shows as \\u{2205}).\n"
    );
}

#[test]
fn dictionaries_and_null_type() {
    let mut dictionary = StringDictionaryBuilder::<Int8Type>::new();
    dictionary.append_value("red");
    dictionary.append_null();
    dictionary.append_value("red");
    dictionary.append_value("- dash");
    let dictionary = dictionary.finish();
    let b = batch(vec![
        ("color", Arc::new(dictionary) as ArrayRef),
        ("nothing", Arc::new(NullArray::new(4))),
    ]);
    assert_eq!(
        render(&b),
        "Query q_1: 4 rows, 2 columns.\n\n\
         | # | color: Dictionary(Int8, Utf8) | nothing: Null |\n\
         |---|---|---|\n\
         | 1 | red | ∅ |\n\
         | 2 | ∅ | ∅ |\n\
         | 3 | red | ∅ |\n\
         | 4 | \\- dash | ∅ |\n\
         \n\
         - ∅ is NULL (a text value that is exactly ∅ shows as \\u{2205}).\n"
    );
}

#[test]
fn nested_struct_in_list_and_deep_nesting() {
    let inner = Fields::from(vec![Field::new("k", DataType::Int64, true)]);
    let structs = StructArray::new(
        inner.clone(),
        vec![Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef],
        None,
    );
    let offsets = arrow_buffer::OffsetBuffer::new(vec![0i32, 2, 3].into());
    let list = ListArray::new(
        Arc::new(Field::new("item", DataType::Struct(inner), true)),
        offsets,
        Arc::new(structs),
        None,
    );
    let mut deep: ArrayRef = Arc::new(Int64Array::from(vec![42]));
    for _ in 0..20 {
        let field = Arc::new(Field::new("item", deep.data_type().clone(), true));
        let offsets = arrow_buffer::OffsetBuffer::new(vec![0i32, 1].into());
        deep = Arc::new(ListArray::new(field, offsets, deep, None));
    }
    let b = batch(vec![("items", Arc::new(list) as ArrayRef)]);
    assert_eq!(
        render(&b),
        "Query q_1: 2 rows, 1 column.\n\n\
         | # | items: List(Struct(k: Int64)) |\n\
         |---|---|\n\
         | 1 | [{\"k\":1},{\"k\":2}] |\n\
         | 2 | [{\"k\":3}] |\n"
    );
    let b = batch(vec![("deep", deep)]);
    let list9 = format!("{}…{}", "List(".repeat(9), ")".repeat(9));
    let value = format!("{}\"…\"{}", "[".repeat(16), "]".repeat(16));
    assert_eq!(
        render(&b),
        format!(
            "Query q_1: 1 row, 1 column.\n\n| # | deep: {list9} |\n|---|---|\n| 1 | {value} |\n"
        )
    );
}

#[test]
fn types_without_a_dedicated_format_use_arrow_display() {
    let run_ends = Int32Array::from(vec![2, 3]);
    let values = StringArray::from(vec!["a", "b"]);
    let runs = RunArray::try_new(&run_ends, &values).unwrap();
    let b = batch(vec![("runs", Arc::new(runs) as ArrayRef)]);
    assert_eq!(
        render(&b),
        "Query q_1: 3 rows, 1 column.\n\n\
         | # | runs: RunEndEncoded(Int32, Utf8) |\n\
         |---|---|\n\
         | 1 | a |\n\
         | 2 | a |\n\
         | 3 | b |\n"
    );
}
