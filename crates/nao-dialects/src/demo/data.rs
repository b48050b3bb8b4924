//! The generator of the demo tables.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Decimal128Builder, Int32Builder, Int64Builder, StringBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};

use super::rng::Rng;
use super::{DemoScale, DemoTable};

/// Days from 1970-01-01 to 2023-01-01.
const START_DAY: i32 = 19_358;
/// The two years the data covers, in days.
const DAYS: i32 = 731;
const MICROS_PER_DAY: i64 = 86_400_000_000;

const FIRST_NAMES: &[&str] = &[
    "Ada",
    "Bruno",
    "Chloé",
    "Dmitri",
    "Eun-ji",
    "Farah",
    "Gustavo",
    "Hana",
    "Ioana",
    "Jonas",
    "Kwame",
    "Léa",
    "Mateo",
    "Nadia",
    "Olivier",
    "Priya",
    "Quentin",
    "Rosa",
    "Søren",
    "Tomás",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoë",
    "O'Brien",
    "Anne-Marie",
];
const LAST_NAMES: &[&str] = &[
    "Smith",
    "García",
    "Müller",
    "Rossi",
    "Dubois",
    "Kowalski",
    "Nakamura",
    "Okafor",
    "Silva",
    "Johansson",
    "Novák",
    "Haddad",
    "Kim",
    "Ivanova",
    "O'Connor",
    "van der Berg",
    "Nguyễn",
];
const COUNTRIES: &[(&str, &[&str])] = &[
    ("US", &["New York", "Austin", "Seattle", "Chicago"]),
    ("FR", &["Paris", "Lyon", "Marseille"]),
    ("DE", &["Berlin", "München", "Köln"]),
    ("GB", &["London", "Manchester"]),
    ("ES", &["Madrid", "Barcelona", "Sevilla"]),
    ("JP", &["Tokyo", "Ōsaka"]),
    ("BR", &["São Paulo", "Rio de Janeiro"]),
    ("IN", &["Bengaluru", "Mumbai"]),
];
const COUNTRY_WEIGHTS: &[u64] = &[30, 15, 15, 10, 10, 8, 7, 5];
const SEGMENTS: &[&str] = &["consumer", "small_business", "enterprise"];
const CATEGORIES: &[(&str, &[&str], i64, i64)] = &[
    (
        "Electronics",
        &["Headphones", "Charger", "Keyboard", "Monitor", "Webcam"],
        1_500,
        60_000,
    ),
    (
        "Home",
        &["Lamp", "Kettle", "Blanket", "Vase", "Clock"],
        900,
        15_000,
    ),
    (
        "Books",
        &["Novel", "Cookbook", "Atlas", "Biography"],
        500,
        6_000,
    ),
    (
        "Sports",
        &["Yoga Mat", "Dumbbell", "Running Shoes", "Water Bottle"],
        800,
        20_000,
    ),
    (
        "Toys",
        &["Puzzle", "Board Game", "Kite", "Robot Kit"],
        700,
        12_000,
    ),
    (
        "Grocery",
        &["Coffee Beans", "Olive Oil", "Tea Sampler", "Chocolate"],
        300,
        4_000,
    ),
];
const ADJECTIVES: &[&str] = &[
    "Classic", "Pro", "Eco", "Deluxe", "Mini", "Ultra", "Smart", "Vintage",
];
const STATUSES: &[&str] = &[
    "delivered",
    "shipped",
    "paid",
    "placed",
    "cancelled",
    "refunded",
];
const STATUS_WEIGHTS: &[u64] = &[62, 12, 8, 5, 8, 5];
const CHANNELS: &[&str] = &["web", "mobile", "store"];
const METHODS: &[&str] = &["card", "paypal", "bank_transfer", "gift_card"];
const REVIEW_TITLES: &[&str] = &[
    "Great value",
    "Not what I expected",
    "Works | mostly",
    "5/5 would buy again 😀",
    "<b>Excellent</b>",
    "Broke after a week",
    "\"Perfect\" gift",
    "# Best purchase",
    "Arrived late\nbut fine",
    "Ça marche très bien",
    "[link](http://example.com)",
    "質量很好",
];
const REVIEW_BODIES: &[&str] = &[
    "Does the job. Shipping was quick.",
    "The colour is different from the photo; returned it.",
    "Line one\nLine two\n\tindented",
    "Use `code` like this | and pipes.",
    "I'd recommend it to anyone — 10/10.",
    "Packaging: <script>alert('x')</script> (kidding)",
    "Meh.",
    "Fits perfectly 👍🏽 and feels sturdy.",
    "Back\\slash and 'quotes' and \"double quotes\".",
    "",
];

fn schema(fields: Vec<Field>) -> Arc<Schema> {
    Arc::new(Schema::new(fields))
}

fn money(precision: u8) -> DataType {
    DataType::Decimal128(precision, 2)
}

fn timestamp() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, None)
}

/// Generates the demo tables at `scale`. Deterministic: the same scale gives the same rows.
pub fn generate(scale: DemoScale) -> Result<Vec<DemoTable>, ArrowError> {
    let (customers, products, orders) = scale.sizes();
    let mut rng = Rng::new(0x6E61_6F2D_7273);
    let customer_signups = generate_customers(&mut rng, customers)?;
    let (product_table, prices) = generate_products(&mut rng, products)?;
    let (order_table, item_table, payment_table) =
        generate_orders(&mut rng, orders, &customer_signups.1, &prices)?;
    let review_table = generate_reviews(&mut rng, orders / 3, customers, products)?;
    Ok(vec![
        customer_signups.0,
        product_table,
        order_table,
        item_table,
        payment_table,
        review_table,
    ])
}

fn generate_customers(rng: &mut Rng, n: usize) -> Result<(DemoTable, Vec<i32>), ArrowError> {
    let mut id = Int64Builder::with_capacity(n);
    let mut name = StringBuilder::new();
    let mut email = StringBuilder::new();
    let mut country = StringBuilder::new();
    let mut city = StringBuilder::new();
    let mut segment = StringBuilder::new();
    let mut signup = Date32Builder::with_capacity(n);
    let mut signups = Vec::with_capacity(n);
    for i in 0..n {
        let first = rng.pick(FIRST_NAMES);
        let last = rng.pick(LAST_NAMES);
        let (code, cities) = COUNTRIES[rng.weighted(COUNTRY_WEIGHTS)];
        id.append_value(i as i64 + 1);
        name.append_value(format!("{first} {last}"));
        if rng.chance(4) {
            email.append_null();
        } else {
            let local: String = format!("{first}.{last}")
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '.')
                .collect();
            email.append_value(format!("{}{}@example.com", local.to_lowercase(), i + 1));
        }
        country.append_value(code);
        city.append_value(rng.pick(cities));
        if rng.chance(6) {
            segment.append_null();
        } else {
            segment.append_value(SEGMENTS[rng.weighted(&[70, 22, 8])]);
        }
        // Signups lean early, so later months have more returning customers.
        let day =
            START_DAY + i32::try_from(rng.range(0, i64::from(DAYS) - 60)).unwrap_or(0) * 3 / 4;
        signup.append_value(day);
        signups.push(day);
    }
    let schema = schema(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("email", DataType::Utf8, true),
        Field::new("country", DataType::Utf8, false),
        Field::new("city", DataType::Utf8, false),
        Field::new("segment", DataType::Utf8, true),
        Field::new("signup_date", DataType::Date32, false),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(name.finish()),
        Arc::new(email.finish()),
        Arc::new(country.finish()),
        Arc::new(city.finish()),
        Arc::new(segment.finish()),
        Arc::new(signup.finish()),
    ];
    let table = DemoTable {
        name: "customers",
        comment: "People who bought at least once or signed up; one row per customer.",
        column_comments: &[
            ("country", "ISO 3166-1 alpha-2 code of the billing country"),
            (
                "segment",
                "consumer, small_business or enterprise; NULL when unknown",
            ),
        ],
        batches: vec![RecordBatch::try_new(schema, columns)?],
    };
    Ok((table, signups))
}

fn generate_products(rng: &mut Rng, n: usize) -> Result<(DemoTable, Vec<i128>), ArrowError> {
    let mut id = Int64Builder::with_capacity(n);
    let mut name = StringBuilder::new();
    let mut category = StringBuilder::new();
    let mut price = Decimal128Builder::with_capacity(n).with_data_type(money(10));
    let mut cost = Decimal128Builder::with_capacity(n).with_data_type(money(10));
    let mut launched = Date32Builder::with_capacity(n);
    let mut active = BooleanBuilder::with_capacity(n);
    let mut prices = Vec::with_capacity(n);
    for i in 0..n {
        let (cat, kinds, low, high) = CATEGORIES[i % CATEGORIES.len()];
        id.append_value(i as i64 + 1);
        name.append_value(format!(
            "{} {} {}",
            rng.pick(ADJECTIVES),
            rng.pick(kinds),
            i + 1
        ));
        category.append_value(cat);
        // Prices end in .99 or .49 most of the time, like a shop's.
        let cents =
            i128::from(rng.range(low, high) / 100 * 100 + if rng.chance(70) { 99 } else { 49 });
        price.append_value(cents);
        cost.append_value(cents * i128::from(rng.range(35, 70)) / 100);
        launched.append_value(START_DAY - 200 + i32::try_from(rng.range(0, 700)).unwrap_or(0));
        active.append_value(!rng.chance(8));
        prices.push(cents);
    }
    let schema = schema(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("category", DataType::Utf8, false),
        Field::new("price", money(10), false),
        Field::new("cost", money(10), false),
        Field::new("launched_on", DataType::Date32, false),
        Field::new("is_active", DataType::Boolean, false),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(id.finish()),
        Arc::new(name.finish()),
        Arc::new(category.finish()),
        Arc::new(price.finish()),
        Arc::new(cost.finish()),
        Arc::new(launched.finish()),
        Arc::new(active.finish()),
    ];
    let table = DemoTable {
        name: "products",
        comment: "The catalogue: current list price and unit cost per product.",
        column_comments: &[("price", "list price in EUR"), ("cost", "unit cost in EUR")],
        batches: vec![RecordBatch::try_new(schema, columns)?],
    };
    Ok((table, prices))
}

type OrderTables = (DemoTable, DemoTable, DemoTable);

fn generate_orders(
    rng: &mut Rng,
    n: usize,
    signups: &[i32],
    prices: &[i128],
) -> Result<OrderTables, ArrowError> {
    let mut o_id = Int64Builder::with_capacity(n);
    let mut o_customer = Int64Builder::with_capacity(n);
    let mut o_at = TimestampMicrosecondBuilder::with_capacity(n);
    let mut o_status = StringBuilder::new();
    let mut o_channel = StringBuilder::new();
    let mut o_total = Decimal128Builder::with_capacity(n).with_data_type(money(12));
    let mut o_discount = Decimal128Builder::with_capacity(n).with_data_type(money(12));
    let mut i_order = Int64Builder::new();
    let mut i_line = Int32Builder::new();
    let mut i_product = Int64Builder::new();
    let mut i_quantity = Int32Builder::new();
    let mut i_price = Decimal128Builder::new().with_data_type(money(10));
    let mut p_id = Int64Builder::new();
    let mut p_order = Int64Builder::new();
    let mut p_method = StringBuilder::new();
    let mut p_amount = Decimal128Builder::new().with_data_type(money(12));
    let mut p_status = StringBuilder::new();
    let mut p_at = TimestampMicrosecondBuilder::new();
    let mut payment_id = 0i64;
    for i in 0..n {
        let order_id = i as i64 + 1;
        let customer = rng.range(1, signups.len() as i64);
        let signup = signups[usize::try_from(customer - 1).unwrap_or(0)];
        // Orders grow over time and peak in November and December.
        let mut day = signup
            + i32::try_from(rng.range(0, i64::from(START_DAY + DAYS - 1 - signup))).unwrap_or(0);
        if rng.chance(12) {
            day = (day / 365) * 365 + 310 + i32::try_from(rng.range(0, 50)).unwrap_or(0);
        }
        let day = day.clamp(START_DAY, START_DAY + DAYS - 1);
        let at = i64::from(day) * MICROS_PER_DAY + rng.range(6 * 3_600, 23 * 3_600) * 1_000_000;
        let status = STATUSES[rng.weighted(STATUS_WEIGHTS)];
        let lines = rng.weighted(&[45, 30, 15, 7, 3]) + 1;
        let mut total: i128 = 0;
        for line in 0..lines {
            let product = rng.range(1, prices.len() as i64);
            let quantity = i32::try_from(rng.weighted(&[70, 18, 7, 3, 2]) + 1).unwrap_or(1);
            let unit = prices[usize::try_from(product - 1).unwrap_or(0)];
            total += unit * i128::from(quantity);
            i_order.append_value(order_id);
            i_line.append_value(i32::try_from(line).unwrap_or(0) + 1);
            i_product.append_value(product);
            i_quantity.append_value(quantity);
            i_price.append_value(unit);
        }
        let discount = if rng.chance(15) {
            Some(total * i128::from(rng.range(5, 20)) / 100)
        } else {
            None
        };
        let due = total - discount.unwrap_or(0);
        o_id.append_value(order_id);
        o_customer.append_value(customer);
        o_at.append_value(at);
        o_status.append_value(status);
        o_channel.append_value(CHANNELS[rng.weighted(&[55, 35, 10])]);
        o_total.append_value(due);
        o_discount.append_option(discount);
        if status != "placed" {
            let failed_first = rng.chance(4);
            for attempt in 0..(1 + usize::from(failed_first)) {
                payment_id += 1;
                let failed = failed_first && attempt == 0;
                p_id.append_value(payment_id);
                p_order.append_value(order_id);
                p_method.append_value(METHODS[rng.weighted(&[60, 25, 10, 5])]);
                p_amount.append_value(due);
                p_status.append_value(match (failed, status) {
                    (true, _) => "failed",
                    (false, "refunded") => "refunded",
                    _ => "succeeded",
                });
                if failed {
                    p_at.append_null();
                } else {
                    p_at.append_value(at + rng.range(60, 7_200) * 1_000_000);
                }
            }
        }
    }
    let orders = DemoTable {
        name: "orders",
        comment: "One row per order; total is what the customer paid after discount.",
        column_comments: &[
            (
                "status",
                "placed, paid, shipped, delivered, cancelled or refunded",
            ),
            (
                "discount",
                "amount taken off the order; NULL when no discount",
            ),
        ],
        batches: vec![RecordBatch::try_new(
            schema(vec![
                Field::new("id", DataType::Int64, false),
                Field::new("customer_id", DataType::Int64, false),
                Field::new("ordered_at", timestamp(), false),
                Field::new("status", DataType::Utf8, false),
                Field::new("channel", DataType::Utf8, false),
                Field::new("total", money(12), false),
                Field::new("discount", money(12), true),
            ]),
            vec![
                Arc::new(o_id.finish()),
                Arc::new(o_customer.finish()),
                Arc::new(o_at.finish()),
                Arc::new(o_status.finish()),
                Arc::new(o_channel.finish()),
                Arc::new(o_total.finish()),
                Arc::new(o_discount.finish()),
            ],
        )?],
    };
    let items = DemoTable {
        name: "order_items",
        comment: "The lines of each order: product, quantity and the unit price charged.",
        column_comments: &[],
        batches: vec![RecordBatch::try_new(
            schema(vec![
                Field::new("order_id", DataType::Int64, false),
                Field::new("line_number", DataType::Int32, false),
                Field::new("product_id", DataType::Int64, false),
                Field::new("quantity", DataType::Int32, false),
                Field::new("unit_price", money(10), false),
            ]),
            vec![
                Arc::new(i_order.finish()),
                Arc::new(i_line.finish()),
                Arc::new(i_product.finish()),
                Arc::new(i_quantity.finish()),
                Arc::new(i_price.finish()),
            ],
        )?],
    };
    let payments = DemoTable {
        name: "payments",
        comment: "Payment attempts; failed attempts have no paid_at.",
        column_comments: &[("status", "succeeded, failed or refunded")],
        batches: vec![RecordBatch::try_new(
            schema(vec![
                Field::new("id", DataType::Int64, false),
                Field::new("order_id", DataType::Int64, false),
                Field::new("method", DataType::Utf8, false),
                Field::new("amount", money(12), false),
                Field::new("status", DataType::Utf8, false),
                Field::new("paid_at", timestamp(), true),
            ]),
            vec![
                Arc::new(p_id.finish()),
                Arc::new(p_order.finish()),
                Arc::new(p_method.finish()),
                Arc::new(p_amount.finish()),
                Arc::new(p_status.finish()),
                Arc::new(p_at.finish()),
            ],
        )?],
    };
    Ok((orders, items, payments))
}

fn generate_reviews(
    rng: &mut Rng,
    n: usize,
    customers: usize,
    products: usize,
) -> Result<DemoTable, ArrowError> {
    let mut id = Int64Builder::with_capacity(n);
    let mut product = Int64Builder::with_capacity(n);
    let mut customer = Int64Builder::with_capacity(n);
    let mut rating = Int32Builder::with_capacity(n);
    let mut title = StringBuilder::new();
    let mut body = StringBuilder::new();
    let mut at = TimestampMicrosecondBuilder::with_capacity(n);
    for i in 0..n {
        id.append_value(i as i64 + 1);
        product.append_value(rng.range(1, products as i64));
        customer.append_value(rng.range(1, customers as i64));
        rating.append_value(i32::try_from(rng.weighted(&[6, 6, 14, 32, 42]) + 1).unwrap_or(5));
        title.append_value(rng.pick(REVIEW_TITLES));
        if rng.chance(20) {
            body.append_null();
        } else {
            body.append_value(rng.pick(REVIEW_BODIES));
        }
        let day = START_DAY + i32::try_from(rng.range(20, i64::from(DAYS) - 1)).unwrap_or(0);
        at.append_value(i64::from(day) * MICROS_PER_DAY + rng.range(0, 86_399) * 1_000_000);
    }
    Ok(DemoTable {
        name: "reviews",
        comment: "Product reviews with a 1–5 star rating; texts are as customers typed them.",
        column_comments: &[("rating", "1 (worst) to 5 (best) stars")],
        batches: vec![RecordBatch::try_new(
            schema(vec![
                Field::new("id", DataType::Int64, false),
                Field::new("product_id", DataType::Int64, false),
                Field::new("customer_id", DataType::Int64, false),
                Field::new("rating", DataType::Int32, false),
                Field::new("title", DataType::Utf8, false),
                Field::new("body", DataType::Utf8, true),
                Field::new("created_at", timestamp(), false),
            ]),
            vec![
                Arc::new(id.finish()),
                Arc::new(product.finish()),
                Arc::new(customer.finish()),
                Arc::new(rating.finish()),
                Arc::new(title.finish()),
                Arc::new(body.finish()),
                Arc::new(at.finish()),
            ],
        )?],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_sized() {
        let a = generate(DemoScale::Small).unwrap();
        let b = generate(DemoScale::Small).unwrap();
        let names: Vec<&str> = a.iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "customers",
                "products",
                "orders",
                "order_items",
                "payments",
                "reviews"
            ]
        );
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.batches, y.batches, "{} differs between runs", x.name);
        }
        let rows: Vec<usize> = a.iter().map(DemoTable::row_count).collect();
        assert_eq!(&rows[..3], &[100, 40, 600]);
        assert!(
            rows[3] >= 600 && rows[4] >= 500 && rows[5] == 200,
            "{rows:?}"
        );
    }

    #[test]
    fn full_scale_has_a_few_hundred_thousand_rows() {
        let tables = generate(DemoScale::Full).unwrap();
        let total: usize = tables.iter().map(DemoTable::row_count).sum();
        assert!((250_000..400_000).contains(&total), "{total}");
    }
}
