//! Queries over the demo shop that the chart tests and the `chart` example draw.

/// Monthly revenue by sales channel: a date x axis and three series.
pub(crate) const MONTHLY_BY_CHANNEL: &str = "SELECT strftime('%Y-%m', ordered_at) AS month, \
     SUM(CASE WHEN channel = 'web' THEN total ELSE 0 END) AS web, \
     SUM(CASE WHEN channel = 'mobile' THEN total ELSE 0 END) AS mobile, \
     SUM(CASE WHEN channel = 'store' THEN total ELSE 0 END) AS store \
     FROM orders GROUP BY 1 ORDER BY 1";

/// Revenue by product category, largest first: categories and one series.
pub(crate) const BY_CATEGORY: &str = "SELECT p.category, SUM(i.quantity * i.unit_price) AS revenue \
     FROM order_items i JOIN products p ON p.id = i.product_id GROUP BY 1 ORDER BY 2 DESC";
