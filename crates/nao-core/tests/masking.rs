//! Column masking and the value detector over every Arrow type family.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::sync::Arc;

use arrow_array::builder::{
    BinaryViewBuilder, FixedSizeBinaryBuilder, Int32Builder, ListBuilder, MapBuilder,
    StringBuilder, StringDictionaryBuilder,
};
use arrow_array::types::{Int8Type, Int32Type, UInt8Type};
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Date64Array, Decimal128Array,
    Decimal256Array, DictionaryArray, DurationMillisecondArray, FixedSizeListArray, Float32Array,
    Float64Array, Int8Array, Int16Array, Int32Array, Int64Array, IntervalMonthDayNanoArray,
    LargeBinaryArray, LargeStringArray, NullArray, RecordBatch, RunArray, StringArray,
    StringViewArray, StructArray, Time64MicrosecondArray, TimestampMillisecondArray,
    TimestampSecondArray, UInt8Array, UInt16Array, UInt32Array, UInt64Array, UnionArray,
    new_null_array,
};
use arrow_schema::{DataType, Field, Fields, Schema, UnionFields};
use nao_core::masking::{
    BatchMasker, Detections, MaskError, MaskKey, MaskRule, MaskedColumn, ValueDetector, ValueKind,
    mask_array, masked_type,
};
use nao_core::render::MASKED_FIELD_METADATA;

/// Arrow's 256-bit integer, named through the type it is native to.
type I256 = <arrow_array::types::Decimal256Type as arrow_array::ArrowPrimitiveType>::Native;

const RULES: [MaskRule; 5] = [
    MaskRule::Redact,
    MaskRule::Hash,
    MaskRule::Partial { keep_last: 2 },
    MaskRule::Partial { keep_last: 0 },
    MaskRule::Null,
];

fn key() -> MaskKey {
    MaskKey::from_bytes(*b"0123456789abcdef")
}

fn strings(array: &ArrayRef) -> Vec<Option<String>> {
    let array = array
        .as_any()
        .downcast_ref::<StringArray>()
        .expect("masked values are Utf8");
    array.iter().map(|v| v.map(str::to_owned)).collect()
}

fn hashed(array: ArrayRef) -> Vec<Option<String>> {
    strings(&mask_array(&array, MaskRule::Hash, &key()).unwrap())
}

/// One array of each type family, each with a NULL in position 2 (where the type can hold
/// one) and at least five rows.
fn every_family() -> Vec<(&'static str, ArrayRef)> {
    let mut dictionary = StringDictionaryBuilder::<Int32Type>::new();
    for v in [Some("a"), Some("b"), None, Some("c"), Some("a")] {
        dictionary.append_option(v);
    }
    let mut list = ListBuilder::new(Int32Builder::new());
    for v in [
        Some(vec![Some(1), None]),
        Some(vec![]),
        None,
        Some(vec![Some(3)]),
        Some(vec![Some(1), None]),
    ] {
        list.append_option(v);
    }
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    for row in 0..5 {
        if row == 2 {
            map.append(false).unwrap();
            continue;
        }
        map.keys().append_value(format!("k{}", row % 4));
        map.values().append_value(row % 4);
        map.append(true).unwrap();
    }
    let mut fixed = FixedSizeBinaryBuilder::new(3);
    for row in 0..5u8 {
        if row == 2 {
            fixed.append_null();
        } else {
            fixed.append_value([row % 4; 3]).unwrap();
        }
    }
    let mut view = BinaryViewBuilder::new();
    for v in [
        Some(&b"x"[..]),
        Some(b"a binary value longer than twelve bytes"),
        None,
        Some(b""),
        Some(b"x"),
    ] {
        view.append_option(v);
    }
    let struct_fields = Fields::from(vec![
        Field::new("n", DataType::Int32, true),
        Field::new("s", DataType::Utf8, true),
    ]);
    let structs = StructArray::new(
        struct_fields,
        vec![
            Arc::new(Int32Array::from(vec![
                Some(1),
                None,
                Some(3),
                Some(1),
                Some(1),
            ])),
            Arc::new(StringArray::from(vec![
                Some("a"),
                Some("b"),
                None,
                None,
                Some("a"),
            ])),
        ],
        Some(vec![true, true, false, true, true].into()),
    );
    let fixed_list = FixedSizeListArray::new(
        Arc::new(Field::new_list_field(DataType::Int32, true)),
        2,
        Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5, 6, 7, 8, 1, 2])),
        Some(vec![true, true, false, true, true].into()),
    );
    let union = UnionArray::try_new(
        UnionFields::try_new(
            [0, 1],
            [
                Field::new("i", DataType::Int32, true),
                Field::new("s", DataType::Utf8, true),
            ],
        )
        .unwrap(),
        vec![0i8, 1, 0, 1, 0].into(),
        None,
        vec![
            Arc::new(Int32Array::from(vec![Some(7), None, None, None, Some(7)])) as ArrayRef,
            Arc::new(StringArray::from(vec![
                None,
                Some("u"),
                None,
                Some("v"),
                None,
            ])),
        ],
    )
    .unwrap();
    let runs = RunArray::<Int32Type>::try_new(
        &Int32Array::from(vec![1, 2, 3, 4, 5]),
        &StringArray::from(vec![
            Some("run"),
            Some("other"),
            None,
            Some("third"),
            Some("run"),
        ]),
    )
    .unwrap();
    vec![
        (
            "utf8",
            Arc::new(StringArray::from(vec![
                Some("ada"),
                Some(""),
                None,
                Some("東京"),
                Some("ada"),
            ])),
        ),
        (
            "large_utf8",
            Arc::new(LargeStringArray::from(vec![
                Some("ada"),
                Some("b"),
                None,
                Some("c"),
                Some("ada"),
            ])),
        ),
        (
            "utf8_view",
            Arc::new(StringViewArray::from(vec![
                Some("ada"),
                Some("a text longer than twelve bytes"),
                None,
                Some("c"),
                Some("ada"),
            ])),
        ),
        ("dictionary", Arc::new(dictionary.finish())),
        (
            "boolean",
            Arc::new(BooleanArray::from(vec![
                Some(true),
                Some(false),
                None,
                None,
                Some(true),
            ])),
        ),
        (
            "int8",
            Arc::new(Int8Array::from(vec![
                Some(1),
                Some(-1),
                None,
                Some(i8::MIN),
                Some(1),
            ])),
        ),
        (
            "int16",
            Arc::new(Int16Array::from(vec![
                Some(1),
                Some(-1),
                None,
                Some(i16::MAX),
                Some(1),
            ])),
        ),
        (
            "int32",
            Arc::new(Int32Array::from(vec![
                Some(1),
                Some(-1),
                None,
                Some(i32::MAX),
                Some(1),
            ])),
        ),
        (
            "int64",
            Arc::new(Int64Array::from(vec![
                Some(1),
                Some(-1),
                None,
                Some(i64::MIN),
                Some(1),
            ])),
        ),
        (
            "uint8",
            Arc::new(UInt8Array::from(vec![
                Some(1),
                Some(2),
                None,
                Some(u8::MAX),
                Some(1),
            ])),
        ),
        (
            "uint16",
            Arc::new(UInt16Array::from(vec![
                Some(1),
                Some(2),
                None,
                Some(3),
                Some(1),
            ])),
        ),
        (
            "uint32",
            Arc::new(UInt32Array::from(vec![
                Some(1),
                Some(2),
                None,
                Some(3),
                Some(1),
            ])),
        ),
        (
            "uint64",
            Arc::new(UInt64Array::from(vec![
                Some(1),
                Some(2),
                None,
                Some(u64::MAX),
                Some(1),
            ])),
        ),
        (
            "float32",
            Arc::new(Float32Array::from(vec![
                Some(0.5),
                Some(f32::NAN),
                None,
                Some(-0.0),
                Some(0.5),
            ])),
        ),
        (
            "float64",
            Arc::new(Float64Array::from(vec![
                Some(0.5),
                Some(f64::INFINITY),
                None,
                Some(1e300),
                Some(0.5),
            ])),
        ),
        (
            "decimal128",
            Arc::new(
                Decimal128Array::from(vec![Some(12345), Some(-1), None, Some(0), Some(12345)])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
        ),
        (
            "decimal256",
            Arc::new(
                Decimal256Array::from(vec![
                    Some(12345.into()),
                    Some(
                        I256::from_i128(i128::MAX)
                            .checked_mul(I256::from_i128(1000))
                            .unwrap(),
                    ),
                    None,
                    Some(0.into()),
                    Some(12345.into()),
                ])
                .with_precision_and_scale(76, 2)
                .unwrap(),
            ),
        ),
        (
            "date32",
            Arc::new(Date32Array::from(vec![
                Some(19_000),
                Some(0),
                None,
                Some(-1),
                Some(19_000),
            ])),
        ),
        (
            "date64",
            Arc::new(Date64Array::from(vec![
                Some(86_400_000),
                Some(1),
                None,
                Some(0),
                Some(86_400_000),
            ])),
        ),
        (
            "timestamp",
            Arc::new(TimestampSecondArray::from(vec![
                Some(1),
                Some(2),
                None,
                Some(3),
                Some(1),
            ])),
        ),
        (
            "timestamp_tz",
            Arc::new(
                TimestampMillisecondArray::from(vec![Some(1), Some(2), None, Some(3), Some(1)])
                    .with_timezone("Europe/Paris"),
            ),
        ),
        (
            "time64",
            Arc::new(Time64MicrosecondArray::from(vec![
                Some(1),
                Some(2),
                None,
                Some(3),
                Some(1),
            ])),
        ),
        (
            "duration",
            Arc::new(DurationMillisecondArray::from(vec![
                Some(1),
                Some(2),
                None,
                Some(3),
                Some(1),
            ])),
        ),
        (
            "interval",
            Arc::new(IntervalMonthDayNanoArray::from(vec![
                Some(arrow_array::types::IntervalMonthDayNano::new(1, 2, 3)),
                Some(arrow_array::types::IntervalMonthDayNano::new(0, 0, 0)),
                None,
                Some(arrow_array::types::IntervalMonthDayNano::new(-1, 0, 5)),
                Some(arrow_array::types::IntervalMonthDayNano::new(1, 2, 3)),
            ])),
        ),
        (
            "binary",
            Arc::new(BinaryArray::from(vec![
                Some(&b"x"[..]),
                Some(b""),
                None,
                Some(b"\xff\x00"),
                Some(b"x"),
            ])),
        ),
        (
            "large_binary",
            Arc::new(LargeBinaryArray::from(vec![
                Some(&b"x"[..]),
                Some(b""),
                None,
                Some(b"y"),
                Some(b"x"),
            ])),
        ),
        ("fixed_size_binary", Arc::new(fixed.finish())),
        ("binary_view", Arc::new(view.finish())),
        ("list", Arc::new(list.finish())),
        ("fixed_size_list", Arc::new(fixed_list)),
        ("struct", Arc::new(structs)),
        ("map", Arc::new(map.finish())),
        ("union", Arc::new(union)),
        ("run_end_encoded", Arc::new(runs)),
        ("null", Arc::new(NullArray::new(5))),
    ]
}

fn logical_nulls(array: &dyn Array) -> Vec<bool> {
    let nulls = array.logical_nulls();
    (0..array.len())
        .map(|i| nulls.as_ref().is_some_and(|n| n.is_null(i)))
        .collect()
}

#[test]
fn every_rule_masks_every_type_family_keeping_length_and_nulls() {
    for (name, array) in every_family() {
        let nulls = logical_nulls(array.as_ref());
        for rule in RULES {
            let masked = mask_array(&array, rule, &key())
                .unwrap_or_else(|e| panic!("{name} with {rule:?}: {e}"));
            assert_eq!(masked.len(), array.len(), "{name} {rule:?}");
            assert_eq!(
                masked.data_type(),
                &masked_type(rule, array.data_type()).unwrap(),
                "{name} {rule:?}"
            );
            if rule == MaskRule::Null {
                assert_eq!(masked.logical_null_count(), array.len(), "{name}");
                continue;
            }
            assert_eq!(logical_nulls(masked.as_ref()), nulls, "{name} {rule:?}");
            for (row, value) in strings(&masked).into_iter().enumerate() {
                let Some(value) = value else { continue };
                match rule {
                    MaskRule::Redact => assert_eq!(value, "[masked]"),
                    MaskRule::Hash => {
                        assert!(
                            value.starts_with("h:") && value.len() == 18,
                            "{name}: {value}"
                        );
                        assert!(value[2..].bytes().all(|b| b.is_ascii_hexdigit()));
                    }
                    _ => assert!(value.starts_with("****"), "{name} row {row}: {value}"),
                }
            }
        }
    }
}

#[test]
fn equal_values_hash_equal_and_different_ones_differ_in_every_family() {
    // Each family's array repeats row 0 at row 4; rows 0, 1 and 3 hold different values
    // where both are non-NULL.
    for (name, array) in every_family() {
        let tokens = hashed(array.clone());
        assert_eq!(tokens[0], tokens[4], "{name}");
        let present: Vec<&String> = [0, 1, 3]
            .iter()
            .filter_map(|&i| tokens[i].as_ref())
            .collect();
        let distinct: HashSet<&&String> = present.iter().collect();
        assert_eq!(distinct.len(), present.len(), "{name}: {tokens:?}");
    }
}

#[test]
fn sliced_arrays_mask_like_the_same_rows_of_the_whole() {
    for (name, array) in every_family() {
        for rule in RULES {
            let whole = mask_array(&array, rule, &key()).unwrap();
            let sliced = mask_array(&array.slice(1, 3), rule, &key()).unwrap();
            if rule == MaskRule::Null {
                assert_eq!(sliced.logical_null_count(), 3, "{name}");
                continue;
            }
            assert_eq!(
                strings(&sliced),
                strings(&whole.slice(1, 3)),
                "{name} {rule:?}"
            );
        }
    }
}

#[test]
fn empty_and_all_null_arrays_of_every_family() {
    for (name, array) in every_family() {
        let all_null = new_null_array(array.data_type(), 4);
        for rule in RULES {
            let empty = mask_array(&array.slice(0, 0), rule, &key()).unwrap();
            assert_eq!(empty.len(), 0, "{name} {rule:?}");
            let masked = mask_array(&all_null, rule, &key()).unwrap();
            assert_eq!(masked.len(), 4, "{name} {rule:?}");
            assert_eq!(masked.logical_null_count(), 4, "{name} {rule:?}");
        }
    }
}

#[test]
fn text_hashes_the_same_in_every_string_type_and_encoding() {
    let values = vec![Some("ada@example.com"), None, Some("東京")];
    let utf8 = hashed(Arc::new(StringArray::from(values.clone())));
    let large = hashed(Arc::new(LargeStringArray::from(values.clone())));
    let view = hashed(Arc::new(StringViewArray::from(values.clone())));
    let dictionary: DictionaryArray<UInt8Type> = values.clone().into_iter().collect();
    let dictionary = hashed(Arc::new(dictionary));
    let runs = RunArray::<Int32Type>::try_new(
        &Int32Array::from(vec![1, 2, 3]),
        &LargeStringArray::from(values.clone()),
    )
    .unwrap();
    let runs = hashed(Arc::new(runs));
    assert_eq!(utf8, large);
    assert_eq!(utf8, view);
    assert_eq!(utf8, dictionary);
    assert_eq!(utf8, runs);
    assert!(utf8[1].is_none());
    // Text and bytes are different families, even with the same bytes.
    let bytes = hashed(Arc::new(BinaryArray::from(vec![&b"ada@example.com"[..]])));
    assert_ne!(utf8[0], bytes[0]);
}

#[test]
fn numbers_hash_by_value_across_widths_and_decimal_scales() {
    let five = |array: ArrayRef| hashed(array)[0].clone().unwrap();
    let int8 = five(Arc::new(Int8Array::from(vec![5])));
    assert_eq!(int8, five(Arc::new(Int32Array::from(vec![5]))));
    assert_eq!(int8, five(Arc::new(Int64Array::from(vec![5]))));
    assert_eq!(int8, five(Arc::new(UInt64Array::from(vec![5]))));
    let decimal = |value: i128, scale: i8| {
        five(Arc::new(
            Decimal128Array::from(vec![value])
                .with_precision_and_scale(38, scale)
                .unwrap(),
        ))
    };
    assert_eq!(int8, decimal(5, 0));
    assert_eq!(int8, decimal(500, 2));
    assert_eq!(decimal(50, 1), decimal(5000, 3), "5.0 and 5.000");
    assert_ne!(decimal(51, 1), decimal(5, 0));
    assert_eq!(
        decimal(51, 1),
        five(Arc::new(
            Decimal256Array::from(vec![I256::from_i128(5100)])
                .with_precision_and_scale(76, 3)
                .unwrap()
        ))
    );
    assert_ne!(int8, five(Arc::new(Int8Array::from(vec![6]))));
    // Floats are their own family; -0.0 is 0.0 and every NaN is one NaN, as SQL groups them.
    let floats = hashed(Arc::new(Float64Array::from(vec![
        0.0,
        -0.0,
        f64::NAN,
        -f64::NAN,
        5.0,
    ])));
    assert_eq!(floats[0], floats[1]);
    assert_eq!(floats[2], floats[3]);
    assert_ne!(floats[4].as_ref(), Some(&int8));
    let widened = hashed(Arc::new(Float32Array::from(vec![0.5])));
    assert_eq!(
        widened[0],
        hashed(Arc::new(Float64Array::from(vec![0.5])))[0]
    );
}

#[test]
fn instants_hash_by_value_across_units() {
    let seconds = hashed(Arc::new(TimestampSecondArray::from(vec![86_400])));
    let millis = hashed(Arc::new(TimestampMillisecondArray::from(vec![86_400_000])));
    assert_eq!(seconds, millis);
    let zoned = hashed(Arc::new(
        TimestampMillisecondArray::from(vec![86_400_000]).with_timezone("+02:00"),
    ));
    let other_zone = hashed(Arc::new(
        TimestampSecondArray::from(vec![86_400]).with_timezone("UTC"),
    ));
    assert_eq!(zoned, other_zone, "the same instant in two zones");
    assert_ne!(zoned, seconds, "an instant is not a local time");
    let day = hashed(Arc::new(Date32Array::from(vec![1])));
    assert_eq!(day, hashed(Arc::new(Date64Array::from(vec![86_400_000]))));
    assert_ne!(day, seconds, "a date is not a timestamp");
}

#[test]
fn hashes_are_stable_across_calls_and_releases_and_depend_on_the_key() {
    let values: ArrayRef = Arc::new(StringArray::from(vec!["ada@example.com", "42"]));
    let first = strings(&mask_array(&values, MaskRule::Hash, &key()).unwrap());
    let again = strings(&mask_array(&values, MaskRule::Hash, &key()).unwrap());
    assert_eq!(first, again);
    // Pinned: a host with a stored key relies on tokens not changing between releases.
    assert_eq!(first[0].as_deref(), Some(PINNED_EMAIL_TOKEN));
    let other_key = MaskKey::from_bytes(*b"fedcba9876543210");
    let other = strings(&mask_array(&values, MaskRule::Hash, &other_key).unwrap());
    assert_ne!(first[0], other[0]);
    let hex = MaskKey::from_hex("30313233343536373839616263646566").unwrap();
    assert_eq!(
        strings(&mask_array(&values, MaskRule::Hash, &hex).unwrap()),
        first
    );
}

const PINNED_EMAIL_TOKEN: &str = "h:280d32d7fd6d9447";

#[test]
fn hash_masking_keeps_the_number_of_distinct_values() {
    // 100 000 rows, 37 123 distinct values, as text and as integers.
    let ids: Vec<i64> = (0..100_000i64).map(|i| (i * 7919) % 37_123).collect();
    let distinct = ids.iter().collect::<HashSet<_>>().len();
    assert_eq!(distinct, 37_123);
    let emails: ArrayRef = Arc::new(StringArray::from_iter_values(
        ids.iter().map(|i| format!("user{i}@example.com")),
    ));
    let numbers: ArrayRef = Arc::new(Int64Array::from(ids.clone()));
    for array in [emails, numbers] {
        let tokens = strings(&mask_array(&array, MaskRule::Hash, &key()).unwrap());
        assert_eq!(tokens.iter().collect::<HashSet<_>>().len(), distinct);
        // And the groups are the same groups: equal tokens exactly where equal ids.
        let mut by_token = std::collections::HashMap::new();
        for (token, id) in tokens.iter().zip(&ids) {
            assert_eq!(*by_token.entry(token.clone()).or_insert(*id), *id);
        }
    }
}

#[test]
fn partial_keeps_characters_of_multibyte_text_and_of_non_text_values() {
    let text: ArrayRef = Arc::new(StringViewArray::from(vec![
        Some("Zoë Ångström"),
        Some("東京都港区六本木"),
        None,
        Some("ab"),
    ]));
    let shown = strings(&mask_array(&text, MaskRule::Partial { keep_last: 3 }, &key()).unwrap());
    assert_eq!(
        shown,
        [
            Some("****röm".into()),
            Some("****六本木".into()),
            None,
            Some("****b".into())
        ]
    );
    let phones: ArrayRef = Arc::new(Int64Array::from(vec![33_612_345_678, 7]));
    let shown = strings(&mask_array(&phones, MaskRule::Partial { keep_last: 4 }, &key()).unwrap());
    assert_eq!(shown, [Some("****5678".into()), Some("****".into())]);
    let dates: ArrayRef = Arc::new(Date32Array::from(vec![19_783]));
    let shown = strings(&mask_array(&dates, MaskRule::Partial { keep_last: 2 }, &key()).unwrap());
    assert_eq!(shown, [Some("****01".into())], "2024-03-01");
}

#[test]
fn redact_and_null_on_dictionaries_look_through_to_the_values() {
    // A valid key pointing at a NULL value is NULL.
    let dictionary = DictionaryArray::<Int8Type>::try_new(
        vec![0i8, 1, 0].into(),
        Arc::new(StringArray::from(vec![Some("x"), None])),
    )
    .unwrap();
    let array: ArrayRef = Arc::new(dictionary);
    let redacted = strings(&mask_array(&array, MaskRule::Redact, &key()).unwrap());
    assert_eq!(
        redacted,
        [Some("[masked]".into()), None, Some("[masked]".into())]
    );
    let nulls = mask_array(&array, MaskRule::Null, &key()).unwrap();
    assert_eq!(nulls.data_type(), array.data_type());
    assert_eq!(nulls.logical_null_count(), 3);
}

fn customers() -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("email", DataType::Utf8, false)
            .with_metadata([("comment".to_owned(), "contact".to_owned())].into()),
        Field::new("card", DataType::LargeUtf8, true),
        Field::new("ssn", DataType::Int32, false),
    ]));
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(vec![1, 2, 3])),
            Arc::new(StringArray::from(vec![
                "ada@example.com",
                "bob@example.com",
                "ada@example.com",
            ])),
            Arc::new(LargeStringArray::from(vec![
                Some("4242424242424242"),
                None,
                Some("5555"),
            ])),
            Arc::new(Int32Array::from(vec![
                123_456_789,
                987_654_321,
                111_223_333,
            ])),
        ],
    )
    .unwrap()
}

#[test]
fn batch_masker_gives_one_schema_for_every_batch_and_keeps_unmasked_columns() {
    let batch = customers();
    let masker = BatchMasker::new(
        &batch.schema(),
        [
            MaskedColumn::new(1, MaskRule::Hash, "customers.email"),
            MaskedColumn::new(2, MaskRule::Partial { keep_last: 4 }, "customers.card"),
            MaskedColumn::new(3, MaskRule::Null, "customers.ssn"),
        ],
        key(),
    )
    .unwrap();
    let output = masker.output_schema().clone();
    let email = output.field(1);
    assert_eq!(email.data_type(), &DataType::Utf8);
    assert!(email.is_nullable());
    assert_eq!(
        email
            .metadata()
            .get(MASKED_FIELD_METADATA)
            .map(String::as_str),
        Some("hashed by the host's policy (customers.email)")
    );
    assert_eq!(
        email.metadata().get("comment").map(String::as_str),
        Some("contact")
    );
    assert_eq!(output.field(2).data_type(), &DataType::Utf8);
    let ssn = output.field(3);
    assert_eq!(ssn.data_type(), &DataType::Int32);
    assert!(ssn.is_nullable());
    assert_eq!(
        ssn.metadata()
            .get(MASKED_FIELD_METADATA)
            .map(String::as_str),
        Some("replaced by NULL by the host's policy (customers.ssn)")
    );
    assert!(output.field(0).metadata().is_empty());

    for part in [batch.clone(), batch.slice(1, 2), batch.slice(0, 0)] {
        let masked = masker.mask_batch(&part).unwrap();
        assert_eq!(masked.schema(), output);
        assert_eq!(masked.num_rows(), part.num_rows());
        assert!(Arc::ptr_eq(masked.column(0), part.column(0)), "not copied");
    }
    let masked = masker.mask_batch(&batch).unwrap();
    let emails = strings(masked.column(1));
    assert_eq!(emails[0], emails[2]);
    assert_ne!(emails[0], emails[1]);
    assert_eq!(
        strings(masked.column(2)),
        [Some("****4242".into()), None, Some("****55".into())]
    );
    assert_eq!(masked.column(3).null_count(), 3);
}

#[test]
fn batch_masker_merges_masks_of_one_column_and_refuses_bad_input() {
    let batch = customers();
    let masker = BatchMasker::new(
        &batch.schema(),
        [
            MaskedColumn::new(1, MaskRule::Partial { keep_last: 4 }, "a.email"),
            MaskedColumn::new(1, MaskRule::Hash, "b.email"),
            MaskedColumn::new(1, MaskRule::Hash, "b.email"),
        ],
        key(),
    )
    .unwrap();
    let field = masker.output_schema().field(1).clone();
    assert_eq!(
        field.metadata()[MASKED_FIELD_METADATA],
        "hidden but for the last 4 characters by the host's policy (a.email); hashed by the host's policy (b.email)"
    );
    let masked = masker.mask_batch(&batch).unwrap();
    assert!(
        strings(masked.column(1))[0]
            .as_deref()
            .unwrap()
            .starts_with("h:"),
        "the stricter rule"
    );

    let missing = BatchMasker::new(
        &batch.schema(),
        [MaskedColumn::new(9, MaskRule::Hash, "x")],
        key(),
    )
    .unwrap_err();
    assert!(
        matches!(
            missing,
            MaskError::NoSuchColumn {
                index: 9,
                columns: 4
            }
        ),
        "{missing}"
    );

    let other = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)])),
        vec![Arc::new(Int64Array::from(vec![1]))],
    )
    .unwrap();
    let mismatch = masker.mask_batch(&other).unwrap_err();
    assert!(
        mismatch
            .to_string()
            .contains("the batch has 1 columns, the result 4"),
        "{mismatch}"
    );
}

#[test]
fn custom_reasons_replace_the_policy_wording() {
    let batch = customers();
    let masker = BatchMasker::new(
        &batch.schema(),
        [MaskedColumn::new(1, MaskRule::Redact, "customers.email").with_reason("redacted: GDPR")],
        key(),
    )
    .unwrap();
    assert_eq!(
        masker.output_schema().field(1).metadata()[MASKED_FIELD_METADATA],
        "redacted: GDPR"
    );
}

#[test]
fn deeply_nested_types_are_refused_not_overflowed() {
    let mut data_type = DataType::Int32;
    for _ in 0..70 {
        data_type = DataType::List(Arc::new(Field::new_list_field(data_type, true)));
    }
    let array = new_null_array(&data_type, 1);
    let error = mask_array(&array, MaskRule::Hash, &key()).unwrap_err();
    assert!(
        error.to_string().contains("nests deeper than 64 levels"),
        "{error}"
    );
    // The rules that do not read values still work.
    assert!(mask_array(&array, MaskRule::Null, &key()).is_ok());
    assert!(mask_array(&array, MaskRule::Redact, &key()).is_ok());
}

// The value detector.

fn masked_text(text: &str) -> String {
    ValueDetector::all().mask_text(text).into_owned()
}

#[test]
fn detector_finds_each_kind() {
    let cases = [
        (
            "mail ada.lovelace+notes@example.co.uk now",
            "mail [email] now",
        ),
        ("call +33 6 12 34 56 78.", "call [phone]."),
        ("call +1 (555) 010-0199", "call [phone]"),
        ("tel 06 12 34 56 78", "tel [phone]"),
        ("tel 06.12.34.56.78", "tel [phone]"),
        ("London 020 7946 0958", "London [phone]"),
        ("US (555) 010-0199 or 555-010-0199", "US [phone] or [phone]"),
        ("+442079460958", "[phone]"),
        ("card 4111 1111 1111 1111 exp", "card [card number] exp"),
        ("card 4111-1111-1111-1111", "card [card number]"),
        ("amex 378282246310005", "amex [card number]"),
        (
            "IBAN DE89 3704 0044 0532 0130 00 please",
            "IBAN [iban] please",
        ),
        ("to GB29NWBK60161331926819.", "to [iban]."),
        ("ssn 123-45-6789", "ssn [ssn]"),
        ("NI: QQ? no, AB 12 34 56 C", "NI: QQ? no, [nino]"),
        ("NIR 2 84 12 76 451 089 93", "NIR [nir]"),
        ("NIR 284127645108993", "NIR [nir]"),
        ("DNI 12345678Z, NIE X1234567L", "DNI [dni], NIE [dni]"),
        ("two: 06 12 34 56 78 07 12 34 56 78", "two: [phone]"),
    ];
    for (text, expected) in cases {
        assert_eq!(masked_text(text), expected, "{text}");
    }
}

#[test]
fn detector_leaves_look_alikes_alone() {
    let plain = [
        "on 2024-03-01 at 12:30",
        "on 01-03-2024 and 01.03.2024 10.30",
        "order ORD-2024-000123 and #20240301-0042",
        "version 10.0.19041.1 and 1.2.3.4, host 192.168.100.200",
        "id 1234567890123456 and 4111 1111 1111 1112",
        "IBAN DE88 3704 0044 0532 0130 00 (wrong check digits)",
        "ssn 666-12-3456, 000-12-3456, 123-00-4567",
        "NINO QQ 12 34 56 C, GB 12 34 56 A",
        "NIR 2 84 12 76 451 089 94",
        "DNI 12345678A",
        "amounts 1 000 000 and 0.5 1.5 2.5 and 0 1 2 3 4 5 6 7 8 9",
        "1700000000000 ms and 12345678",
        "ada at example dot com",
        "",
        "no digits here at all",
    ];
    for text in plain {
        assert_eq!(masked_text(text), text);
    }
}

#[test]
fn detector_uses_only_its_kinds() {
    let cards = ValueDetector::new([ValueKind::PaymentCard]);
    assert_eq!(cards.kinds(), [ValueKind::PaymentCard]);
    assert_eq!(
        cards.mask_text("ada@example.com 4242 4242 4242 4242"),
        "ada@example.com [card number]"
    );
}

#[test]
fn long_cells_are_scanned_in_linear_time() {
    // A megabyte of digits and separators: every candidate is checked a bounded number of
    // times, so this takes milliseconds, not minutes.
    let long = "1 2-3.4 ".repeat(125_000) + "ada@example.com";
    let masked = masked_text(&long);
    assert!(masked.ends_with("[email]"));
    let digits = "9".repeat(1_000_000);
    assert_eq!(masked_text(&digits), digits);
}

#[test]
fn scan_batch_masks_text_columns_of_every_string_type_and_counts() {
    let mut dictionary = StringDictionaryBuilder::<Int32Type>::new();
    for v in [
        Some("ada@example.com"),
        Some("none"),
        None,
        Some("ada@example.com"),
    ] {
        dictionary.append_option(v);
    }
    let notes = StringArray::from(vec![
        Some("write to ada@example.com or bob@example.com"),
        None,
        Some("nothing here"),
        Some("card 4242 4242 4242 4242"),
    ]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("notes", DataType::Utf8, true),
        Field::new("tags", dictionary.finish().data_type().clone(), true),
        Field::new("view", DataType::Utf8View, true),
        Field::new("large", DataType::LargeUtf8, true),
        Field::new("clean", DataType::Utf8, true),
        Field::new("hashed", DataType::Utf8, true)
            .with_metadata([(MASKED_FIELD_METADATA.to_owned(), "hashed".to_owned())].into()),
    ]));
    let mut dictionary = StringDictionaryBuilder::<Int32Type>::new();
    for v in [
        Some("ada@example.com"),
        Some("none"),
        None,
        Some("ada@example.com"),
    ] {
        dictionary.append_option(v);
    }
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from(vec![1, 2, 3, 4])),
            Arc::new(notes),
            Arc::new(dictionary.finish()),
            Arc::new(StringViewArray::from(vec![
                Some("+33 6 12 34 56 78"),
                None,
                Some("x"),
                Some("y"),
            ])),
            Arc::new(LargeStringArray::from(vec![
                Some("DE89370400440532013000"),
                None,
                None,
                None,
            ])),
            Arc::new(StringArray::from(vec![
                Some("a"),
                Some("b"),
                None,
                Some("c"),
            ])),
            Arc::new(StringArray::from(vec![
                Some("ada@example.com"),
                None,
                None,
                None,
            ])),
        ],
    )
    .unwrap();
    let (masked, detections) = ValueDetector::all().scan_batch(&batch).unwrap();
    assert_eq!(masked.schema(), schema, "the stream's schema is kept");
    assert_eq!(
        strings(masked.column(1)),
        [
            Some("write to [email] or [email]".into()),
            None,
            Some("nothing here".into()),
            Some("card [card number]".into())
        ]
    );
    let tags = masked
        .column(2)
        .as_any()
        .downcast_ref::<DictionaryArray<Int32Type>>()
        .unwrap();
    let tags: Vec<Option<&str>> = tags
        .downcast_dict::<StringArray>()
        .unwrap()
        .into_iter()
        .collect();
    assert_eq!(tags, [Some("[email]"), Some("none"), None, Some("[email]")]);
    let view = masked
        .column(3)
        .as_any()
        .downcast_ref::<StringViewArray>()
        .unwrap();
    assert_eq!(view.value(0), "[phone]");
    let large = masked
        .column(4)
        .as_any()
        .downcast_ref::<LargeStringArray>()
        .unwrap();
    assert_eq!(large.value(0), "[iban]");
    assert!(
        Arc::ptr_eq(masked.column(5), batch.column(5)),
        "unchanged columns are not copied"
    );
    assert!(
        Arc::ptr_eq(masked.column(6), batch.column(6)),
        "masked columns are left alone"
    );

    let found: Vec<String> = detections.iter().map(ToString::to_string).collect();
    assert_eq!(
        found,
        [
            "2 values in column `notes` looked like email addresses and were replaced by [email].",
            "1 value in column `notes` looked like payment card numbers and was replaced by [card number].",
            "2 values in column `tags` looked like email addresses and were replaced by [email].",
            "1 value in column `view` looked like phone numbers and was replaced by [phone].",
            "1 value in column `large` looked like IBANs and was replaced by [iban].",
        ]
    );
    assert_eq!(detections.values(), 7);

    // Merged over a stream, then marked on the result's schema.
    let (_, second) = ValueDetector::all().scan_batch(&batch.slice(0, 1)).unwrap();
    let mut total = Detections::default();
    total.merge(detections);
    total.merge(second);
    assert_eq!(total.values(), 7 + 5);
    let marked = total.mark_schema(&schema);
    assert_eq!(
        marked.field(1).metadata()[MASKED_FIELD_METADATA],
        "by the host's value detector: 4 values that looked like email addresses were replaced by [email]; 1 value that looked like payment card numbers was replaced by [card number]"
    );
    assert!(marked.field(0).metadata().is_empty());
    assert_eq!(marked.field(6).metadata()[MASKED_FIELD_METADATA], "hashed");
}

#[test]
fn scan_batch_without_findings_returns_the_same_columns() {
    let batch = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new("note", DataType::Utf8, true)])),
        vec![Arc::new(StringArray::from(vec![
            "2024-03-01",
            "v1.2.3",
            "fine",
        ]))],
    )
    .unwrap();
    let (masked, detections) = ValueDetector::all().scan_batch(&batch).unwrap();
    assert!(detections.is_empty());
    assert!(Arc::ptr_eq(masked.column(0), batch.column(0)));
}
